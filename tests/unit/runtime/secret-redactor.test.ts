// A run's secret values never leave it (infrastructure/secret-redactor.ts): every occurrence becomes the
// marker, overlapping ones one marker, and streamed text adds up to the redaction of the whole text
// whatever the deltas' boundaries, holding back only a tail that could still start a value.
import { describe, expect, it } from "vitest";
import { REDACTED_MARKER as R, SecretRedactor } from "@/server/platform/infrastructure/secret-redactor";

/** Streams `text` cut at `cuts` (ascending positions) and returns what went out, delta by delta. */
function streamed(redactor: SecretRedactor, text: string, cuts: number[]): { outs: string[]; end: string } {
  const stream = redactor.stream();
  const bounds = [0, ...cuts, text.length];
  const outs = bounds.slice(1).map((end, index) => stream.push(text.slice(bounds[index], end)));
  return { outs, end: stream.end() };
}

describe("SecretRedactor.text", () => {
  it("replaces every occurrence of every value and leaves the rest", () => {
    const redactor = new SecretRedactor(["hunter2hunter2", "s3cr3t-token"]);
    expect(redactor.text("a hunter2hunter2 b s3cr3t-token c hunter2hunter2")).toBe(`a ${R} b ${R} c ${R}`);
    expect(redactor.text("nothing to see")).toBe("nothing to see");
  });

  it("makes one marker of overlapping values, so no character of either is left", () => {
    const redactor = new SecretRedactor(["abcdefgh12", "gh12345678"]);
    expect(redactor.text("xxabcdefgh12345678yy")).toBe(`xx${R}yy`);
    // Adjacent occurrences stay two markers.
    expect(redactor.text("abcdefgh12gh12345678")).toBe(`${R}${R}`);
  });

  it("covers the longer value when one is a prefix of another", () => {
    const redactor = new SecretRedactor(["password", "password-extended"]);
    expect(redactor.text("is password-extended ok")).toBe(`is ${R} ok`);
    expect(redactor.text("is password ok")).toBe(`is ${R} ok`);
  });

  it("catches a value repeating itself (overlapping occurrences of one value)", () => {
    const redactor = new SecretRedactor(["abababab"]);
    expect(redactor.text("zababababab!")).toBe(`z${R}!`);
  });

  it("passes everything through as it is without values", () => {
    const frame = { type: "tool_use" as const, id: "c1", name: "x", input: { a: "b" } };
    expect(SecretRedactor.none.active).toBe(false);
    expect(SecretRedactor.none.text("anything")).toBe("anything");
    expect(SecretRedactor.none.frame(frame)).toBe(frame);
    expect(new SecretRedactor([""]).text("anything")).toBe("anything");
  });
});

describe("SecretRedactor.json and frames", () => {
  const redactor = new SecretRedactor(["my secret value"]);

  it("redacts every string of a JSON value, keys included, and keeps the rest", () => {
    expect(redactor.json({ a: ["x my secret value y", 3, null, true], "my secret value": { b: "ok" } })).toEqual({
      a: [`x ${R} y`, 3, null, true],
      [R]: { b: "ok" },
    });
  });

  it("redacts the content of tool calls, results, requests, done's output and errors", () => {
    expect(redactor.frame({ type: "tool_use", id: "c1", name: "read", input: { path: "my secret value" } })).toEqual({
      type: "tool_use",
      id: "c1",
      name: "read",
      input: { path: R },
    });
    expect(redactor.frame({ type: "tool_result", tool_use_id: "c1", content: '"my secret value"', result: "my secret value" })).toEqual({
      type: "tool_result",
      tool_use_id: "c1",
      content: `"${R}"`,
      result: R,
    });
    expect(redactor.frame({ type: "permission_request", request_id: "p", tool_name: "t", kind: "tool", input: ["my secret value"] })).toMatchObject({ input: [R] });
    expect(redactor.frame({ type: "done", completion_state: "completed", stop_reason: "stop", message_count: 2, output_data: { v: "my secret value" } })).toMatchObject({
      output_data: { v: R },
    });
    expect(redactor.frame({ type: "run_status", status: "failed", error: "bad my secret value" })).toEqual({ type: "run_status", status: "failed", error: `bad ${R}` });
  });
});

describe("TextRedactor (streamed text)", () => {
  const value = "open sesame 42";
  const text = `say open sesame 42 now, then open sesame 42.`;
  const redactor = new SecretRedactor([value]);
  const whole = redactor.text(text);

  it("adds up to the whole text's redaction with one cut at every position", () => {
    expect(whole).toBe(`say ${R} now, then ${R}.`);
    for (let at = 0; at <= text.length; at++) {
      const { outs, end } = streamed(redactor, text, [at]);
      expect(outs.join("") + end, `cut at ${at}`).toBe(whole);
      expect(outs.join("") + end).not.toContain("sesame");
    }
  });

  it("adds up to the whole text's redaction with two cuts at every pair of positions", () => {
    for (let a = 0; a <= text.length; a++) {
      for (let b = a; b <= text.length; b++) {
        const { outs, end } = streamed(redactor, text, [a, b]);
        expect(outs.join("") + end, `cuts at ${a}, ${b}`).toBe(whole);
      }
    }
  });

  it("never lets out a part of a value, one character at a time", () => {
    const { outs } = streamed(redactor, text, Array.from({ length: text.length - 1 }, (_, index) => index + 1));
    for (const out of outs) expect(out === R || !/ses|same/.test(out)).toBe(true);
  });

  it("holds back only what could still start a value", () => {
    const stream = redactor.stream();
    expect(stream.push("hello there, ")).toBe("hello there, ");
    expect(stream.push("open ses")).toBe("");
    expect(stream.push("ame 41")).toBe("open sesame 41");
    expect(stream.push(" and op")).toBe(" and ");
    expect(stream.end()).toBe("op");
  });

  it("keeps overlapping values and a value that is a prefix of another whole across every cut", () => {
    const overlapping = new SecretRedactor(["abcdefgh12", "gh12345678", "password", "password-extended"]);
    const sample = "xxabcdefgh12345678yy abcdefgh12zz password-extendedz passwordx";
    const expected = overlapping.text(sample);
    expect(expected).toBe(`xx${R}yy ${R}zz ${R}z ${R}x`);
    for (let a = 0; a <= sample.length; a++) {
      for (let b = a; b <= sample.length; b += 3) {
        const { outs, end } = streamed(overlapping, sample, [a, b]);
        expect(outs.join("") + end, `cuts at ${a}, ${b}`).toBe(expected);
      }
    }
  });

  it("passes deltas through at once without values", () => {
    const stream = SecretRedactor.none.stream();
    expect(stream.push("open ses")).toBe("open ses");
    expect(stream.end()).toBe("");
  });
});
