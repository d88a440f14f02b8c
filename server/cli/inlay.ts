// npm run inlay -- <command> [options]: the operator CLI (server/cli/main.ts, docs/operations.md).
import { runCli } from "./main";

const status = await runCli(process.argv.slice(2));
// Exit once stdout is flushed: a pool or timer left behind must not keep a finished command alive.
process.stdout.write("", () => process.exit(status));
