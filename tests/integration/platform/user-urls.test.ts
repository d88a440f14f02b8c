// One rule for every URL a user supplies (outbound/user-url.ts): webhooks, tool servers, bridges and
// model connections' base_url answer the same URL the same way, each naming its own field.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
let account: Account;
beforeAll(async () => {
  // As a production deployment: no loopback, no plain http.
  platform = await startPlatform({ outboundAllowLoopback: false });
  account = await platform.signup({ require_end_user_id: false });
});
afterAll(() => platform.close());

const fields = {
  "POST /webhooks url": (url: string) => platform.call("/webhooks", { key: account.key, body: { url, events: ["run.completed"] } }),
  "POST /mcp-servers url": (url: string) => platform.call("/mcp-servers", { key: account.key, body: { name: "S", kind: "rest_api", url } }),
  "POST /bridges server_url": (url: string) => platform.call("/bridges", { key: account.key, body: { server_url: url, password: "bridge-password" } }),
  "PUT /model-connections base_url": (url: string) =>
    platform.call("/model-connections/openai-compatible", { key: account.key, method: "PUT", body: { api_key: "sk-test-key-1234567890", base_url: url } }),
};

describe("URLs users supply", () => {
  it.each([
    ["credentials in the URL", "https://user:pass@example.com/hook", "The URL must not carry a user or password; give credentials in their own field."],
    ["loopback behind a trailing dot and capitals", "https://LOCALHOST.:8443/hook", "localhost is a loopback address"],
    ["a database's port on a public host", "https://example.com:5432/hook", "Port 5432 is not allowed; use 443 or a port from 1024 that no database or infrastructure service uses."],
    ["an SSH port", "https://example.com:22/hook", "Port 22 is not allowed; use 443 or a port from 1024 that no database or infrastructure service uses."],
    ["plain http to a public host", "http://example.com/hook", "http URLs are not allowed; use https."],
  ])("refuse %s the same way in every field", async (_case, url, message) => {
    for (const [field, send] of Object.entries(fields)) {
      const response = await send(url);
      expect(response.status, `${field}: ${JSON.stringify(response.body)}`).toBe(422);
      expect(response.body.error.type, field).toBe("validation_error");
      expect(response.body.error.message, field).toContain(message);
    }
  });

  it("accept an https URL on 443 or an ordinary high port in every field", async () => {
    for (const [field, send] of Object.entries(fields)) {
      const response = await send("https://api.example.com:8443/v1");
      expect([200, 201], `${field}: ${JSON.stringify(response.body)}`).toContain(response.status);
    }
  });
});
