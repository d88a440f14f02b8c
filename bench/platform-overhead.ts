// What the platform's shared layer (request id, body limit, key lookup, rate limit, routing, the
// error envelope) costs per request, against a bare Hono app answering the same 404 in-process.
import { Hono } from "hono";
import { openDatabase, type Database } from "@/server/shared/db";
import { createPlatformApp } from "@/server/platform/app";
import { platformConfigFromEnv } from "@/server/platform/config";
import { createPlatformDeps } from "@/server/platform/deps";
import { createSimModel } from "@/server/platform/models/sim";
import { createLimiters } from "@/server/platform/middleware/rate-limit";
import { recordingMailer } from "@/server/platform/services/messaging/mailer";
import type { Suite } from "./run";

const bare = new Hono();
bare.notFound((c) => c.json({ error: { type: "not_found" } }, 404));

let database: Database | undefined;
let platform: ReturnType<typeof createPlatformApp> | undefined;
let deps: ReturnType<typeof createPlatformDeps> | undefined;

export const platformOverhead: Suite = {
  name: "platform request overhead (404 envelope, no key)",
  async setup() {
    database = await openDatabase({ dataDir: "memory://" });
    const opened = database;
    const config = platformConfigFromEnv();
    deps = createPlatformDeps({
      database: async () => opened,
      config,
      // High enough that the benchmark never hits the limit it measures.
      limiters: createLimiters({ accountPerMinute: 1e9, ipPerMinute: 1e9, signupPerMinute: 1e9, store: "memory" }),
      mailer: recordingMailer,
      languageModel: () => createSimModel(),
    });
    platform = createPlatformApp(deps);
  },
  async teardown() {
    await deps?.close();
    await database?.close();
  },
  baseline: { name: "bare Hono 404", fn: () => Promise.resolve(bare.request("http://x/api/v2/nope")) },
  subject: { name: "platform 404", fn: () => Promise.resolve(platform!.request("http://x/api/v2/nope")) },
};
