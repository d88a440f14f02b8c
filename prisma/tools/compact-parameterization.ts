// Rewrites the generated client's parameterization graph so each process holds it in about 1 MB of heap
// instead of about 16 (bench/results/2026-11-29-idle-memory.md). `npm run db:generate` runs it after
// `prisma generate`:
//
//   tsx prisma/tools/compact-parameterization.ts [server/generated/prisma/internal/class.ts]
//
// Why: Prisma's runtime decodes the graph (`config.parameterizationSchema`) into one plain object per
// node, keyed by the index of each field's name in a table of ~2,000 strings (`edges[index] = …`). V8
// gives an empty object whose first integer key is below 1,024 a flat element store as long as that
// key: 5,500 nodes × a few KB. Shifting every string index past 1,024 (the table gains 1,024 empty
// strings in front, which no field name looks up) makes V8 keep each node's few keys in a small
// dictionary instead. The graph means the same; the runtime's own lookups (name → index → edge) are
// unchanged.
//
// The binary format is the runtime's (`@prisma/client/runtime/client.js`, the graph's deserializer):
// three unsigned LEB128 counts (input nodes, output nodes, roots); an input node is a count of edges,
// each edge = key (string index), u16 scalar mask, optional child node, optional enum name (string
// index), u8 flags; an output node is a count of edges, each = key, optional args node, optional output
// node; a root = name (string index), optional args node, optional output node. "Optional" is LEB128
// of value + 1, 0 for none. A graph that does not decode to exactly its bytes is left as it is and the
// tool fails, so a Prisma release that changes the format stops the install instead of corrupting it.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** How far string indices move: V8's JSObject::kMaxGap, the gap past which a first element goes to a dictionary. */
export const STRING_INDEX_OFFSET = 1024;

interface InputEdge {
  key: number;
  scalarMask: number;
  childNodeId?: number;
  enumNameIndex?: number;
  flags: number;
}
interface OutputEdge {
  key: number;
  argsNodeId?: number;
  outputNodeId?: number;
}
interface Root {
  name: number;
  argsNodeId?: number;
  outputNodeId?: number;
}
export interface ParameterizationGraph {
  inputNodes: InputEdge[][];
  outputNodes: OutputEdge[][];
  roots: Root[];
}

export function decodeGraph(graph: string): ParameterizationGraph {
  const bytes = Buffer.from(graph, "base64url");
  let at = 0;
  const byte = () => {
    if (at >= bytes.length) throw new Error("parameterization graph: ends in the middle of a node");
    return bytes[at++]!;
  };
  const varint = () => {
    let value = 0;
    let shift = 0;
    let b: number;
    do {
      b = byte();
      value += (b & 127) * 2 ** shift;
      shift += 7;
    } while (b >= 128);
    return value;
  };
  const optional = () => {
    const value = varint();
    return value === 0 ? undefined : value - 1;
  };
  const u16 = () => byte() | (byte() << 8);
  const times = <T>(count: number, read: () => T) => Array.from({ length: count }, read);

  const [inputCount, outputCount, rootCount] = [varint(), varint(), varint()];
  const inputNodes = times(inputCount, () =>
    times(varint(), () => {
      const key = varint();
      const scalarMask = u16();
      const childNodeId = optional();
      const enumNameIndex = optional();
      return { key, scalarMask, childNodeId, enumNameIndex, flags: byte() };
    }),
  );
  const outputNodes = times(outputCount, () => times(varint(), () => ({ key: varint(), argsNodeId: optional(), outputNodeId: optional() })));
  const roots = times(rootCount, () => ({ name: varint(), argsNodeId: optional(), outputNodeId: optional() }));
  if (at !== bytes.length) throw new Error(`parameterization graph: ${bytes.length - at} bytes left after the last root`);
  return { inputNodes, outputNodes, roots };
}

