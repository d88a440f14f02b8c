import { describe, expect, it } from "vitest";
import { zodSchema } from "ai";
import { z } from "zod";
import { exampleFromJsonSchema, JsonSchemaExampleError } from "@/server/platform/models/json-schema-example";

const jsonSchemaOf = async (schema: z.ZodType) => await zodSchema(schema).jsonSchema;

describe("exampleFromJsonSchema", () => {
  it("fills every type with its simplest valid value", () => {
    expect(
      exampleFromJsonSchema({
        type: "object",
        properties: {
          s: { type: "string" },
          n: { type: "number" },
          i: { type: "integer" },
          b: { type: "boolean" },
          z: { type: "null" },
          e: { enum: ["first", "second"] },
          c: { const: 7 },
          a: { type: "array", items: { type: "integer" } },
          o: { type: "object", properties: { inner: { type: "string" } }, required: ["inner"] },
          any: {},
        },
        required: ["s"],
      }),
    ).toEqual({ s: "sim", n: 0, i: 0, b: true, z: null, e: "first", c: 7, a: [0], o: { inner: "sim" }, any: null });
  });

  it("moves numbers into their bounds", () => {
    expect(exampleFromJsonSchema({ type: "integer", minimum: 5 })).toBe(5);
    expect(exampleFromJsonSchema({ type: "integer", exclusiveMinimum: 5 })).toBe(6);
    expect(exampleFromJsonSchema({ type: "number", maximum: -2.5 })).toBe(-2.5);
    expect(exampleFromJsonSchema({ type: "integer", exclusiveMaximum: -2 })).toBe(-3);
    expect(exampleFromJsonSchema({ type: "number", exclusiveMinimum: 0, exclusiveMaximum: 0.5 })).toBe(0.25);
    expect(exampleFromJsonSchema({ type: "integer", minimum: 3, multipleOf: 4 })).toBe(4);
    expect(exampleFromJsonSchema({ type: "integer", minimum: -10, maximum: 10 })).toBe(0);
  });

  it("honours string lengths and array sizes", () => {
    expect(exampleFromJsonSchema({ type: "string", minLength: 6 })).toBe("simxxx");
    expect(exampleFromJsonSchema({ type: "string", maxLength: 2 })).toBe("si");
    expect(exampleFromJsonSchema({ type: "array", items: { type: "boolean" }, minItems: 3 })).toEqual([true, true, true]);
    expect(exampleFromJsonSchema({ type: "array", items: { type: "boolean" }, maxItems: 0 })).toEqual([]);
    expect(exampleFromJsonSchema({ type: "array", items: [{ type: "string" }, { type: "number" }] })).toEqual(["sim", 0]);
  });

  it("satisfies zod's own checks for formats, nullables, unions, records and tuples", async () => {
    const schema = z.object({
      email: z.email(),
      id: z.uuid(),
      url: z.url(),
      at: z.iso.datetime(),
      day: z.iso.date(),
      count: z.number().int().positive(),
      maybe: z.string().nullable(),
      either: z.union([z.number(), z.string()]),
      scores: z.record(z.string(), z.number()),
      pair: z.tuple([z.string(), z.boolean()]),
      mode: z.literal("fast"),
      choice: z.discriminatedUnion("kind", [
        z.object({ kind: z.literal("a"), a: z.string() }),
        z.object({ kind: z.literal("b"), b: z.number() }),
      ]),
    });
    const value = exampleFromJsonSchema(await jsonSchemaOf(schema));
    expect(schema.safeParse(value).success).toBe(true);
    expect(value).toMatchObject({ count: 1, mode: "fast", pair: ["sim", true], choice: { kind: "a", a: "sim" } });
  });

  it("ends a recursive schema where the recursion is optional", async () => {
    interface Node {
      name: string;
      children: Node[];
      parent?: Node;
      next: Node | null;
    }
    const node: z.ZodType<Node> = z.lazy(() =>
      z.object({ name: z.string(), children: z.array(node), parent: node.optional(), next: node.nullable() }),
    );
    const schema = z.object({ root: node });
    const value = exampleFromJsonSchema(await jsonSchemaOf(schema));
    expect(schema.safeParse(value).success).toBe(true);
    expect(value).toEqual({ root: { name: "sim", children: [], next: null } });
  });

  it("refuses a schema that admits no finite value", () => {
    expect(() =>
      exampleFromJsonSchema({
        $ref: "#/definitions/loop",
        definitions: { loop: { type: "object", properties: { next: { $ref: "#/definitions/loop" } }, required: ["next"] } },
      }),
    ).toThrow(JsonSchemaExampleError);
    expect(() => exampleFromJsonSchema(false)).toThrow(JsonSchemaExampleError);
  });

  it("gives {} when there is no schema at all", () => {
    expect(exampleFromJsonSchema(undefined)).toEqual({});
  });
});
