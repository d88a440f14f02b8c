// The operator CLI (npm run inlay; docs/operations.md): each command in-process (runCli) on the harness's
// database, checked through the API and the rows, and the script itself spawned once to prove the wiring.
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "@/server/cli/main";
import { openSecret, SEALED_FOR } from "@/server/platform/services/sealed-secrets";
import type { PlatformConfig } from "@/server/platform/platform-config";
import { createEmptyPostgresDatabase, testDatabaseKind } from "../../helpers/database";
import { pollFor, pollUntil } from "../../helpers/poll";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { startWebhookReceiver, type WebhookReceiver } from "../../helpers/webhook-receiver";

const OLD_KEY = "operator-cli-key-before";
const NEW_KEY = "operator-cli-key-after";

let platform: PlatformHarness;
let receiver: WebhookReceiver;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  // One attempt per delivery, so a failing receiver makes a dead delivery at once; jobs looked for every 0.5 s.
  platform = await startPlatform({ secretKey: OLD_KEY, webhooks: { retryScheduleMs: [0] }, jobPollSeconds: 0.5 });
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await platform?.close();
  await receiver?.close();
  await Promise.all(cleanups.map((cleanup) => cleanup()));
});

const prisma = () => platform.database.prisma;

/** Runs one command line on the harness's database (`config` replaces its configuration). */
async function cli(args: string[], config: PlatformConfig = platform.config) {
  const out: string[] = [];
  const err: string[] = [];
  const status = await runCli(args, {
    open: async () => ({ database: platform.database, config, close: async () => {} }),
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
  });
  const stdout = out.join("\n");
  return { status, stdout, stderr: err.join("\n"), json: () => JSON.parse(stdout) };
}

const balanceOf = async (account: Account) => (await platform.call("/billing/balance", { key: account.key })).body.balance_micros as number;

