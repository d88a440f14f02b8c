// compactHeapAfterStartup: the young generation startup grew goes back (Node 22 and later), and no
// context made afterwards (the script sandbox's) is handed `gc`.
import v8 from "node:v8";
import vm from "node:vm";
import { expect, it } from "vitest";
import { compactHeapAfterStartup } from "@/server/platform/infrastructure/startup-heap";

const newSpace = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space")!.space_size;
const major = Number(process.versions.node.split(".")[0]);

it(`gives back the young generation on Node 22 and later, and leaves no gc behind (Node ${major})`, () => {
  // Short-lived garbage at a high rate is what grows the young generation, as startup does.
  let kept: object[] = [];
  for (let i = 0; i < 3_000_000; i++) {
    kept.push({ i });
    if (kept.length > 100_000) kept = [];
  }
  const grown = newSpace();
  expect(grown).toBeGreaterThan(4 * 1024 * 1024);
  compactHeapAfterStartup();
  if (major >= 22) expect(newSpace()).toBeLessThan(grown / 4);
  else expect(newSpace()).toBe(grown);
  expect(vm.runInNewContext("typeof gc")).toBe("undefined");
  expect(typeof (globalThis as { gc?: unknown }).gc).toBe("undefined");
});
