// The generated /openapi.json as linters read it: Redocly's recommended rules at zero errors (its CLI
// on the document written to a file), one path item per path template, a success response on every
// operation, the SSE endpoint's Last-Event-ID header, and a `webhooks` entry for every event kind whose
// schema matches what the outbox really sends.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeliveredEventType, WEBHOOK_PAYLOADS, WEBHOOK_TEST_EVENT } from "@inlay/core/schemas/webhooks";
import { createPlatformApp, type PlatformDeps } from "@/server/platform/app";
import { lowBalancePayload } from "@/server/platform/jobs/payment-jobs";
import { webhookBody } from "@/server/platform/jobs/webhook-delivery";
import { openApiDocument } from "@/server/platform/routes/meta/openapi";
import { runWebhookPayload } from "@/server/platform/services/runs/run-webhooks";
import { testEventPayload } from "@/server/platform/services/webhooks/webhooks";

// Building the document needs no database: only the key prefix and base URL are read at construction.
const deps = { config: { keyPrefix: "inlay_sk_", publicBaseUrl: "http://127.0.0.1:3000" } } as unknown as PlatformDeps;
type Document = Omit<ReturnType<typeof openApiDocument>, "webhooks"> & { webhooks?: Record<string, Record<string, any>> };
const document = openApiDocument(createPlatformApp(deps)) as unknown as Document;
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];
const operations = Object.entries(document.paths).flatMap(([route, item]) =>
  Object.entries(item as Record<string, any>)
    .filter(([method]) => METHODS.includes(method))
    .map(([method, operation]) => ({ label: `${method.toUpperCase()} ${route}`, operation })),
);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "inlay-openapi-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("redocly lint of /openapi.json", () => {
  it("reports no error under the repository's redocly.yaml (recommended rules)", async () => {
    const file = path.join(dir, "openapi.json");
    await writeFile(file, JSON.stringify(document));
    const root = process.cwd();
    const { stdout } = await promisify(execFile)(
      path.join(root, "node_modules/.bin/redocly"),
      ["lint", file, "--config", path.join(root, "redocly.yaml"), "--format", "json"],
      // No telemetry, no update check: the test reaches nothing outside the machine. The child needs PATH.
      // eslint-disable-next-line no-restricted-properties -- a child process's environment, not configuration
      { cwd: root, env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" }, maxBuffer: 64 * 1024 * 1024 },
    ).catch((error: { stdout?: string; message: string }) => ({ stdout: error.stdout ?? error.message }));
    const report = JSON.parse(stdout.slice(stdout.indexOf("{"))) as {
      totals: { errors: number; warnings: number };
      problems: { severity: string; ruleId: string; message: string }[];
    };
    const errors = report.problems.filter((problem) => problem.severity === "error").map((problem) => `${problem.ruleId}: ${problem.message}`);
    expect(errors).toEqual([]);
    expect(report.totals.errors).toBe(0);
  }, 60_000);
});

describe("the document's paths and operations", () => {
  it("has one path item per path template, whatever its parameters are called", () => {
    const templates = Object.keys(document.paths).map((route) => route.replace(/\{[^}]+\}/g, "{}"));
    expect(templates.filter((template, index) => templates.indexOf(template) !== index)).toEqual([]);
    expect(Object.keys(document.paths)).toContain("/teams/invites/{invite}");
  });

  it("gives every operation a success response (2xx, or the redirect of a browser flow)", () => {
    const without = operations.filter(({ operation }) => !Object.keys(operation.responses ?? {}).some((code) => /^[23]/.test(code)));
    expect(without.map(({ label }) => label)).toEqual([]);
  });

  it("declares Last-Event-ID on the run events stream", () => {
    const parameters = (document.paths["/runs/{run_id}/events"] as any).get.parameters as { name: string; in: string }[];
    expect(parameters).toContainEqual(expect.objectContaining({ name: "Last-Event-ID", in: "header" }));
  });
});

describe("the document's webhooks", () => {
  const at = new Date("2026-11-25T10:00:00.000Z");
  const run = {
    id: 7,
    accountId: 1,
    endUserId: 3,
    agentId: 2,
    taskId: null,
    status: "completed",
    permissionMode: "autonomous",
    outputSchema: { type: "object" },
    outputData: { ok: true },
    retention: "standard",
    error: "model unavailable",
  } as Parameters<typeof runWebhookPayload>[0];

  it("describes every event kind the platform sends, signed, with its payload schema", () => {
    expect(Object.keys(document.webhooks ?? {}).sort()).toEqual([...DeliveredEventType.options].sort());
    for (const [type, item] of Object.entries(document.webhooks ?? {})) {
      const post = item.post;
      expect(post.requestBody.content["application/json"].schema.$ref, type).toMatch(/^#\/components\/schemas\//);
      expect(post.parameters.map((parameter: { name: string }) => parameter.name), type).toEqual(["webhook-id", "webhook-timestamp", "webhook-signature"]);
    }
  });

  it("has schemas that the bodies the outbox sends satisfy, field for field", () => {
    const extra = { pending_requests: [{ request_id: "req_1", tool_name: "send_email", kind: "connection", app: "mailer" }] };
    for (const type of DeliveredEventType.options) {
      const payload =
        type === "billing.low_balance"
          ? lowBalancePayload({ id: 1, balanceMicros: 1_234_567n }, 500, 2)
          : type === WEBHOOK_TEST_EVENT
            ? testEventPayload({ id: 7, endUser: { externalId: "alice" } })
            : runWebhookPayload(run, type, "alice", type === "run.awaiting_input" ? extra : {});
      const body = JSON.parse(webhookBody(payload, at)) as Record<string, unknown>;
      const parsed = WEBHOOK_PAYLOADS[type].strict().safeParse(body);
      expect(parsed.error?.issues ?? [], type).toEqual([]);
    }
  });
});