describe("accounts verify", () => {
  it("marks an account's email verified by email or id, as the mailed link would, and says when it already was", async () => {
    const account = await platform.signup();
    expect((await platform.call("/verify/status", { key: account.key })).body.verified).toBe(false);

    const verified = await cli(["accounts", "verify", account.email.toUpperCase()]);
    expect(verified).toMatchObject({ status: 0, stderr: "" });
    expect(verified.stdout).toBe(`account ${account.id} <${account.email}> is verified`);
    const status = (await platform.call("/verify/status", { key: account.key })).body;
    expect(status.verified).toBe(true);

    const again = await cli(["accounts", "verify", String(account.id), "--json"]);
    expect(again.status).toBe(0);
    expect(again.json()).toEqual({ account: { id: account.id, email: account.email }, verified_at: status.verified_at, already_verified: true });
  });

  it("exits 1 for an account that does not exist and 2 for input that names none, touching nothing", async () => {
    const missing = await cli(["accounts", "verify", "nobody@example.com"]);
    expect(missing).toMatchObject({ status: 1, stdout: "", stderr: "inlay accounts verify: no account with email nobody@example.com" });
    expect((await cli(["accounts", "verify", "999999"])).status).toBe(1);
    const bad = await cli(["accounts", "verify", "not an account"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^inlay accounts verify: name the account by its email or id, got "not an account" \(npm run inlay -- accounts verify --help\)$/);
    expect((await cli(["accounts", "verify", "--help"])).stdout).toContain("usage: npm run inlay -- accounts verify <email|account-id>");
  });
});

describe("accounts credit", () => {
  it("credits exact amounts with a receipt and a ledger entry naming who and why", async () => {
    const account = await platform.signup();
    // A balance runs have spent from: exact to the micro-USD, over a thousand dollars.
    await prisma().platformAccount.update({ where: { id: account.id }, data: { balanceMicros: 1_009_329_700n } });
    const before = await balanceOf(account);

    const credited = await cli(["accounts", "credit", account.email, "--usd", "10.50", "--reason", "goodwill after the outage", "--actor", "ops@example.com"]);
    expect(credited.status, credited.stderr).toBe(0);
    // Amounts read as the console shows them (packages/core/src/money.ts): `$1,019.8297`, not a rounded `$1019.83`.
    expect(credited.stdout).toMatch(new RegExp(`^credited \\$10\\.50 to account ${account.id} <${account.email}>: balance \\$1,019\\.8297\\nreceipt R-\\d{6}, payment pay_[0-9a-f]{24}$`));
    expect(await balanceOf(account)).toBe(before + 10_500_000);
    const ledger = (await platform.call("/billing/balance", { key: account.key })).body.transactions[0];
    expect(ledger).toMatchObject({ type: "topup", amount_micros: 10_500_000 });
    expect(ledger.description).toMatch(/^Credit by ops@example\.com: goodwill after the outage \[pay_[0-9a-f]{24}\]$/);

    // Micro-dollars, by id, for a script; 0.07 is not a float's 0.07000000000000001.
    const json = await cli(["accounts", "credit", String(account.id), "--micro-usd", "70000", "--reason", "rounding", "--json"]);
    expect(json.status, json.stderr).toBe(0);
    expect(json.json()).toMatchObject({ account: { id: account.id }, balance_micros: before + 10_570_000, receipt: { amount_cents: 7, kind: "manual_credit" } });
    const receipts = (await platform.call("/billing/receipts", { key: account.key })).body.data;
    expect(receipts.map((receipt: { amount_cents: number }) => receipt.amount_cents)).toEqual([7, 1_050]);
  });

  it("refuses a sub-cent, negative, missing or doubled amount and a missing reason (exit 2), crediting nothing", async () => {
    const account = await platform.signup();
    const before = await balanceOf(account);
    for (const args of [
      ["--usd", "1.005", "--reason", "r"],
      ["--micro-usd", "1", "--reason", "r"],
      ["--usd", "0", "--reason", "r"],
      ["--usd=-3", "--reason", "r"],
      ["--usd", "1e3", "--reason", "r"],
      ["--reason", "r"],
      ["--usd", "1", "--micro-usd", "1000000", "--reason", "r"],
      ["--usd", "1"],
      ["--usd", "1", "--reason", "  "],
    ]) {
      const refused = await cli(["accounts", "credit", account.email, ...args]);
      expect(refused.status, args.join(" ")).toBe(2);
      expect(refused.stderr.split("\n"), args.join(" ")).toHaveLength(1);
      expect(refused.stderr).toMatch(/^inlay accounts credit: \S/);
    }
    expect((await cli(["accounts", "credit", "nobody@example.com", "--usd", "1", "--reason", "r"])).status).toBe(1);
    expect(await balanceOf(account)).toBe(before);
    expect(await prisma().platformPayment.count({ where: { accountId: account.id } })).toBe(0);
  });
});

describe("runs stuck", () => {
  it("lists running runs with a lapsed lease, unclaimed too long, or started too long ago; not a healthy one", async () => {
    const account = await platform.signup({ require_end_user_id: false });
    const agent = (await platform.call("/agents", { key: account.key, body: { name: "Stuck" } })).body.id as number;
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) {
      const started = await platform.call("/runs", { key: account.key, body: { teammate_id: agent, message: "hello", stream: false } });
      ids.push((await platform.waitForRun(account.key, started.body.id, ["completed"])).id);
    }
    const [lapsed, unclaimed, long, healthy] = ids as [number, number, number, number];
    // As a dead worker, a worker-less installation, a long run and a healthy one leave their rows.
    const set = (id: number, sql: string) => prisma().$executeRawUnsafe(`UPDATE platform_runs SET status = 'running', ${sql} WHERE id = $1`, id);
    await set(lapsed, "lease_owner = 'dead-worker', lease_expires_at = now() - interval '1 minute'");
    await set(unclaimed, "lease_owner = NULL, lease_expires_at = NULL, updated_at = now() - interval '20 minutes'");
    await set(long, "lease_owner = 'busy-worker', lease_expires_at = now() + interval '1 minute', created_at = now() - interval '3 hours'");
    await set(healthy, "lease_owner = 'busy-worker', lease_expires_at = now() + interval '1 minute'");
    try {
      const listed = await cli(["runs", "stuck", "--json"]);
      expect(listed.status).toBe(0);
      const found = (listed.json() as { id: number; reason: string; lease_owner: string | null }[]).filter((run) => ids.includes(run.id));
      expect(found).toMatchObject([
        { id: lapsed, reason: "lease_lapsed", lease_owner: "dead-worker" },
        { id: unclaimed, reason: "unclaimed", lease_owner: null },
        { id: long, reason: "long_running", lease_owner: "busy-worker" },
      ]);
      // A longer threshold leaves the unclaimed run (20 minutes) and keeps the three-hour one.
      const hour = (await cli(["runs", "stuck", "--older-than", "1h", "--json"])).json() as { id: number }[];
      expect(hour.map((run) => run.id).filter((id) => ids.includes(id))).toEqual([lapsed, long]);
      const text = await cli(["runs", "stuck"]);
      expect(text.stdout).toContain("lease lapsed: no worker renews or reclaims it");
      expect(text.stdout.split("\n")[0]).toMatch(/^run\s+account\s+why/);
      expect((await cli(["runs", "stuck", "--older-than", "soon"])).status).toBe(2);
    } finally {
      await prisma().platformRun.updateMany({ where: { id: { in: ids } }, data: { status: "completed", leaseOwner: null, leaseExpiresAt: null } });
    }
    expect((await cli(["runs", "stuck"])).stdout).toBe("no stuck runs");
  });
});

