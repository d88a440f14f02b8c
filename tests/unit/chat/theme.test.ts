// The chat theme's CSS variables: a vendor's accent gets legible text on it when they name none.
import { describe, expect, it } from "vitest";
import { readableTextOn, themeStyle } from "@inlay/react/provider";

describe("readableTextOn", () => {
  it("puts white on a dark accent and near-black on a light one", () => {
    expect(readableTextOn("#4f46e5")).toBe("#ffffff");
    expect(readableTextOn("#0f766e")).toBe("#ffffff");
    expect(readableTextOn("#8b8cf8")).toBe("#0e0e13");
    expect(readableTextOn("#fde047")).toBe("#0e0e13");
    expect(readableTextOn("#FFF")).toBe("#0e0e13");
  });

  it("leaves any other CSS colour alone", () => {
    expect(readableTextOn("rebeccapurple")).toBeUndefined();
    expect(readableTextOn("rgb(0 0 0)")).toBeUndefined();
  });
});

describe("themeStyle", () => {
  it("derives the accent text from the accent, unless the vendor set it", () => {
    expect(themeStyle({ accent: "#0f766e" })).toEqual({ "--inlay-chat-accent": "#0f766e", "--inlay-chat-accent-text": "#ffffff" });
    expect(themeStyle({ accent: "#0f766e", accentText: "#eeeeee" })).toMatchObject({ "--inlay-chat-accent-text": "#eeeeee" });
    expect(themeStyle({ radius: "4px" })).toEqual({ "--inlay-chat-radius": "4px" });
  });
});
