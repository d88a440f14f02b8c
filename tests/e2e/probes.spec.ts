// The Next.js app's probes (server/framework/health.ts): with the embedded platform the app is that
// platform's process, so its readiness is the platform's (database, migrations, runtime, worker) and the
// app's own (the platform answers its key, the run ledger's webhook is registered).
import { expect, test } from "@playwright/test";

test("the app answers /healthz and /readyz for a load balancer", async ({ request }) => {
  const alive = await request.get("/healthz");
  expect(alive.status()).toBe(200);
  expect(await alive.json()).toEqual({ status: "ok", role: "all" });
  const ready = await request.get("/readyz");
  expect(ready.status()).toBe(200);
  expect(await ready.json()).toEqual({
    ready: true,
    role: "all",
    checks: {
      database: { ok: true },
      migrations: { ok: true },
      platform: { ok: true },
      ledger_webhook: { ok: true },
      runtime: { ok: true },
      worker: { ok: true },
    },
  });
});
