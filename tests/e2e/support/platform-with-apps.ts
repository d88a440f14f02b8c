// The remote pass's platform with a code host to connect: starts the loopback OAuth server and the
// code-host fake (tests/helpers), writes the apps file pointing the built-in `codehost` at them, then
// runs `npm run platform` with the given arguments. playwright.config.ts gives the platform that file
// (INLAY_APPS_FILE) and the framework's origin (INLAY_APP_REDIRECT_ORIGINS).
// Usage: tsx platform-with-apps.ts <platform /api/v2 URL> <apps file> -- <platform args>
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { startCodehostFake } from "../../helpers/app-fakes";
import { startOAuthServer } from "../../helpers/oauth-server";

const [platformUrl, appsFile, separator, ...platformArgs] = process.argv.slice(2);
if (!platformUrl || !appsFile || separator !== "--") {
  throw new Error("usage: platform-with-apps.ts <platform /api/v2 URL> <apps file> -- <platform args>");
}

const oauth = await startOAuthServer();
const codehost = await startCodehostFake(oauth);
oauth.register([`${platformUrl}/apps/oauth/callback`]);

const file = resolve(appsFile);
mkdirSync(dirname(file), { recursive: true });
writeFileSync(
  file,
  JSON.stringify({
    apps: [
      {
        slug: "codehost",
        oauth: {
          authorization_url: oauth.authorizationUrl,
          token_url: oauth.tokenUrl,
          revocation_url: oauth.revocationUrl,
          issuer: oauth.issuer,
          client_id: oauth.client.clientId,
          client_secret: oauth.client.clientSecret,
        },
        api_base_url: codehost.baseUrl,
      },
    ],
  }),
);

const platform = spawn("npm", ["run", "platform", "--", ...platformArgs], { stdio: "inherit" });
const stop = async (code: number) => {
  await Promise.allSettled([codehost.close(), oauth.close()]);
  process.exit(code);
};
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => platform.kill(signal));
platform.on("exit", (code) => void stop(code ?? 0));
