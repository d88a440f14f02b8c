import { SHOP_COOKIE } from "../../session";

export async function POST(request: Request) {
  const email = String((await request.formData()).get("email") ?? "").trim();
  // A relative Location: back to the host the browser used (request.url may name another).
  const headers = new Headers({ location: "/" });
  if (email) headers.append("set-cookie", `${SHOP_COOKIE}=${encodeURIComponent(email)}; Path=/; HttpOnly; SameSite=Lax`);
  return new Response(null, { status: 303, headers });
}
