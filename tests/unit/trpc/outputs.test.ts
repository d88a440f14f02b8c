// Every tRPC procedure declares what it answers with a zod schema from packages/core/src/schemas: tRPC validates the
// answer at run time (stripping what the schema does not name), and the page reads the same contract.
import { describe, expect, it } from "vitest";
import { ZodType } from "zod";
import { appRouter } from "@/server/framework/api/root";
import { Timestamp } from "@inlay/core/schemas/common";

interface ProcedureDef {
  type: "query" | "mutation" | "subscription";
  output?: unknown;
}

// At run time _def.procedures is flat, keyed by the dotted path (its static type is the nested record).
const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: ProcedureDef }>);

describe("tRPC procedure outputs", () => {
  it("walks the whole router", () => {
    // A guard against a walk that finds nothing (and so passes whatever the procedures declare).
    expect(procedures.length).toBeGreaterThan(80);
    expect(procedures.map(([path]) => path)).toContain("runs.detail");
  });

  it("every procedure has a zod output schema", () => {
    const missing = procedures.filter(([, procedure]) => !(procedure._def.output instanceof ZodType)).map(([path]) => path);
    expect(missing).toEqual([]);
  });

  it("reads a platform's timestamps in UTC however it writes them (Z or +00:00), and nothing that is not one", () => {
    for (const written of ["2026-11-29T10:00:00Z", "2026-11-29T10:00:00.123Z", "2026-11-29T10:00:00+00:00", "2026-11-29T10:00:00.123456+00:00"]) {
      expect(Timestamp.safeParse(written).success).toBe(true);
    }
    for (const wrong of ["2026-11-29", "yesterday", "2026-11-29 10:00:00", "1795945715"]) {
      expect(Timestamp.safeParse(wrong).success).toBe(false);
    }
  });
});
