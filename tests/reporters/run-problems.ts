// A vitest reporter for tests/run-all.mjs: what fails a run without failing a test (errors thrown
// outside any test, a test file that fails to load or in a hook). The default reporter prints them in
// the middle of a long log; run-all prints this file's lines again at its end, where they are read.
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { Reporter, SerializedError, TestModule } from "vitest/node";

const describe = (error: SerializedError) =>
  `${error.name ?? "Error"}: ${error.message}\n${(error.stack ?? "").split("\n").slice(0, 8).join("\n")}`;

// Vitest marks an unhandled error with the file its worker was running (with isolate off, the file
// that left the work behind may be an earlier one of the same worker) and the test, if any.
const origin = (error: SerializedError) => {
  const marks = error as SerializedError & { VITEST_TEST_PATH?: string; VITEST_TEST_NAME?: string; VITEST_AFTER_ENV_TEARDOWN?: boolean };
  const parts = [
    marks.VITEST_TEST_PATH && `while ${path.relative(process.cwd(), marks.VITEST_TEST_PATH)} ran`,
    marks.VITEST_TEST_NAME && `in "${marks.VITEST_TEST_NAME}"`,
    marks.VITEST_AFTER_ENV_TEARDOWN && "after its teardown",
  ].filter(Boolean);
  return parts.length > 0 ? ` (${parts.join(", ")})` : "";
};

export default class RunProblems implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>) {
    // eslint-disable-next-line no-restricted-properties -- set by tests/run-all.mjs, not app configuration
    const file = process.env.INLAY_TEST_PROBLEMS;
    if (!file) return;
    const lines: string[] = [];
    for (const error of unhandledErrors) lines.push(`unhandled error${origin(error)}: ${describe(error)}`);
    for (const testModule of testModules) {
      const where = `${testModule.project.name} ${path.relative(process.cwd(), testModule.moduleId)}`;
      for (const error of testModule.errors()) lines.push(`${where}, outside its tests: ${describe(error)}`);
      // A describe's own hooks (beforeAll, afterAll) fail the suite, not a test.
      for (const suite of testModule.children.allSuites()) {
        for (const error of suite.errors()) lines.push(`${where} > ${suite.name}, outside its tests: ${describe(error)}`);
      }
    }
    writeFileSync(file, lines.join("\n\n"));
  }
}
