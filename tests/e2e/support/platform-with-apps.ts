// The remote pass's platform with a code host to connect: starts the loopback OAuth server and the
// code-host fake (tests/helpers), writes an INLAY_APPS_FILE pointing the built-in `codehost` at them,
// then runs `npm run platform` with the given arguments, allowing the framework's origin as a
// redirect_uri. Usage: tsx platform-with-apps.ts <platform /api/v2 URL> <framework origin> -- <platform args>
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { startCodehostFake } from "../../helpers/app-fakes";
import { startOAuthServer } from "../../helpers/oauth-server";

const [platformUrl, frameworkOrigin, separator, ...platformArgs] = process.argv.slice(2);
if (!platformUrl || !frameworkOrigin || separator !== "--") {
  throw new Error("usage: platform-with-apps.ts <platform /api/v2 URL> <framework origin> -- <platform args>");
}

const oauth = await startOAuthServer();
const codehost = await startCodehostFake(oauth);
oauth.register([`${platformUrl}/apps/oauth/callback`]);

const file = resolve("test-results/e2e-apps.json");
mkdirSync("test-results", { recursive: true });
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

const platform = spawn("npm", ["run", "platform", "--", ...platformArgs], {
  stdio: "inherit",
  env: { ...process.env, INLAY_APPS_FILE: file, INLAY_APP_REDIRECT_ORIGINS: frameworkOrigin },
});
const stop = async (code: number) => {
  await Promise.allSettled([codehost.close(), oauth.close()]);
  process.exit(code);
};
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => platform.kill(signal));
platform.on("exit", (code) => void stop(code ?? 0));