export function encodeGraph(graph: ParameterizationGraph): string {
  const out: number[] = [];
  const varint = (value: number) => {
    do {
      const low = value % 128;
      value = Math.floor(value / 128);
      out.push(value > 0 ? low | 128 : low);
    } while (value > 0);
  };
  const optional = (value: number | undefined) => varint(value === undefined ? 0 : value + 1);
  varint(graph.inputNodes.length);
  varint(graph.outputNodes.length);
  varint(graph.roots.length);
  for (const edges of graph.inputNodes) {
    varint(edges.length);
    for (const edge of edges) {
      varint(edge.key);
      out.push(edge.scalarMask & 255, edge.scalarMask >> 8);
      optional(edge.childNodeId);
      optional(edge.enumNameIndex);
      out.push(edge.flags);
    }
  }
  for (const edges of graph.outputNodes) {
    varint(edges.length);
    for (const edge of edges) {
      varint(edge.key);
      optional(edge.argsNodeId);
      optional(edge.outputNodeId);
    }
  }
  for (const root of graph.roots) {
    varint(root.name);
    optional(root.argsNodeId);
    optional(root.outputNodeId);
  }
  return Buffer.from(out).toString("base64url");
}

/** The same graph with every string index moved by `offset` (node ids stay). */
export function shiftStringIndices(graph: ParameterizationGraph, offset: number): ParameterizationGraph {
  const shift = (index: number | undefined) => (index === undefined ? undefined : index + offset);
  return {
    inputNodes: graph.inputNodes.map((edges) => edges.map((edge) => ({ ...edge, key: edge.key + offset, enumNameIndex: shift(edge.enumNameIndex) }))),
    outputNodes: graph.outputNodes.map((edges) => edges.map((edge) => ({ ...edge, key: edge.key + offset }))),
    roots: graph.roots.map((root) => ({ ...root, name: root.name + offset })),
  };
}

// The generator writes: config.parameterizationSchema = {\n  strings: JSON.parse("…"),\n  graph: "…"\n}
const SCHEMA = /config\.parameterizationSchema = \{\s*strings: JSON\.parse\(("(?:[^"\\]|\\.)*")\),\s*graph: "([A-Za-z0-9_-]*)"\s*\}/;

export interface CompactResult {
  source: string;
  changed: boolean;
}

/** The generated client's string table and graph (still encoded), and where they are in `source`. */
export function readSchema(source: string): { strings: string[]; graph: string; at: number; length: number } {
  const match = SCHEMA.exec(source);
  if (!match) throw new Error("compact-parameterization: no `config.parameterizationSchema = { strings, graph }` in the generated client");
  return { strings: JSON.parse(JSON.parse(match[1]!) as string) as string[], graph: match[2]!, at: match.index, length: match[0].length };
}

/** The generated client's source with its graph compacted; unchanged if it already is. */
export function compactClientSource(source: string): CompactResult {
  const { strings, graph: encodedGraph, at, length } = readSchema(source);
  if (strings.length >= STRING_INDEX_OFFSET && strings.slice(0, STRING_INDEX_OFFSET).every((s) => s === "")) return { source, changed: false };
  if (strings.includes("")) throw new Error("compact-parameterization: the string table already holds an empty string; padding would shadow it");
  const graph = decodeGraph(encodedGraph);
  if (encodeGraph(graph) !== encodedGraph) throw new Error("compact-parameterization: the graph does not re-encode to its own bytes; Prisma's format changed");
  const padded = [...Array<string>(STRING_INDEX_OFFSET).fill(""), ...strings];
  const replacement = `config.parameterizationSchema = {\n  strings: JSON.parse(${JSON.stringify(JSON.stringify(padded))}),\n  graph: "${encodeGraph(shiftStringIndices(graph, STRING_INDEX_OFFSET))}"\n}`;
  return { source: source.slice(0, at) + replacement + source.slice(at + length), changed: true };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const file = path.resolve(process.argv[2] ?? "server/generated/prisma/internal/class.ts");
  const { source, changed } = compactClientSource(readFileSync(file, "utf8"));
  if (changed) writeFileSync(file, source);
  console.log(`compact-parameterization: ${changed ? "compacted" : "already compact"}: ${path.relative(process.cwd(), file)}`);
}
