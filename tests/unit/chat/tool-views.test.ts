// Tool views (packages/core: the contract and its reading; packages/react: the card): what a tenant
// admin may save, how a call's values are read and shown, and that nothing of a call becomes markup.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { toolViewText, toolViewTitle, toolViewValue } from "@inlay/core/chat/tool-views";
import { ToolViews } from "@inlay/core/schemas/tool-views";
import { toolViewRenderers } from "@inlay/react/tool-views";
import type { ToolRenderProps } from "@inlay/react/tool-renderers";

const orderView = {
  crm__get_order: {
    title: "Order {input.id}",
    fields: [
      { label: "Status", value: "output.status" },
      { label: "First line", value: "output.lines[0].sku" },
      { label: "Missing", value: "output.nothing.here" },
    ],
    allowLabel: "Look it up",
  },
};

describe("the tool views' contract", () => {
  it("takes views by tool name, with paths into input and output", () => {
    expect(ToolViews.parse(orderView)).toEqual(orderView);
    expect(ToolViews.parse({ srv1__lookup: { title: "Lookup" } })).toEqual({ srv1__lookup: { title: "Lookup", fields: [] } });
  });

  it("refuses a path outside the call, an unknown key, a bad tool name and too many views, naming where", () => {
    const issue = (value: unknown) => {
      const result = ToolViews.safeParse(value);
      return result.success ? undefined : { path: result.error.issues[0]!.path.join("."), message: result.error.issues[0]!.message };
    };
    expect(issue({ crm__get_order: { title: "x", fields: [{ label: "A", value: "constructor.prototype" }] } })).toEqual({
      path: "crm__get_order.fields.0.value",
      message: expect.stringContaining("input or output"),
    });
    expect(issue({ crm__get_order: { title: "x", html: "<b>" } })?.path).toBe("crm__get_order");
    expect(issue({ "bad name!": { title: "x" } })?.message).toContain("A tool name is");
    expect(issue({ t: { title: " " } })?.message).toBe("Give the view a title.");
    expect(issue(Object.fromEntries(Array.from({ length: 51 }, (_, index) => [`tool_${index}`, { title: "x" }])))?.message).toBe("At most 50 tool views.");
  });
});

describe("reading a call", () => {
  const call = { input: { id: "A-7" }, output: { status: "shipped", lines: [{ sku: "SKU-1" }], total: 42.5, meta: { a: 1 } } };

  it("follows keys and indexes, and finds nothing off the call's own values", () => {
    expect(toolViewValue(call, "input.id")).toBe("A-7");
    expect(toolViewValue(call, "output.lines[0].sku")).toBe("SKU-1");
    expect(toolViewValue(call, "output.lines[3].sku")).toBeUndefined();
    expect(toolViewValue(call, "output.status.length")).toBeUndefined();
    expect(toolViewValue({ input: {} }, "input.constructor")).toBeUndefined();
  });

  it("shows strings as they are and other values as short JSON", () => {
    expect(toolViewText("shipped")).toBe("shipped");
    expect(toolViewText(42.5)).toBe("42.5");
    expect(toolViewText({ a: 1 })).toBe('{"a":1}');
    expect(toolViewText(undefined)).toBe("");
    expect(toolViewText("x".repeat(300))).toHaveLength(200);
  });

  it("fills the title's placeholders and leaves what is not a path", () => {
    expect(toolViewTitle({ title: "Order {input.id} {nope}", fields: [] }, call)).toBe("Order A-7 {nope}");
  });
});

describe("the tool view card", () => {
  const Card = toolViewRenderers(orderView).crm__get_order!;
  const render = (props: Partial<ToolRenderProps>) =>
    renderToStaticMarkup(createElement(Card, { toolName: "crm__get_order", input: { id: "A-7" }, state: "running", ...props }));

  it("shows the title and the fields read from the call", () => {
    const html = render({ state: "output", output: { status: "shipped", lines: [{ sku: "SKU-1" }] } });
    expect(html).toContain("Order A-7");
    expect(html).toContain("<dt class=\"ic-label\">Status</dt><dd>shipped</dd>");
    expect(html).toContain("<dd>SKU-1</dd>");
    expect(html).toContain("<dt class=\"ic-label\">Missing</dt><dd>—</dd>");
    expect(html).not.toContain("<button");
  });

  it("while the call waits, has the view's allow label and Deny; once answered, none", () => {
    const approval = { answered: false, allow: async () => {}, deny: async () => {} };
    const waiting = render({ state: "awaiting-approval", approval });
    expect(waiting).toContain(">Look it up</button>");
    expect(waiting).toContain(">Deny</button>");
    expect(render({ state: "awaiting-approval", approval: { ...approval, answered: true } })).not.toContain("<button");
  });

  it("escapes what the call holds", () => {
    const html = render({ input: { id: "<img src=x onerror=alert(1)>" }, state: "output", output: { status: "<script>alert(1)</script>" } });
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;script&gt;");
  });
});
