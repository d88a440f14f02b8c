// Admin → Apps: what an operator sets for an app that is not set up.
import { describe, expect, it } from "vitest";
import { setupHint } from "@/lib/connections/app-setup";

describe("setupHint", () => {
  it("names each built-in app's env variables, and the apps file for a vendor app", () => {
    expect(setupHint("codehost")).toContain("INLAY_APP_CODEHOST_CLIENT_ID and INLAY_APP_CODEHOST_CLIENT_SECRET");
    expect(setupHint("chat")).toContain("INLAY_APP_CHAT_CLIENT_ID and INLAY_APP_CHAT_CLIENT_SECRET");
    expect(setupHint("mail")).toContain("INLAY_APP_MAIL_CLIENT_ID and INLAY_APP_MAIL_CLIENT_SECRET");
    expect(setupHint("tracker")).toContain("INLAY_APPS_FILE");
  });
});
