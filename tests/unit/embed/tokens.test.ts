// Embed tokens: signed, short-lived, bound to tenant, user and the host page's origin.
import { SignJWT } from "jose";
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { EMBED_TOKEN_MAX_SECONDS, EmbedTokenError, normalizeOrigin, signEmbedToken, verifyEmbedToken } from "@/server/framework/embed/tokens";

const secret = "a-test-secret-that-is-long-enough-for-hs256";
const claims = { tenantId: "tenant-1", userId: "user-1", origin: "https://shop.example.test" };

async function reason(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "accepted";
  } catch (error) {
    if (error instanceof EmbedTokenError) return error.reason;
    throw error;
  }
}

describe("embed tokens", () => {
  it("round-trips tenant, user, origin and agent", async () => {
    const now = new Date("2026-11-22T12:00:00Z");
    const { token, expiresAt } = await signEmbedToken({ ...claims, agent: "Support" }, { secret, now });
    expect(expiresAt.toISOString()).toBe("2026-11-22T12:10:00.000Z");
    const verified = await verifyEmbedToken(token, { origin: "https://shop.example.test", agent: "Support" }, { secret, now });
    expect(verified).toEqual({ ...claims, agent: "Support", expiresAt });
  });

  it("lives at most ten minutes, whatever is asked", async () => {
    const now = new Date("2026-11-22T12:00:00Z");
    const { expiresAt } = await signEmbedToken({ ...claims, ttlSeconds: 3600 }, { secret, now });
    expect(expiresAt.getTime() - now.getTime()).toBe(EMBED_TOKEN_MAX_SECONDS * 1000);
    const short = await signEmbedToken({ ...claims, ttlSeconds: 60 }, { secret, now });
    expect(await reason(verifyEmbedToken(short.token, {}, { secret, now: new Date(now.getTime() + 59_000) }))).toBe("accepted");
    expect(await reason(verifyEmbedToken(short.token, {}, { secret, now: new Date(now.getTime() + 61_000) }))).toBe("expired");
  });

  it("is refused for another origin or another agent", async () => {
    const { token } = await signEmbedToken({ ...claims, agent: "Support" }, { secret });
    expect(await reason(verifyEmbedToken(token, { origin: "https://evil.example.test" }, { secret }))).toBe("origin");
    expect(await reason(verifyEmbedToken(token, { origin: "http://shop.example.test" }, { secret }))).toBe("origin");
    expect(await reason(verifyEmbedToken(token, { agent: "Billing" }, { secret }))).toBe("agent");
    expect(await reason(verifyEmbedToken(token, { origin: "https://shop.example.test/some/page" }, { secret }))).toBe("accepted");
  });

  it("is refused when signed with another secret, tampered with, or not a token", async () => {
    const { token } = await signEmbedToken(claims, { secret });
    expect(await reason(verifyEmbedToken(token, {}, { secret: `${secret}-other` }))).toBe("invalid");
    const [header, payload, signature] = token.split(".");
    const forged = JSON.parse(Buffer.from(payload!, "base64url").toString());
    forged.tid = "tenant-2";
    const tampered = [header, Buffer.from(JSON.stringify(forged)).toString("base64url"), signature].join(".");
    expect(await reason(verifyEmbedToken(tampered, {}, { secret }))).toBe("invalid");
    expect(await reason(verifyEmbedToken("not-a-token", {}, { secret }))).toBe("invalid");
  });

  it("refuses a correctly signed token that claims a longer life than the maximum", async () => {
    const key = createHash("sha256").update(secret).digest();
    const now = Math.floor(Date.now() / 1000);
    const long = await new SignJWT({ tid: "tenant-1", org: "https://shop.example.test" })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer("inlay")
      .setAudience("inlay-embed")
      .setSubject("user-1")
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .sign(key);
    expect(await reason(verifyEmbedToken(long, {}, { secret }))).toBe("invalid");
  });

  it("refuses origins that are not http(s)", async () => {
    expect(normalizeOrigin("javascript:alert(1)")).toBeUndefined();
    expect(normalizeOrigin("https://a.example.test:8443/path?q")).toBe("https://a.example.test:8443");
    await expect(signEmbedToken({ ...claims, origin: "file:///etc" }, { secret })).rejects.toThrow(TypeError);
  });
});
