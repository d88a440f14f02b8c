// The embed page's HTML (server/framework/embed/page.ts): the query values it keeps and how, and that it loads
// the widget bundle alone (no Next runtime), with nothing from the URL able to break out of an attribute.
import { mkdtemp, mkdir, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { embedPageHtml, embedQuery } from "@/server/framework/embed/page";
import { widgetAssets, widgetManifestPath } from "@/server/framework/embed/widget-assets";
import { expectWidgetPage, widgetAssetsOf } from "../../helpers/widget-page";

const assets = widgetAssetsOf("embed-main");
const query = (search: string, agent = "Support") => embedQuery(agent, new URLSearchParams(search));

describe("the embed page's query", () => {
  it("normalises the host to an origin and refuses what is not http(s)", () => {
    expect(query("host=https%3A%2F%2Fshop.acme.test%2Fcart%3Fx%3D1").host).toBe("https://shop.acme.test");
    expect(query("host=javascript%3Aalert(1)").host).toBeUndefined();
    expect(query("host=not a url").host).toBeUndefined();
    expect(query("").host).toBeUndefined();
  });

  it("keeps a title of at most 80 characters and only a hex accent", () => {
    expect(query(`title=${"x".repeat(100)}`).title).toHaveLength(80);
    expect(query("accent=%230f766e").accent).toBe("#0f766e");
    expect(query("accent=red").accent).toBeUndefined();
    expect(query("accent=%23fff%3B%20background%3Aurl(x)").accent).toBeUndefined();
  });

  it("counts a repeated value as absent and decodes the agent's path segment", () => {
    expect(query("host=https%3A%2F%2Fa.test&host=https%3A%2F%2Fb.test").host).toBeUndefined();
    expect(query("", "Acme%20assistant").agent).toBe("Acme assistant");
    expect(query("", "100%").agent).toBe("100%");
  });
});

describe("the embed page's HTML", () => {
  it("loads the widget's module script, its static chunk and stylesheet, and no Next runtime", () => {
    const html = embedPageHtml(query("host=https%3A%2F%2Fshop.acme.test&title=Help&accent=%230f766e"), assets)!;
    expectWidgetPage(html, assets);
    expect(html).toContain('<div id="inlay-embed" data-agent="Support" data-host="https://shop.acme.test" data-title="Help" data-accent="#0f766e">');
    expect(html).toContain(">Connecting…<");
  });

  it("escapes the agent and the title", () => {
    const html = embedPageHtml(query(`host=https%3A%2F%2Fshop.acme.test&title=${encodeURIComponent(`"><script>alert(1)</script>`)}`, encodeURIComponent("A&B <i>")), assets)!;
    expect(html).toContain('data-agent="A&amp;B &lt;i&gt;"');
    expect(html).toContain('data-title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect([...html.matchAll(/<script\b/g)]).toHaveLength(1);
  });

  it("hands the tenant's tool views to the widget in an escaped attribute, and none when it has none", () => {
    const views = { crm__get_order: { title: `Order "><script>alert(1)</script>`, fields: [] } };
    const html = embedPageHtml(query("host=https%3A%2F%2Fshop.acme.test"), assets, true, views)!;
    const attribute = /data-tool-views="([^"]*)"/.exec(html)?.[1];
    expect(attribute).toBeDefined();
    expect(JSON.parse(attribute!.replaceAll("&quot;", '"').replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&"))).toEqual(views);
    expect([...html.matchAll(/<script\b/g)]).toHaveLength(1);
    expect(embedPageHtml(query("host=https%3A%2F%2Fshop.acme.test"), assets, true, {})).not.toContain("data-tool-views");
  });

  it("without a host says what the page is for, with no script", () => {
    const html = embedPageHtml(query("tenant=acme"), assets)!;
    expect(html).toContain("This page is opened by the embed script (public/embed.js).");
    expect(html).not.toContain("<script");
    expect(html).not.toContain("inlay-embed");
  });

  it("for a host the tenant does not allow, says so and what to do, escaped and with no script", () => {
    const html = embedPageHtml(query(`host=${encodeURIComponent("https://evil.test")}`), assets, false)!;
    expect(html).toContain("This chat is not available on this site.");
    expect(html).toContain("https://evil.test is not one of the workspace's allowed sites");
    expect(html).toContain("Admin → Embed");
    expect(html).not.toContain("<script");
    expect(html).not.toContain("inlay-embed");
  });

  it("is not written when the widget has not been built", () => {
    expect(embedPageHtml(query("host=https%3A%2F%2Fshop.acme.test"), undefined)).toBeUndefined();
  });
});

describe("the widget's manifest", () => {
  let root: string;
  afterAll(() => rm(root, { recursive: true, force: true }));

  it("is read from public/embed-app, again once rebuilt, and missing means not built", async () => {
    root = await mkdtemp(path.join(tmpdir(), "inlay-widget-"));
    expect(await widgetAssets("embed", root)).toBeUndefined();
    const file = widgetManifestPath(root);
    await mkdir(path.dirname(file), { recursive: true });
    const chat = { ...assets, script: "/embed-app/chat-page-main-FFFF.js", stylesheet: "/embed-app/chat-page-main-GGGG.css" };
    await writeFile(file, JSON.stringify({ embed: assets, chat }));
    expect(await widgetAssets("embed", root)).toEqual(assets);
    expect(await widgetAssets("chat", root)).toEqual(chat);
    await writeFile(file, JSON.stringify({ embed: { ...assets, script: "/embed-app/embed-main-EEEE.js" }, chat }));
    await utimes(file, new Date(), new Date(Date.now() + 5_000)); // a later build, whatever the clock's grain
    expect((await widgetAssets("embed", root))?.script).toBe("/embed-app/embed-main-EEEE.js");
  });
});
