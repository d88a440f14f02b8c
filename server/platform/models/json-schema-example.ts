// A deterministic example value for a JSON Schema: what the sim model answers when a call asks for
// structured output. It aims at the schemas zod (and the AI SDK's zodSchema) produce, draft-07 and
// 2020-12 alike; it is not a general schema solver (a `pattern` without a known `format` is not honoured).

import { type JSONSchema7, type JSONSchema7Definition, type JSONValue } from "@ai-sdk/provider";

/** The string used when a schema asks for nothing more specific. */
export const EXAMPLE_STRING = "sim";

// Values that pass both the JSON Schema formats and zod's own checks for them (z.email(), z.uuid()…).
const FORMAT_EXAMPLES: Record<string, string> = {
  email: "sim@example.com",
  "idn-email": "sim@example.com",
  uri: "https://example.com",
  url: "https://example.com",
  "uri-reference": "https://example.com",
  iri: "https://example.com",
  hostname: "example.com",
  "idn-hostname": "example.com",
  uuid: "00000000-0000-4000-8000-000000000000",
  "date-time": "2024-01-01T00:00:00Z",
  date: "2024-01-01",
  time: "00:00:00",
  duration: "P1D",
  ipv4: "127.0.0.1",
  ipv6: "::1",
};

// A cyclic schema (z.lazy) is expanded this deep at most; optional branches stop earlier.
const MAX_DEPTH = 32;

export class JsonSchemaExampleError extends Error {
  override name = "JsonSchemaExampleError";
}

/**
 * A value valid against `schema`, always the same for the same schema: strings are "sim" (or an example
 * of their format), numbers 0 moved into their bounds, booleans true, enums and consts their first value,
 * arrays one item (or minItems), objects every declared property (required ones always; optional ones
 * unless they would recurse into a cycle), anyOf/oneOf their first branch that does not recurse, allOf
 * its branches merged.
 */
export function exampleFromJsonSchema(schema: JSONSchema7Definition | undefined): JSONValue {
  if (schema === undefined) return {};
  return example(schema, { root: schema, refs: [], depth: 0 });
}

interface Walk {
  root: JSONSchema7Definition;
  /** The $refs being expanded on the current path, to spot cycles. */
  refs: string[];
  depth: number;
}

function example(definition: JSONSchema7Definition, walk: Walk): JSONValue {
  if (walk.depth > MAX_DEPTH) {
    throw new JsonSchemaExampleError("the schema only admits infinitely deep values");
  }
  // `true` admits anything; `false` admits nothing, and a caller can only have asked for it by mistake.
  if (definition === true) return null;
  if (definition === false) throw new JsonSchemaExampleError("the schema `false` admits no value");
  const schema = definition;
  const deeper: Walk = { ...walk, depth: walk.depth + 1 };

  if (schema.$ref !== undefined) {
    const target = resolveRef(walk.root, schema.$ref);
    return example(target, { ...deeper, refs: [...walk.refs, schema.$ref] });
  }
  if (schema.const !== undefined) return schema.const as JSONValue;
  if (schema.enum !== undefined && schema.enum.length > 0) return schema.enum[0] as JSONValue;
  if (schema.default !== undefined) return schema.default as JSONValue;
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches !== undefined && branches.length > 0) {
    // The first branch, unless it recurses and another does not (a required, nullable recursive field).
    const branch = branches.find((candidate) => !entersCycle(candidate, walk)) ?? branches[0]!;
    return example(branch, deeper);
  }
  if (schema.allOf !== undefined && schema.allOf.length > 0) return exampleOfAll(schema.allOf, deeper);

  switch (pickType(schema)) {
    case "string":
      return exampleString(schema);
    case "integer":
      return exampleNumber(schema, true);
    case "number":
      return exampleNumber(schema, false);
    case "boolean":
      return true;
    case "null":
      return null;
    case "array":
      return exampleArray(schema, deeper);
    case "object":
      return exampleObject(schema, deeper);
    default:
      // No type and nothing else to go on ({}, z.unknown()): null is valid there.
      return null;
  }
}

function pickType(schema: JSONSchema7): string | undefined {
  if (Array.isArray(schema.type)) {
    // ["string", "null"] is how zod writes .nullable(): the non-null type says more.
    return schema.type.find((type) => type !== "null") ?? schema.type[0];
  }
  if (schema.type !== undefined) return schema.type;
  if (schema.properties !== undefined || schema.required !== undefined) return "object";
  if (schema.items !== undefined) return "array";
  return undefined;
}

function exampleString(schema: JSONSchema7): string {
  let value = (schema.format !== undefined && FORMAT_EXAMPLES[schema.format]) || EXAMPLE_STRING;
  if (schema.minLength !== undefined && value.length < schema.minLength) {
    value = value.padEnd(schema.minLength, "x");
  }
  if (schema.maxLength !== undefined && value.length > schema.maxLength) {
    value = value.slice(0, schema.maxLength);
  }
  return value;
}

