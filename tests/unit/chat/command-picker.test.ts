import { describe, expect, it } from "vitest";
import { matchCommands, slashQuery } from "@inlay/react/command-picker";
import type { ChatCommand } from "@inlay/core/chat/contract";

const commands: ChatCommand[] = [
  { slug: "summarize", name: "summarize", description: "Summarize the conversation", kind: "command" },
  { slug: "weekly-report", name: "Weekly report", description: "Write the weekly report", kind: "skill" },
  { slug: "triage", name: "Ticket triage", description: "Sort incoming tickets", kind: "skill" },
];

describe("the composer's / picker", () => {
  it.each([
    ["/", ""],
    ["/Sum", "sum"],
    ["/weekly-re", "weekly-re"],
    ["/summarize now", null],
    ["summarize", null],
    [" /summarize", null],
    ["/a\n", null],
  ])("%j is the query %j", (text, query) => {
    expect(slashQuery(text)).toBe(query);
  });

  it("offers every command for a lone slash, slug prefixes first, then names and slugs containing the query", () => {
    expect(matchCommands(commands, "").map((command) => command.slug)).toEqual(["summarize", "weekly-report", "triage"]);
    expect(matchCommands(commands, "t").map((command) => command.slug)).toEqual(["triage", "weekly-report"]);
    expect(matchCommands(commands, "ticket").map((command) => command.slug)).toEqual(["triage"]);
    expect(matchCommands(commands, "nothing")).toEqual([]);
  });
});