describe("jobs failed", () => {
  it("lists jobs whose every retry failed, with the error, newest first", async () => {
    const { jobs } = await platform.runtime();
    await jobs.register("cli-test-failing", async () => {
      throw new Error("the receiver is gone");
    }, { retryLimit: 0 });
    const id = (await jobs.enqueue("cli-test-failing", { accountId: 7 }))!;
    await pollUntil(async () => (await jobs.inspect("cli-test-failing", id))?.state, (state) => state === "failed", "the job to fail");

    const listed = await cli(["jobs", "failed", "--name", "cli-test-failing", "--json"]);
    expect(listed.status).toBe(0);
    expect(listed.json()).toMatchObject([{ id, name: "cli-test-failing", data: { accountId: 7 }, retryCount: 0, error: "the receiver is gone" }]);
    const text = await cli(["jobs", "failed"]);
    expect(text.stdout).toMatch(new RegExp(`cli-test-failing\\s+${id}\\s+\\S+\\s+0\\s+the receiver is gone\\s+\\{"accountId":7\\}`));
    expect((await cli(["jobs", "failed", "--name", "no-such-job"])).stdout).toBe("no failed jobs");
  });
});

describe("webhooks dead | retry", () => {
  async function deadDelivery(account: Account, pathName: string) {
    const hook = await platform.call("/webhooks", { key: account.key, body: { url: receiver.url(pathName), events: ["run.completed"] } });
    const agent = (await platform.call("/agents", { key: account.key, body: { name: "Hooked" } })).body.id as number;
    const run = await platform.call("/runs", { key: account.key, body: { teammate_id: agent, message: "hello", stream: false } });
    await platform.waitForRun(account.key, run.body.id, ["completed"]);
    const delivery = await pollFor(async () => {
      const list = (await platform.call(`/webhooks/${hook.body.id}/deliveries`, { key: account.key })).body.data as { id: number; status: string }[];
      return list.find((each) => each.status === "failed");
    }, `a dead delivery of webhook ${hook.body.id}`);
    return { webhookId: hook.body.id as number, deliveryId: delivery.id };
  }

  it("lists dead deliveries (never the URL) and sends them again through the platform's retry", async () => {
    const account = await platform.signup({ require_end_user_id: false });
    receiver.respond((request) => (request.path === "/cli-dead" ? 500 : 200));
    const { webhookId, deliveryId } = await deadDelivery(account, "/cli-dead");

    const listed = await cli(["webhooks", "dead", "--account", String(account.id), "--json"]);
    expect(listed.status).toBe(0);
    expect(listed.json()).toEqual([
      expect.objectContaining({ id: deliveryId, webhook_id: webhookId, account_id: account.id, event_type: "run.completed", attempts: 1 }),
    ]);
    expect(listed.stdout).not.toContain(receiver.url("/cli-dead"));
    expect((await cli(["webhooks", "dead", "--account", String(account.id)])).stdout).toContain("the endpoint answered 500");

    receiver.respond(() => 200);
    const retried = await cli(["webhooks", "retry", "--webhook", String(webhookId)]);
    expect(retried).toMatchObject({ status: 0, stdout: `queued 1 delivery for one more attempt: ${deliveryId}` });
    const done = await pollFor(async () => {
      const list = (await platform.call(`/webhooks/${webhookId}/deliveries`, { key: account.key })).body.data as { id: number; status: string; attempt_count: number }[];
      return list.find((each) => each.id === deliveryId && each.status === "succeeded");
    }, "the retried delivery to succeed");
    expect(done.attempt_count).toBe(2);
    expect((await cli(["webhooks", "dead", "--account", String(account.id)])).stdout).toBe("no dead deliveries");
    expect((await cli(["webhooks", "retry", "--delivery", String(deliveryId)])).stdout).toBe("no dead delivery to retry");
  });

  it("skips a paused webhook's deliveries with the reason (exit 1), and wants a selection or --all", async () => {
    const account = await platform.signup({ require_end_user_id: false });
    receiver.respond((request) => (request.path === "/cli-paused" ? 500 : 200));
    const { webhookId, deliveryId } = await deadDelivery(account, "/cli-paused");
    expect((await platform.call(`/webhooks/${webhookId}`, { key: account.key, method: "PATCH", body: { active: false } })).status).toBe(200);

    const skipped = await cli(["webhooks", "retry", "--account", String(account.id), "--json"]);
    expect(skipped.status).toBe(1);
    expect(skipped.json()).toMatchObject({ retried: [], skipped: [{ id: deliveryId, reason: `webhook ${webhookId} is paused; PATCH it with active=true first` }] });
    expect((await prisma().platformWebhookDelivery.findUniqueOrThrow({ where: { id: BigInt(deliveryId) } })).status).toBe("failed");

    const unnamed = await cli(["webhooks", "retry"]);
    expect(unnamed.status).toBe(2);
    expect(unnamed.stderr).toContain("name what to retry: --delivery, --webhook or --account, or else --all");
    expect((await cli(["webhooks", "retry", "--all", "--account", "1"])).status).toBe(2);
  });
});

