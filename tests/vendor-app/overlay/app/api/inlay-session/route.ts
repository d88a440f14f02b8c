// Step 2 of docs/integrate.md: the shop's backend mints an Inlay chat session for whoever is signed in
// to the shop, with the embed secret it keeps on the server.
import { createInlayServer, InlaySessionError } from "@inlay/server";
import { currentShopper } from "../../session";

const inlay = createInlayServer({ url: process.env.INLAY_URL!, secret: process.env.INLAY_EMBED_SECRET! });

export async function POST(request: Request) {
  const shopper = await currentShopper();
  if (!shopper) return Response.json({ error: "sign in first" }, { status: 401 });
  try {
    const session = await inlay.sessions.create({
      userId: shopper.id,
      email: shopper.email,
      agent: process.env.INLAY_AGENT,
      origin: request.headers.get("origin") ?? undefined,
    });
    return Response.json(session);
  } catch (error) {
    if (error instanceof InlaySessionError) return Response.json({ error: error.message, code: error.code }, { status: error.status });
    throw error;
  }
}
