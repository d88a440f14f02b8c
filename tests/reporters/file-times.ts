// A vitest reporter for tests/run-all.mjs: each test file's wall time and test counts, per project,
// so the stage table can name the slowest files.
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { Reporter, TestModule } from "vitest/node";

export interface FileTime {
  project: string;
  file: string;
  seconds: number;
  passed: number;
  failed: number;
  skipped: number;
}

export default class FileTimes implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    // eslint-disable-next-line no-restricted-properties -- set by tests/run-all.mjs, not app configuration
    const file = process.env.INLAY_TEST_FILE_TIMES;
    if (!file) return;
    const times: FileTime[] = testModules.map((testModule) => {
      const counts = { passed: 0, failed: 0, skipped: 0 };
      for (const test of testModule.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") counts.passed++;
        else if (state === "failed") counts.failed++;
        else counts.skipped++;
      }
      const diagnostic = testModule.diagnostic();
      return {
        project: testModule.project.name,
        file: path.relative(process.cwd(), testModule.moduleId),
        // Importing the file and its hooks count: it is time the stage waits for.
        seconds: (diagnostic.setupDuration + diagnostic.collectDuration + diagnostic.duration) / 1000,
        ...counts,
      };
    });
    writeFileSync(file, JSON.stringify(times, null, 1));
  }
}
