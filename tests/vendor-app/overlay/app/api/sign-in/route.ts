import { NextResponse } from "next/server";
import { SHOP_COOKIE } from "../../session";

export async function POST(request: Request) {
  const email = String((await request.formData()).get("email") ?? "").trim();
  const response = NextResponse.redirect(new URL("/", request.url), 303);
  if (email) response.cookies.set(SHOP_COOKIE, email, { httpOnly: true, sameSite: "lax", path: "/" });
  return response;
}
