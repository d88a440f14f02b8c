// The standalone platform (`npm run platform`) as child processes of a test: started with the test's
// environment plus its own, resolved with the first line the process prints, all stopped by stopAll().
// The compiled platform of the run (tests/setup/compiled-platform.ts), as production starts it.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { compiledPlatformEntry } from "./compiled-platform";

export function standaloneProcesses() {
  const children: ChildProcess[] = [];
  async function startStandalone(args: string[], extraEnv: Record<string, string> = {}) {
    const child = spawn(process.execPath, [...compiledPlatformEntry(), ...args], {
      // eslint-disable-next-line no-restricted-properties -- the child inherits the test's environment
      env: { ...process.env, NODE_ENV: "development", LOG_LEVEL: "warn", ...extraEnv },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const lines = createInterface({ input: child.stdout! });
    const first = await new Promise<string>((resolve, reject) => {
      lines.once("line", resolve);
      child.once("exit", (code) => reject(new Error(`platform exited with ${code}: ${stderr}`)));
    });
    return { child, first, stderr: () => stderr };
  }
  return {
    startStandalone,
    stopAll: () => {
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    },
  };
}