describe("secrets reseal", () => {
  it("counts with --check, then seals every value under the new key, after which the old key can go", async () => {
    const account = await platform.signup({ require_end_user_id: false });
    const hook = await platform.call("/webhooks", { key: account.key, body: { url: receiver.url("/cli-rotate"), events: ["run.completed"] } });
    const sealedBefore = (await prisma().platformWebhook.findUniqueOrThrow({ where: { id: hook.body.id } })).secretSealed;
    const rotated: PlatformConfig = { ...platform.config, secretKey: NEW_KEY, previousSecretKeys: [OLD_KEY] };

    const check = await cli(["secrets", "reseal", "--check", "--json"], rotated);
    expect(check.status).toBe(1);
    const stale = check.json().stale as number;
    expect(stale).toBeGreaterThanOrEqual(1);
    expect(check.json()).toMatchObject({ check: true, previous_keys: 1, resealed: 0, unreadable: {}, previous_keys_removable: false });
    expect((await prisma().platformWebhook.findUniqueOrThrow({ where: { id: hook.body.id } })).secretSealed).toBe(sealedBefore);

    const resealed = await cli(["secrets", "reseal"], rotated);
    expect(resealed.status).toBe(0);
    expect(resealed.stdout).toBe(`re-sealed ${stale} value(s) under INLAY_SECRET_KEY\nINLAY_SECRET_KEY_PREVIOUS can be removed`);
    const sealedAfter = (await prisma().platformWebhook.findUniqueOrThrow({ where: { id: hook.body.id } })).secretSealed;
    const newOnly: PlatformConfig = { ...platform.config, secretKey: NEW_KEY, previousSecretKeys: [] };
    expect(openSecret(newOnly, sealedAfter, SEALED_FOR.webhooks).value).toMatch(/^whsec_/);
    // Nothing printed is a key.
    expect(resealed.stdout + check.stdout).not.toContain(NEW_KEY);
    expect(resealed.stdout + check.stdout).not.toContain(OLD_KEY);

    // With the new key alone every value opens; with the old key alone, none does (exit 1, per column).
    expect(await cli(["secrets", "reseal", "--check"], newOnly)).toMatchObject({ status: 0, stdout: expect.stringContaining("every value opens under INLAY_SECRET_KEY") });
    const lost = await cli(["secrets", "reseal", "--check"], platform.config);
    expect(lost.status).toBe(1);
    expect(lost.stdout).toContain("platform_webhooks.secret_sealed: ");
    expect(lost.stdout).toContain("open under no configured key");
  });
});

