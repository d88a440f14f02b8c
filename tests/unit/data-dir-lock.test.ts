// One process at a time on a PGlite data directory (server/shared/data-dir-lock.ts), and a directory
// PGlite cannot open refused with why and what to do (server/shared/db.ts), not PGlite's `Aborted()`.
import { spawnSync } from "node:child_process";
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DataDirError, LOCK_FILE_NAME, lockDataDir } from "@/server/shared/data-dir-lock";
import { openDatabase } from "@/server/shared/db";

const directory = () => mkdtemp(path.join(tmpdir(), "inlay-data-dir-"));
const holderOf = async (dir: string) => (await readFile(path.join(dir, LOCK_FILE_NAME), "utf8")).trim();

describe("lockDataDir", () => {
  it("refuses a directory a live process holds, naming its pid, and leaves its lock alone", async () => {
    const dir = await directory();
    // The test runner's parent: alive, and not this process.
    await writeFile(path.join(dir, LOCK_FILE_NAME), `${process.ppid}\n`);
    expect(() => lockDataDir(dir)).toThrow(DataDirError);
    expect(() => lockDataDir(dir)).toThrow(`the data directory ${dir} is in use by a running Inlay (pid ${process.ppid}); stop it`);
    // openDatabase takes the lock before PGlite touches the directory.
    await expect(openDatabase({ dataDir: dir })).rejects.toThrow(`is in use by a running Inlay (pid ${process.ppid})`);
    expect(await readdir(dir)).toEqual([LOCK_FILE_NAME]);
    expect(await holderOf(dir)).toBe(String(process.ppid));
  });

  it("takes over a lock whose process is gone, refuses a second hold in this process, and releases on close", async () => {
    const dir = await directory();
    const gone = spawnSync(process.execPath, ["-e", ""]).pid;
    await writeFile(path.join(dir, LOCK_FILE_NAME), `${gone}\n`);
    const lock = lockDataDir(dir);
    expect(await holderOf(dir)).toBe(String(process.pid));
    // Next.js dev reloads modules: a second open in one process would be a second writer too.
    expect(() => lockDataDir(dir)).toThrow(`the data directory ${dir} is already open in this process`);
    lock.release();
    lock.release();
    expect(await readdir(dir)).toEqual([]);
    // Taken again once released.
    lockDataDir(dir).release();
  });
});

describe("openDatabase on a PGlite directory it cannot open", () => {
  it("says why and what to do instead of PGlite's own failure, and releases the lock", async () => {
    const dir = await directory();
    // A data directory with its heart gone: PGlite aborts on it.
    await writeFile(path.join(dir, "PG_VERSION"), "17\n");
    const failure = await openDatabase({ dataDir: dir }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(DataDirError);
    expect((failure as Error).message).toMatch(new RegExp(`^cannot open the PGlite data directory ${dir} \\(.+\\): it is damaged`));
    expect((failure as Error).message).toContain("move it aside to start on an empty database");
    expect(await readdir(dir)).toEqual(["PG_VERSION"]);
  });
});
