// The shop's own sign-in: a cookie with the shopper's email (a real shop has its own auth; Inlay
// needs only to know who is signed in when its session route is called).
import { cookies } from "next/headers";

export const SHOP_COOKIE = "shop_user";

export async function currentShopper(): Promise<{ id: string; email: string } | null> {
  const stored = (await cookies()).get(SHOP_COOKIE)?.value;
  const email = stored && decodeURIComponent(stored);
  return email ? { id: `shopper-${email}`, email } : null;
}
