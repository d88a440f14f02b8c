// A request's path as spans and log lines record it (http/request-labels.ts): every secret a route's
// path carries is replaced, for every such route /openapi.json lists, matched or not.
import { describe, expect, it } from "vitest";
import { createPlatformApp, type PlatformDeps } from "@/server/platform/app";
import { PLATFORM_BASE_PATH } from "@/server/platform/context";
import { redactedPath } from "@/server/platform/http/request-labels";
import { openApiDocument } from "@/server/platform/routes/meta/openapi";

// Path parameters that are secrets rather than ids (an inbound hook's token, an invite, an
// authorization's state, a payment's reference).
const SECRET_PARAMS = ["token", "invite", "state", "reference"];
const deps = { config: { keyPrefix: "inlay_sk_", publicBaseUrl: "http://127.0.0.1:3000" } } as unknown as PlatformDeps;
const paths = Object.keys(openApiDocument(createPlatformApp(deps)).paths);

describe("redactedPath", () => {
  it("replaces the secret of every route whose path carries one", () => {
    const secretRoutes = paths.filter((template) => SECRET_PARAMS.some((name) => template.includes(`{${name}}`)));
    expect(secretRoutes).toEqual(expect.arrayContaining(["/hooks/agents/{token}", "/hooks/tasks/{token}", "/billing/receipt-pages/{token}"]));
    for (const template of secretRoutes) {
      const path = PLATFORM_BASE_PATH + template.replace(/\{(\w+)\}/g, (_, name: string) => (SECRET_PARAMS.includes(name) ? "s3cr3t_value" : "id_1"));
      expect(redactedPath(path), template).not.toContain("s3cr3t_value");
      // A path no route matches (a trailing segment) is redacted the same.
      expect(redactedPath(`${path}/more`), template).not.toContain("s3cr3t_value");
    }
  });

  it("leaves ids and paths without secrets as they are", () => {
    expect(redactedPath("/api/v2/runs/42/events")).toBe("/api/v2/runs/42/events");
    expect(redactedPath("/api/v2/hooks/agents/whk_abc")).toBe("/api/v2/hooks/agents/{redacted}");
  });
});