function exampleNumber(schema: JSONSchema7, integer: boolean): number {
  // Start from 0 and move into the bounds: zod's int() sets ±MAX_SAFE_INTEGER bounds, and "the minimum"
  // there would be a useless -9007199254740991.
  const lower = tighter(schema.minimum, schema.exclusiveMinimum, Math.max);
  const upper = tighter(schema.maximum, schema.exclusiveMaximum, Math.min);
  const aboveLower = (value: number) => !lower || (lower.open ? value > lower.value : value >= lower.value);
  const belowUpper = (value: number) => !upper || (upper.open ? value < upper.value : value <= upper.value);
  let value = 0;
  if (lower && !aboveLower(value)) {
    if (integer) value = lower.open ? Math.floor(lower.value) + 1 : Math.ceil(lower.value);
    else value = lower.open ? lower.value + 1 : lower.value;
  }
  if (upper && !belowUpper(value)) {
    if (integer) value = upper.open ? Math.ceil(upper.value) - 1 : Math.floor(upper.value);
    else value = upper.open ? upper.value - 1 : upper.value;
  }
  // A narrow range such as (0, 0.5): its middle.
  if (!integer && lower && upper && !(aboveLower(value) && belowUpper(value))) value = (lower.value + upper.value) / 2;
  if (schema.multipleOf !== undefined && schema.multipleOf > 0 && value % schema.multipleOf !== 0) {
    value = Math.ceil(value / schema.multipleOf) * schema.multipleOf;
  }
  return value;
}

/** The binding bound of an inclusive and an exclusive one (draft-07 numbers; `pick` is max or min). */
function tighter(
  inclusive: number | undefined,
  exclusive: number | undefined,
  pick: (a: number, b: number) => number,
): { value: number; open: boolean } | undefined {
  if (exclusive === undefined) return inclusive === undefined ? undefined : { value: inclusive, open: false };
  if (inclusive === undefined) return { value: exclusive, open: true };
  const value = pick(inclusive, exclusive);
  return { value, open: value === exclusive };
}

function exampleArray(schema: JSONSchema7, walk: Walk): JSONValue[] {
  // Tuples: one value per position (draft-07 `items: [...]`, 2020-12 `prefixItems`).
  const prefix = Array.isArray(schema.items)
    ? schema.items
    : ((schema as { prefixItems?: JSONSchema7Definition[] }).prefixItems ?? undefined);
  if (prefix !== undefined) return prefix.map((item) => example(item, walk));

  const item = schema.items as JSONSchema7Definition | undefined;
  const min = schema.minItems ?? 0;
  const max = schema.maxItems ?? Number.POSITIVE_INFINITY;
  let count = Math.min(Math.max(1, min), max);
  // An optional item that would re-enter a $ref being expanded ends the recursion with [].
  if (min === 0 && item !== undefined && entersCycle(item, walk)) count = 0;
  if (count === 0) return [];
  const value = item === undefined ? EXAMPLE_STRING : example(item, walk);
  return Array.from({ length: count }, () => value);
}

function exampleObject(schema: JSONSchema7, walk: Walk): { [key: string]: JSONValue } {
  const required = new Set(schema.required ?? []);
  const result: { [key: string]: JSONValue } = {};
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    if (!required.has(key) && entersCycle(property, walk)) continue;
    result[key] = example(property, walk);
  }
  // Required names without a property schema still have to be present.
  for (const key of required) {
    if (!(key in result)) result[key] = exampleForAdditional(schema, walk);
  }
  const minProperties = schema.minProperties ?? 0;
  for (let index = 1; Object.keys(result).length < minProperties; index += 1) {
    result[`key${index}`] = exampleForAdditional(schema, walk);
  }
  return result;
}

function exampleForAdditional(schema: JSONSchema7, walk: Walk): JSONValue {
  const additional = schema.additionalProperties;
  return additional === undefined || typeof additional === "boolean" ? EXAMPLE_STRING : example(additional, walk);
}

function exampleOfAll(branches: JSONSchema7Definition[], walk: Walk): JSONValue {
  const values = branches.map((branch) => example(branch, walk));
  const isObject = (value: JSONValue): value is { [key: string]: JSONValue } =>
    typeof value === "object" && value !== null && !Array.isArray(value);
  if (values.every(isObject)) return Object.assign({}, ...values) as { [key: string]: JSONValue };
  return values[0] ?? null;
}

/** Whether the value would start with a $ref already being expanded (zod wraps optional ones in allOf). */
function entersCycle(definition: JSONSchema7Definition, walk: Walk): boolean {
  if (typeof definition !== "object") return false;
  if (definition.$ref !== undefined) return walk.refs.includes(definition.$ref);
  const wrapped = [...(definition.allOf ?? []), ...(definition.anyOf ?? []).slice(0, 1), ...(definition.oneOf ?? []).slice(0, 1)];
  return wrapped.some((inner) => entersCycle(inner, walk));
}

/** Local references only (`#`, `#/$defs/x`, `#/definitions/x`): zod never writes remote ones. */
function resolveRef(root: JSONSchema7Definition, ref: string): JSONSchema7Definition {
  if (ref !== "#" && !ref.startsWith("#/")) {
    throw new JsonSchemaExampleError(`unsupported $ref ${ref}: only local references are resolved`);
  }
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/").filter(Boolean)) {
    const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    node = typeof node === "object" && node !== null ? (node as Record<string, unknown>)[key] : undefined;
  }
  if (typeof node !== "boolean" && (typeof node !== "object" || node === null)) {
    throw new JsonSchemaExampleError(`$ref ${ref} points at nothing`);
  }
  return node as JSONSchema7Definition;
}
