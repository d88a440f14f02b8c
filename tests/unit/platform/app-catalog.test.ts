import { describe, expect, it } from "vitest";
import { AppsFileError } from "@/server/platform/apps/apps-file";
import { createAppCatalog } from "@/server/platform/apps/catalog";
import { toolsFromOpenApi } from "@/server/platform/apps/openapi-tools";

describe("createAppCatalog", () => {
  it("lists the built-in apps, none configured without client credentials", () => {
    const catalog = createAppCatalog();
    expect(catalog.list().map((app) => app.slug)).toEqual(["codehost", "chat", "mail"]);
    expect(catalog.configured("codehost")).toBe(false);
    expect(catalog.get("mail")?.oauth?.authorizationParams).toMatchObject({ access_type: "offline", prompt: "consent" });
    expect(catalog.get("nope")).toBeUndefined();
  });

  it("takes credentials and URLs from overrides, over the file's", () => {
    const catalog = createAppCatalog({
      content: { redirect_origins: ["https://app.example.com/some/path"], apps: [{ slug: "codehost", client_id: "file-id", client_secret: "file-secret", api_base_url: "https://ghe.example.com/api/v3" }] },
      overrides: { codehost: { clientId: "env-id", tokenUrl: "http://127.0.0.1:9/token" } },
      redirectOrigins: ["http://localhost:3000"],
    });
    const codehost = catalog.get("codehost")!;
    expect(codehost.oauth).toMatchObject({ clientId: "env-id", clientSecret: "file-secret", tokenUrl: "http://127.0.0.1:9/token" });
    expect(codehost.apiBaseUrl).toBe("https://ghe.example.com/api/v3");
    expect(catalog.configured("codehost")).toBe(true);
    expect(catalog.redirectOrigins).toEqual(["http://localhost:3000", "https://app.example.com"]);
  });

  it("adds vendor apps: API key with listed tools, OAuth with tools from OpenAPI", () => {
    const catalog = createAppCatalog({
      content: {
        apps: [
          {
            slug: "crm",
            name: "CRM",
            auth: "api_key",
            api_key: { header: "X-Api-Key" },
            api_base_url: "https://crm.example.com/v1",
            tools: [{ name: "list_contacts", description: "Contacts", method: "GET", path: "/contacts" }],
          },
          {
            slug: "tracker",
            name: "Tracker",
            auth: "oauth2",
            oauth: { authorization_url: "https://tracker.example.com/oauth/authorize", token_url: "https://tracker.example.com/oauth/token", scopes: ["read"] },
            api_base_url: "https://tracker.example.com/api",
            openapi: {
              openapi: "3.0.3",
              paths: {
                "/projects/{project_id}/tickets": {
                  parameters: [{ name: "project_id", in: "path", required: true, schema: { type: "integer" } }],
                  get: { operationId: "listTickets", summary: "List tickets", parameters: [{ name: "state", in: "query", schema: { type: "string" } }] },
                  post: {
                    operationId: "createTicket",
                    summary: "Create a ticket",
                    requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/NewTicket" } } } },
                  },
                },
              },
              components: { schemas: { NewTicket: { type: "object", properties: { title: { type: "string" } }, required: ["title"] } } },
            },
          },
        ],
      },
    });
    expect(catalog.configured("crm")).toBe(true);
    expect(catalog.get("crm")).toMatchObject({ source: "vendor", apiKey: { header: "X-Api-Key" }, tools: [{ name: "list_contacts", input: { type: "object" } }] });
    expect(catalog.configured("tracker")).toBe(false);
    expect(catalog.get("tracker")!.tools).toEqual([
      {
        name: "list_tickets",
        description: "List tickets",
        method: "GET",
        path: "/projects/{project_id}/tickets",
        input: { type: "object", properties: { project_id: { type: "integer" }, state: { type: "string" } }, required: ["project_id"] },
      },
      {
        name: "create_ticket",
        description: "Create a ticket",
        method: "POST",
        path: "/projects/{project_id}/tickets",
        input: { type: "object", properties: { project_id: { type: "integer" }, title: { type: "string" } }, required: ["project_id", "title"] },
      },
    ]);
  });

  it("names the place of a mistake in the file", () => {
    expect(() => createAppCatalog({ content: { apps: [{ slug: "x1", name: "X", auth: "oauth2", api_base_url: "https://x.example.com" }] } })).toThrow(AppsFileError);
    expect(() => createAppCatalog({ content: { apps: [{ slug: "Bad Slug" }] } })).toThrow(/apps\.0\.slug/);
  });
});

describe("toolsFromOpenApi", () => {
  it("names operations without an operationId after their method and path, and survives reference cycles", () => {
    const tools = toolsFromOpenApi({
      openapi: "3.1.0",
      paths: { "/things": { delete: { requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Loop" } } } } } } },
      components: { schemas: { Loop: { type: "array", items: { $ref: "#/components/schemas/Loop" } } } },
    });
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({ name: "delete_things", description: "DELETE /things", method: "DELETE" });
  });
});
