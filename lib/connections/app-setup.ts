// What an operator configures so an app can be connected (Admin → Apps shows it next to an app that
// is not set up); the sections of docs/connections.md that explain it.
export const CONNECT_A_REAL_APP_DOC = 'docs/connections.md, "Connect a real app"';
export const TRY_LOCALLY_DOC = 'docs/connections.md, "Try connections locally"';

const BUILTIN_CREDENTIALS: Record<string, string> = {
  codehost: "INLAY_APP_CODEHOST",
  chat: "INLAY_APP_CHAT",
  mail: "INLAY_APP_MAIL",
};

/** The settings an OAuth app lacks: the built-in apps' env variables, a vendor app's entry in INLAY_APPS_FILE. */
export function setupHint(slug: string): string {
  const prefix = BUILTIN_CREDENTIALS[slug];
  if (prefix) return `Set ${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET (an OAuth client registered with the app) and restart.`;
  return `Give it client_id and client_secret in INLAY_APPS_FILE and restart.`;
}
