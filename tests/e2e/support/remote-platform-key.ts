// Remote mode of the e2e suite: waits for the separately started platform (`npm run platform`), signs
// up an account there (POST /signup through the client) and prints its API key, which the framework
// then uses as PLATFORM_API_KEY; with a file name, also writes it there for the specs that call the
// platform as the framework. Usage: tsx tests/e2e/support/remote-platform-key.ts <baseUrl> [keyFile]
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { signup } from "@inlay/core/platform-client";

const baseUrl = process.argv[2];
const keyFile = process.argv[3];
if (!baseUrl) throw new Error("usage: remote-platform-key.ts <platform base URL ending in /api/v2>");

const deadline = Date.now() + 120_000;
for (;;) {
  try {
    const response = await fetch(`${baseUrl}/openapi.json`);
    if (response.ok) break;
  } catch {
    // not listening yet
  }
  if (Date.now() > deadline) throw new Error(`the platform at ${baseUrl} did not come up`);
  await new Promise((resolve) => setTimeout(resolve, 250));
}
const { api_key } = await signup(
  { baseUrl },
  { email: `e2e-framework-${randomBytes(4).toString("hex")}@example.test`, first_name: "E2E framework", password: randomBytes(18).toString("base64url") },
);
if (keyFile) {
  mkdirSync(dirname(keyFile), { recursive: true });
  writeFileSync(keyFile, api_key, { mode: 0o600 });
}
process.stdout.write(api_key);
