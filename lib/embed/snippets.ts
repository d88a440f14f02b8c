// The copy-paste snippets of the Embed page (components/chat/embed-settings.tsx) and
// docs/embedding.md: the script tag, and a vendor backend's token route that calls
// POST /api/embed/sessions with the tenant's embed secret (Node/Express, a Next.js route handler,
// curl). One source, so the page and its test show the same code.

export interface SnippetContext {
  /** Inlay's origin, e.g. https://inlay.example.com. */
  appOrigin: string;
  tenantSlug: string;
  /** A tenant agent's name. */
  agent: string;
}

const js = (value: string) => JSON.stringify(value);

export function scriptTagSnippet({ appOrigin, tenantSlug, agent }: SnippetContext): string {
  return `<script src="${appOrigin}/embed.js" data-agent="${agent}" data-tenant="${tenantSlug}" data-title="${agent}" data-token-url="/api/inlay-token" async></script>`;
}

export function expressSnippet({ appOrigin, agent }: SnippetContext): string {
  return `// POST /api/inlay-token: embed.js asks for a token for the visitor signed in to your site.
// INLAY_EMBED_SECRET is an embed secret from Inlay's Embed page; keep it on the server.
app.post("/api/inlay-token", express.json(), async (req, res) => {
  if (!req.user) return res.status(401).json({ error: "sign in first" }); // your own sign-in
  const inlay = await fetch(${js(`${appOrigin}/api/embed/sessions`)}, {
    method: "POST",
    headers: { authorization: \`Bearer \${process.env.INLAY_EMBED_SECRET}\`, "content-type": "application/json" },
    body: JSON.stringify({
      user_id: String(req.user.id),
      email: req.user.email,
      name: req.user.name,
      agent: ${js(agent)},
      origin: req.body.origin, // the page's origin; Inlay mints only for the allowed sites
    }),
  });
  res.status(inlay.status).json(await inlay.json()); // {token, expires_at, …}
});`;
}

export function nextRouteSnippet({ appOrigin, agent }: SnippetContext): string {
  return `// app/api/inlay-token/route.ts: embed.js asks for a token for the visitor signed in to your site.
// INLAY_EMBED_SECRET is an embed secret from Inlay's Embed page; keep it on the server.
import { getCurrentUser } from "@/lib/auth"; // your own sign-in

export async function POST(request: Request) {
  const user = await getCurrentUser();
  if (!user) return Response.json({ error: "sign in first" }, { status: 401 });
  const { origin } = (await request.json()) as { origin?: string };
  const inlay = await fetch(${js(`${appOrigin}/api/embed/sessions`)}, {
    method: "POST",
    headers: { authorization: \`Bearer \${process.env.INLAY_EMBED_SECRET}\`, "content-type": "application/json" },
    body: JSON.stringify({ user_id: String(user.id), email: user.email, name: user.name, agent: ${js(agent)}, origin }),
    cache: "no-store",
  });
  return Response.json(await inlay.json(), { status: inlay.status }); // {token, expires_at, …}
}`;
}

export function curlSnippet({ appOrigin, agent }: SnippetContext, origin = "https://shop.example.com"): string {
  const body = JSON.stringify({ user_id: "user-123", email: "jane@example.com", name: "Jane Doe", agent, origin });
  return `curl -s -X POST ${appOrigin}/api/embed/sessions \\
  -H "Authorization: Bearer $INLAY_EMBED_SECRET" \\
  -H "Content-Type: application/json" \\
  -d '${body.replace(/'/g, "'\\''")}'`;
}
