// The development demo app: a notes service Inlay serves itself (server/framework/demo-app, routes under
// /demo-app) so connections work right after `npm run dev`. The catalogue holds it only when the
// embedding framework hands over its settings (development, embedded platform; never production).
import { createHmac } from "node:crypto";
import type { DemoAppSettings } from "../../platform-config";
import type { AppDefinition } from "../definition";

export const DEMO_APP_SLUG = "demo-notes";
export const DEMO_APP_CLIENT_ID = "inlay-demo-notes";


/** The client secret, derived (never stored): the demo app's token endpoint and the platform compute the same. */
export const demoAppClientSecret = (installationSecret: string) =>
  createHmac("sha256", installationSecret).update("inlay demo app client secret").digest("base64url");

export function demoNotesApp(settings: DemoAppSettings): AppDefinition {
  const base = settings.baseUrl.replace(/\/+$/, "");
  return {
    slug: DEMO_APP_SLUG,
    name: "Demo notes",
    description: "A small notes app Inlay serves in development, to try connections without configuring anything.",
    auth: "oauth2",
    oauth: {
      authorizationUrl: `${base}/oauth/authorize`,
      tokenUrl: `${base}/oauth/token`,
      revocationUrl: `${base}/oauth/revoke`,
      scopes: ["notes"],
      clientId: DEMO_APP_CLIENT_ID,
      clientSecret: settings.clientSecret,
    },
    apiBaseUrl: `${base}/api`,
    identity: { path: "/me", labelField: "email" },
    tools: [
      {
        name: "list_notes",
        description: "List the connected person's notes, newest first.",
        method: "GET",
        path: "/notes",
        input: { type: "object", properties: {} },
      },
      {
        name: "create_note",
        description: "Add a note (plain text, up to 2,000 characters) to the connected person's notes.",
        method: "POST",
        path: "/notes",
        input: { type: "object", properties: { text: { type: "string", minLength: 1, maxLength: 2000 } }, required: ["text"] },
      },
    ],
    triggers: [],
    source: "builtin",
    // Served by this installation on its own (loopback) origin in development.
    local: true,
  };
}
