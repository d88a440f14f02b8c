// A Next.js server whose start-up fails (instrumentation.ts) exits with the reason instead of staying up
// answering 500 to every request (server/framework/start-failure.ts).
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseEnv } from "@/lib/env";

const startFramework = vi.fn<() => Promise<void>>();
vi.mock("@/server/framework/startup", () => ({ startFramework }));

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  startFramework.mockReset();
});

describe("the app's start-up", () => {
  it("exits non-zero with one line naming what failed", async () => {
    vi.stubEnv("NEXT_RUNTIME", "nodejs");
    const exit = vi.spyOn(process, "exit").mockImplementation(() => undefined as never);
    const printed = vi.spyOn(console, "error").mockImplementation(() => {});
    startFramework.mockRejectedValueOnce(new Error("could not open the PGlite database in .data/pglite (PGLITE_DATA_DIR): EACCES"));
    const { register } = await import("@/instrumentation");
    await register();
    expect(exit).toHaveBeenCalledWith(1);
    expect(printed.mock.calls).toEqual([["The app cannot start: could not open the PGlite database in .data/pglite (PGLITE_DATA_DIR): EACCES"]]);
  });

  it("carries on when it succeeds", async () => {
    vi.stubEnv("NEXT_RUNTIME", "nodejs");
    const exit = vi.spyOn(process, "exit").mockImplementation(() => undefined as never);
    startFramework.mockResolvedValueOnce();
    const { register } = await import("@/instrumentation");
    await register();
    expect(startFramework).toHaveBeenCalledOnce();
    expect(exit).not.toHaveBeenCalled();
  });

  it("names a missing NEXTAUTH_SECRET in production", async () => {
    const { startFailureMessage } = await import("@/server/framework/start-failure");
    let failure: unknown;
    try {
      parseEnv({ NODE_ENV: "production" });
    } catch (error) {
      failure = error;
    }
    expect(startFailureMessage(failure)).toMatch(/^The app cannot start: Invalid environment[\s\S]*NEXTAUTH_SECRET: is required in production/);
  });
});
