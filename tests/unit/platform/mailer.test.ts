// A message's secrets reach its recipient whole, but neither the platform_mail record nor the log.
import { afterEach, describe, expect, it, vi } from "vitest";
import { logger } from "@/lib/logger";
import type { PrismaClient } from "@/server/generated/prisma/client";
import { maskSecrets, recordingMailer } from "@/server/platform/services/messaging/mailer";

afterEach(() => vi.restoreAllMocks());

const token = "Zq3xK9_tokenValue-that-must-not-leak";
const link = `https://agents.example.test/api/v2/verify/confirm?token=${token}`;

describe("the recording mailer", () => {
  it("records and logs the message with its secrets masked", async () => {
    const stored: { text: string }[] = [];
    const prisma = { platformMail: { create: async ({ data }: { data: { text: string } }) => stored.push(data) } } as unknown as PrismaClient;
    const info = vi.spyOn(logger, "info").mockImplementation(() => undefined);

    await recordingMailer.send(prisma, {
      accountId: 1,
      to: "a@example.test",
      subject: "Verify",
      text: `Follow ${link}`,
      kind: "verify_email",
      links: [link],
      secrets: [token],
    });

    expect(stored).toHaveLength(1);
    expect(stored[0]!.text).toBe(`Follow https://agents.example.test/api/v2/verify/confirm?token=Zq3xK9…`);
    const logged = JSON.stringify(info.mock.calls);
    expect(logged).toContain("token=Zq3xK9…");
    expect(logged).not.toContain(token);
  });

  it("masks every occurrence of every secret", () => {
    expect(maskSecrets("a SECRET1 b SECRET1 c OTHER22", ["SECRET1", "OTHER22"])).toBe("a SECRET… b SECRET… c OTHER2…");
    expect(maskSecrets("nothing here")).toBe("nothing here");
  });
});
