// The full chat page's HTML (server/framework/chat/page.ts): the query it keeps, that it loads the widget's chat
// entry alone (no Next runtime), and that nothing from the URL or the account breaks out of the markup.
import { describe, expect, it } from "vitest";
import { chatPageHtml, chatPageQuery } from "@/server/framework/chat/page";
import { expectWidgetPage, widgetAssetsOf } from "../../helpers/widget-page";

const assets = widgetAssetsOf("chat-page-main");
const viewer = { email: "member@acme.test", workspace: "Acme", storageScope: "scope-of-max" };
const query = (search: string) => chatPageQuery(new URLSearchParams(search));

describe("the chat page's query", () => {
  it("keeps a trimmed agent of at most 255 characters, and a known mode only", () => {
    expect(query("agent=%20Support%20&mode=approval")).toEqual({ agent: "Support", mode: "approval" });
    expect(query(`agent=${"x".repeat(300)}`).agent).toHaveLength(255);
    expect(query("agent=Support&mode=yolo").mode).toBeUndefined();
  });

  it("names no agent when the URL has none or only blanks", () => {
    expect(query("").agent).toBeUndefined();
    expect(query("agent=%20%20").agent).toBeUndefined();
  });
});

describe("the chat page's HTML", () => {
  it("loads the chat entry, its static chunk and stylesheet, and no Next runtime", () => {
    const html = chatPageHtml("Support", "plan", viewer, assets)!;
    expectWidgetPage(html, assets);
    expect(html).toContain('<div id="inlay-chat" data-agent="Support" data-mode="plan" data-scope="scope-of-max"');
    expect(html).toContain('data-testid="signed-in-as">member@acme.test<');
    expect(html).toContain(">Acme<");
    expect(html).toContain("data-sign-out");
  });

  it("names the agent for the header when the URL has its id", () => {
    const id = "0b7c4f5e-1a2b-4c3d-8e9f-0a1b2c3d4e5f";
    expect(chatPageHtml(id, undefined, viewer, assets, "Acme <assistant>")).toContain(`data-agent="${id}" data-title="Acme &lt;assistant&gt;"`);
  });

  it("leaves the mode out when none is given", () => {
    expect(chatPageHtml("Support", undefined, viewer, assets)).not.toContain("data-mode");
  });

  it("escapes the agent, the email and the workspace", () => {
    const html = chatPageHtml(`"><script>alert(1)</script>`, undefined, { email: "<b>@x.test", workspace: "A&B", storageScope: "s" }, assets)!;
    expect(html).toContain('data-agent="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(html).toContain("&lt;b&gt;@x.test");
    expect(html).toContain(">A&amp;B<");
    expect([...html.matchAll(/<script\b/g)]).toHaveLength(1);
  });

  it("is not written when the widget has not been built", () => {
    expect(chatPageHtml("Support", undefined, viewer, undefined)).toBeUndefined();
  });
});
