// Tools from an OpenAPI 3 document: one per operation, named after its operationId (or method and
// path), described by its summary, its input the operation's path and query parameters plus the
// properties of its JSON request body. Only local references (#/components/...) are followed.
import type { AppToolDefinition, JsonSchemaObject } from "./definition";

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** Follows a local $ref (a few hops at most, so a cycle cannot hang the loader). */
function resolve(document: Json, value: unknown, depth = 0): unknown {
  if (!isObject(value) || typeof value.$ref !== "string" || depth > 8) return value;
  const ref = value.$ref;
  if (!ref.startsWith("#/")) return {};
  let node: unknown = document;
  for (const part of ref.slice(2).split("/")) {
    node = isObject(node) ? node[part.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined;
  }
  return resolve(document, node, depth + 1);
}

/** Inlines local $refs inside a schema, to a bounded depth (deeper ones become open objects). */
function inline(document: Json, schema: unknown, depth = 0): unknown {
  const resolved = resolve(document, schema);
  if (depth > 6) return isObject(resolved) ? { type: resolved.type ?? "object" } : resolved;
  if (Array.isArray(resolved)) return resolved.map((item) => inline(document, item, depth + 1));
  if (!isObject(resolved)) return resolved;
  return Object.fromEntries(Object.entries(resolved).map(([key, value]) => [key, inline(document, value, depth + 1)]));
}

export const snakeCase = (text: string) =>
  text
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .toLowerCase()
    .slice(0, 64) || "operation";

export function toolsFromOpenApi(document: Json, options: { only?: string[] } = {}): AppToolDefinition[] {
  const tools: AppToolDefinition[] = [];
  const paths = isObject(document.paths) ? document.paths : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = resolve(document, rawItem);
    if (!isObject(item)) continue;
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const operationId = typeof operation.operationId === "string" ? operation.operationId : undefined;
      if (options.only && (!operationId || !options.only.includes(operationId))) continue;
      const properties: Record<string, unknown> = {};
      const required = new Set<string>();
      const query: string[] = [];
      const parameters = [...shared, ...(Array.isArray(operation.parameters) ? operation.parameters : [])];
      for (const raw of parameters) {
        const parameter = resolve(document, raw);
        if (!isObject(parameter) || typeof parameter.name !== "string") continue;
        if (parameter.in !== "path" && parameter.in !== "query") continue;
        const schema = isObject(parameter.schema) ? (inline(document, parameter.schema) as Json) : { type: "string" };
        properties[parameter.name] = typeof parameter.description === "string" ? { ...schema, description: parameter.description } : schema;
        if (parameter.required === true || parameter.in === "path") required.add(parameter.name);
        if (parameter.in === "query") query.push(parameter.name);
      }
      const body = resolve(document, operation.requestBody);
      const bodySchema = isObject(body) && isObject(body.content) ? resolve(document, (body.content["application/json"] as Json | undefined)?.schema) : undefined;
      if (isObject(bodySchema)) {
        const inlined = inline(document, bodySchema) as Json;
        if (isObject(inlined.properties)) {
          Object.assign(properties, inlined.properties);
          if (Array.isArray(inlined.required)) for (const name of inlined.required) if (typeof name === "string") required.add(name);
        } else {
          properties.body = inlined;
          if (isObject(body) && body.required === true) required.add("body");
        }
      }
      const input: JsonSchemaObject = { type: "object", properties, ...(required.size > 0 ? { required: [...required] } : {}) };
      const upper = method.toUpperCase() as AppToolDefinition["method"];
      const described = [operation.summary, operation.description].find((text): text is string => typeof text === "string" && text.trim() !== "");
      tools.push({
        name: snakeCase(operationId ?? `${method}_${path}`),
        description: described?.trim() ?? `${upper} ${path}`,
        method: upper,
        path,
        input,
        // GET and DELETE send what the path does not use in the query string anyway.
        ...(upper !== "GET" && upper !== "DELETE" && query.length > 0 ? { query } : {}),
      });
    }
  }
  return tools;
}
