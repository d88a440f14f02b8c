// What the platform's shared layer (request id, routing, the error envelope) costs per request,
// against a bare Hono app answering the same 404 in-process.
import { Hono } from "hono";
import { createPlatformApp } from "@/server/platform/app";
import type { Suite } from "./run";

const bare = new Hono();
bare.notFound((c) => c.json({ error: { type: "not_found" } }, 404));
// The error path needs no database; one that is asked for is a bug in the benchmark.
const platform = createPlatformApp({
  database: () => Promise.reject(new Error("the overhead benchmark must not touch the database")),
});

export const platformOverhead: Suite = {
  name: "platform request overhead (404 envelope)",
  target: 3,
  baseline: { name: "bare Hono 404", fn: () => Promise.resolve(bare.request("http://x/api/v2/nope")) },
  subject: { name: "platform 404", fn: () => Promise.resolve(platform.request("http://x/api/v2/nope")) },
};