describe("a PGlite data directory a running Inlay holds", () => {
  it("is refused, naming the holder and what to do, before anything in it is opened or written", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "inlay-cli-held-"));
    // The lock a running platform leaves; the test runner's parent stands for it (alive, not this process).
    await writeFile(path.join(dir, "inlay.pid"), `${process.ppid}\n`);
    const err: string[] = [];
    const status = await runCli(["accounts", "credit", "ada@example.com", "--usd", "3", "--reason", "r", "--data-dir", dir], {
      stdout: () => {},
      stderr: (text) => err.push(text),
    });
    expect(status).toBe(1);
    expect(err.join("\n")).toMatch(
      new RegExp(`^inlay accounts credit: the data directory ${dir} is in use by a running Inlay \\(pid ${process.ppid}\\); stop it, or go through it`),
    );
    expect(await readdir(dir)).toEqual(["inlay.pid"]);
    expect((await readFile(path.join(dir, "inlay.pid"), "utf8")).trim()).toBe(String(process.ppid));
  });
});

describe("npm run inlay", () => {
  const run = (args: string[], extraEnv: Record<string, string>) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      // eslint-disable-next-line no-restricted-properties -- the child inherits the test's environment
      const { DATABASE_URL: _ignored, ...inherited } = process.env;
      const child = spawn("npm", ["run", "--silent", "inlay", "--", ...args], {
        env: { ...inherited, NODE_ENV: "development", LOG_LEVEL: "warn", ...extraEnv },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      child.once("error", reject);
      child.once("exit", (status) => resolve({ status, stdout, stderr }));
    });

  it("runs a command on the database it is given, exits 1 with one line when it fails and 2 on bad input", async () => {
    let target: string[] = [];
    let extraEnv: Record<string, string> = {};
    if (testDatabaseKind === "postgres") {
      const empty = await createEmptyPostgresDatabase();
      cleanups.push(empty.drop);
      extraEnv = { DATABASE_URL: empty.url };
    } else {
      target = ["--data-dir", path.join(await mkdtemp(path.join(tmpdir(), "inlay-cli-")), "db")];
    }
    // A fresh database: migrated on open, and nothing stuck in it.
    const stuck = await run(["runs", "stuck", "--json", ...target], extraEnv);
    expect(stuck, stuck.stderr).toMatchObject({ status: 0, stdout: "[]\n" });
    const missing = await run(["accounts", "verify", "nobody@example.com", ...target], extraEnv);
    expect(missing).toMatchObject({ status: 1, stdout: "", stderr: "inlay accounts verify: no account with email nobody@example.com\n" });
    const bad = await run(["accounts", "credit", "nobody@example.com", "--usd", "ten", ...target], extraEnv);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--usd must be an amount in dollars such as 10 or 10.50, got "ten"');
    const help = await run(["--help"], extraEnv);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("accounts verify");
  }, 120_000);
});
