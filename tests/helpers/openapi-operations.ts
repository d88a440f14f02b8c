// The operations of the platform's /openapi.json, for suites that go over every one of them
// (authorization, hostile input), with request bodies that pass validation.
export interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  query: Set<string>;
  body: JsonSchema | undefined;
  /** Each parameter's schema, by name (path and query). */
  paramSchemas: Record<string, JsonSchema>;
  /** The JSON body's top-level properties, resolved. */
  bodyProperties: Record<string, JsonSchema>;
  /** The body is multipart/form-data: a JSON `payload` field and files. */
  multipart: boolean;
  isPublic: boolean;
}

export type JsonSchema = Record<string, any>;

export function deref(schema: JsonSchema | undefined, components: JsonSchema): JsonSchema | undefined {
  let current = schema;
  while (current?.$ref) current = components.schemas[String(current.$ref).split("/").pop()!];
  return current;
}

/** A small value the schema accepts, for required fields only; good enough for most bodies. */
export function sample(schema: JsonSchema | undefined, components: JsonSchema, depth = 0): unknown {
  const resolved = deref(schema, components);
  if (!resolved || depth > 6) return undefined;
  const alternatives = resolved.anyOf ?? resolved.oneOf;
  if (alternatives) return sample(alternatives.find((each: JsonSchema) => deref(each, components)?.type !== "null") ?? alternatives[0], components, depth + 1);
  if (resolved.allOf) return Object.assign({}, ...resolved.allOf.map((each: JsonSchema) => sample(each, components, depth + 1)));
  if (resolved.enum) return resolved.enum[0];
  if (resolved.const !== undefined) return resolved.const;
  const type = Array.isArray(resolved.type) ? resolved.type.find((each: string) => each !== "null") : resolved.type;
  switch (type) {
    case "object": {
      const value: Record<string, unknown> = {};
      for (const name of resolved.required ?? []) value[name] = sample(resolved.properties?.[name], components, depth + 1);
      return value;
    }
    case "array":
      return resolved.minItems ? [sample(resolved.items, components, depth + 1)] : [];
    case "integer":
    case "number":
      return Math.max(resolved.minimum ?? 1, resolved.exclusiveMinimum !== undefined ? resolved.exclusiveMinimum + 1 : 1);
    case "boolean":
      return false;
    case "string":
      if (resolved.format === "date-time") return new Date(Date.now() + 86_400_000).toISOString();
      if (resolved.format === "uri") return "https://example.test/";
      if (resolved.format === "email") return "someone@example.test";
      return "x".repeat(Math.max(1, resolved.minLength ?? 1));
    default:
      return undefined;
  }
}

export function readOperations(document: JsonSchema): Operation[] {
  const result: Operation[] = [];
  for (const [path, item] of Object.entries<JsonSchema>(document.paths)) {
    for (const [method, operation] of Object.entries<JsonSchema>(item)) {
      const parameters: JsonSchema[] = operation.parameters ?? [];
      const bodySchema = operation.requestBody?.content?.["application/json"]?.schema;
      result.push({
        method: method.toUpperCase(),
        path,
        pathParams: parameters.filter((each) => each.in === "path").map((each) => each.name),
        query: new Set(parameters.filter((each) => each.in === "query").map((each) => each.name)),
        body: bodySchema ? (sample(bodySchema, document.components) as JsonSchema) : undefined,
        paramSchemas: Object.fromEntries(parameters.map((each) => [each.name, deref(each.schema, document.components) ?? {}])),
        bodyProperties: Object.fromEntries(
          Object.entries<JsonSchema>(deref(bodySchema, document.components)?.properties ?? {}).map(([name, schema]) => [
            name,
            deref(schema, document.components) ?? {},
          ]),
        ),
        multipart: Boolean(operation.requestBody?.content?.["multipart/form-data"]),
        isPublic: Array.isArray(operation.security) && operation.security.length === 0,
      });
    }
  }
  return result;
}

export const label = (operation: Operation) => `${operation.method} ${operation.path}`;
