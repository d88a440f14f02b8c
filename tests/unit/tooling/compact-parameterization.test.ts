// prisma/tools/compact-parameterization.ts: the generated client's parameterization graph, rewritten so
// V8 keeps each node's keys in a small dictionary, must mean what Prisma generated.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  compactClientSource,
  decodeGraph,
  encodeGraph,
  readSchema,
  shiftStringIndices,
  STRING_INDEX_OFFSET,
  type ParameterizationGraph,
} from "@/prisma/tools/compact-parameterization";

const CLIENT = "server/generated/prisma/internal/class.ts";

function schemaOf(source: string): { strings: string[]; graph: ParameterizationGraph } {
  const { strings, graph } = readSchema(source);
  return { strings, graph: decodeGraph(graph) };
}

/** Each edge as the names the runtime looks it up by. */
function named({ strings, graph }: { strings: string[]; graph: ParameterizationGraph }) {
  return {
    inputs: graph.inputNodes.map((edges) => edges.map((e) => [strings[e.key], e.scalarMask, e.childNodeId, e.enumNameIndex === undefined ? undefined : strings[e.enumNameIndex], e.flags])),
    outputs: graph.outputNodes.map((edges) => edges.map((e) => [strings[e.key], e.argsNodeId, e.outputNodeId])),
    roots: graph.roots.map((r) => [strings[r.name], r.argsNodeId, r.outputNodeId]),
  };
}

const sample: ParameterizationGraph = {
  inputNodes: [
    [
      { key: 2, scalarMask: 0x1234, childNodeId: 1, enumNameIndex: 3, flags: 5 },
      { key: 0, scalarMask: 0, flags: 0 },
    ],
    [{ key: 1, scalarMask: 7, childNodeId: 300, flags: 32 }],
  ],
  outputNodes: [[{ key: 1, argsNodeId: 0, outputNodeId: 200_000 }], []],
  roots: [{ name: 0, argsNodeId: 1, outputNodeId: 0 }, { name: 3 }],
};
const sampleStrings = ["where", "select", "status", "RunStatus"];
const sampleSource = (strings: string[], graph: string) =>
  `config.runtimeDataModel = JSON.parse("{}")\nconfig.parameterizationSchema = {\n  strings: JSON.parse(${JSON.stringify(JSON.stringify(strings))}),\n  graph: "${graph}"\n}\nexport {}\n`;

describe("compact-parameterization", () => {
  it("decodes what it encodes, large numbers and absent optionals included", () => {
    const decoded = decodeGraph(encodeGraph(sample));
    expect(named({ strings: sampleStrings, graph: decoded })).toEqual(named({ strings: sampleStrings, graph: sample }));
    expect(decoded.outputNodes[0]![0]!.outputNodeId).toBe(200_000);
    expect(decoded.inputNodes[0]![1]!.childNodeId).toBeUndefined();
  });

  it("moves every string index past V8's gap and keeps each edge's names", () => {
    const { source, changed } = compactClientSource(sampleSource(sampleStrings, encodeGraph(sample)));
    expect(changed).toBe(true);
    const compacted = schemaOf(source);
    expect(compacted.strings).toHaveLength(STRING_INDEX_OFFSET + sampleStrings.length);
    expect(named(compacted)).toEqual(named({ strings: sampleStrings, graph: sample }));
    const keys = [...compacted.graph.inputNodes.flat().map((e) => e.key), ...compacted.graph.outputNodes.flat().map((e) => e.key)];
    expect(Math.min(...keys)).toBeGreaterThanOrEqual(STRING_INDEX_OFFSET);
    expect(source.startsWith("config.runtimeDataModel") && source.endsWith("export {}\n")).toBe(true);
    // A second run leaves it alone.
    expect(compactClientSource(source)).toEqual({ source, changed: false });
  });

  it("refuses a graph it cannot read exactly, and a client without one", () => {
    const bytes = Buffer.from(encodeGraph(sample), "base64url");
    expect(() => compactClientSource(sampleSource(sampleStrings, bytes.subarray(0, bytes.length - 2).toString("base64url")))).toThrow(/ends in the middle/);
    expect(() => compactClientSource(sampleSource(sampleStrings, Buffer.concat([bytes, Buffer.from([0])]).toString("base64url")))).toThrow(/bytes left/);
    expect(() => compactClientSource("export {}\n")).toThrow(/no `config.parameterizationSchema/);
  });

  it("has been applied to the generated client (npm run db:generate), whose graph still reads whole", () => {
    const generated = schemaOf(readFileSync(CLIENT, "utf8"));
    expect(generated.strings.slice(0, STRING_INDEX_OFFSET).every((s) => s === "")).toBe(true);
    expect(generated.strings.slice(STRING_INDEX_OFFSET)).not.toContain("");
    expect(generated.graph.inputNodes.length).toBeGreaterThan(1000);
    const original = shiftStringIndices(generated.graph, -STRING_INDEX_OFFSET);
    expect(named({ strings: generated.strings.slice(STRING_INDEX_OFFSET), graph: original })).toEqual(named(generated));
    expect(generated.graph.roots.map((r) => generated.strings[r.name])).toContain("PlatformRunEvent.findMany");
  });
});
