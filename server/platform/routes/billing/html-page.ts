// The small HTML pages payments serve to people (not API clients): the manual adapter's payment page,
// the return from a checkout, a hosted receipt. Text only, escaped; never cached or referred.
import type { Context } from "hono";

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

export const htmlContent = (description: string) => ({ description, content: { "text/html": { schema: { type: "string" as const } } } });

/** `body` is trusted markup: escape every value in it with escapeHtml. */
export function htmlPage(c: Context, title: string, body: string, status: 200 | 202 = 200) {
  c.header("cache-control", "no-store");
  c.header("referrer-policy", "no-referrer");
  c.header("content-security-policy", "default-src 'none'; style-src 'unsafe-inline'");
  return c.html(
    `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title>` +
      `<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;line-height:1.5}</style></head>` +
      `<body><h1>${escapeHtml(title)}</h1>${body}</body></html>`,
    status,
  );
}
