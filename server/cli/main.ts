// The operator CLI (npm run inlay -- <command>; docs/operations.md): what operators did through SQL or
// env, as thin commands over the platform's services, on the database the platform uses. runCli() is
// the whole program but the process: tests call it in-process with their own database.
import { parseArgs, type ParseArgsConfig } from "node:util";
import { env } from "@/lib/env";
import { openDatabase, type Database } from "@/server/shared/db";
import { platformConfigFromEnv } from "@/server/platform/config";
import { createJobQueue, type JobQueue } from "@/server/platform/infrastructure/job-queue";
import type { PlatformConfig } from "@/server/platform/platform-config";
import { UsageError } from "./args";
import type { Command, CommandContext, OptionSpec, ParsedArgs } from "./command";
import * as accounts from "./commands/accounts";
import { failedJobs } from "./commands/jobs";
import { stuckRuns } from "./commands/runs";
import * as secrets from "./commands/secrets";
import * as webhooks from "./commands/webhooks";

export const COMMANDS: readonly Command[] = [
  accounts.verify,
  accounts.credit,
  stuckRuns,
  failedJobs,
  webhooks.dead,
  webhooks.retry,
  secrets.reseal,
];

const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  json: { type: "boolean", description: "print JSON (for scripts) instead of text" },
  "data-dir": { type: "string", value: "DIR", description: "a PGlite data directory (refused with DATABASE_URL)" },
  help: { type: "boolean", description: "this help" },
};

/** The database and configuration a command runs against. */
export interface CliTarget {
  database: Database;
  config: PlatformConfig;
  /** Closes what open() opened (tests' harnesses keep their database open). */
  close(): Promise<void>;
}

export interface CliOptions {
  /** Default: as `npm run platform` opens it (--data-dir, else DATABASE_URL or PGLITE_DATA_DIR), configured from the environment. */
  open?: (dataDir: string | undefined) => Promise<CliTarget>;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
}

async function openFromEnv(dataDir: string | undefined): Promise<CliTarget> {
  if (dataDir && env.DATABASE_URL) {
    throw new UsageError("--data-dir (PGlite) and DATABASE_URL (PostgreSQL) name two databases: give one of them");
  }
  const database = await openDatabase(dataDir ? { dataDir } : { url: env.DATABASE_URL, dataDir: env.PGLITE_DATA_DIR });
  return { database, config: platformConfigFromEnv(env), close: () => database.close() };
}

const PROGRAM = "npm run inlay --";

function usageLine(command: Command): string {
  return `${PROGRAM} ${command.name} ${command.usage}`.trimEnd();
}

function optionLines(options: Record<string, OptionSpec>): string[] {
  const entries = Object.entries(options).map(([name, spec]) => [`--${name}${spec.value ? ` ${spec.value}` : ""}`, spec.description] as const);
  const width = Math.max(...entries.map(([flag]) => flag.length));
  return entries.map(([flag, description]) => `  ${flag.padEnd(width)}  ${description}`);
}

function commandHelp(command: Command): string {
  return [
    `usage: ${usageLine(command)}`,
    "",
    command.summary,
    ...(command.details ? ["", command.details] : []),
    "",
    "options:",
    ...optionLines({ ...command.options, ...GLOBAL_OPTIONS }),
  ].join("\n");
}

function overview(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  return [
    `usage: ${PROGRAM} <command> [options]`,
    "",
    "The operator's commands, on the database the platform uses (DATABASE_URL, or PGlite: --data-dir or PGLITE_DATA_DIR).",
    "With PGlite, stop the platform first: one process at a time opens a data directory (a running one's is refused).",
    "",
    "commands:",
    ...commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    "",
    `${PROGRAM} <command> --help tells more. Every command takes --json and --data-dir DIR.`,
    "Exit status: 0 done, 1 failed or needs attention, 2 bad input.",
  ].join("\n");
}

/** Runs one command line (argv without node and the script); resolves with the exit status. */
export async function runCli(argv: readonly string[], options: CliOptions = {}): Promise<number> {
  const stdout = options.stdout ?? ((text: string) => void process.stdout.write(`${text}\n`));
  const stderr = options.stderr ?? ((text: string) => void process.stderr.write(`${text}\n`));
  let rest = [...argv];
  let wantsHelp = rest.includes("--help") || rest.includes("-h");
  if (rest[0] === "help") {
    wantsHelp = true;
    rest = rest.slice(1);
  }
  // The command's two words come first: `accounts verify <account> --json`.
  const [noun, verb] = rest.map((arg) => (arg.startsWith("-") ? undefined : arg));
  const found = COMMANDS.find((command) => command.name === `${noun} ${verb}`);
  if (!found) {
    // Nothing, or a noun alone (`webhooks`): the commands there are.
    const group = COMMANDS.filter((command) => command.name.startsWith(`${noun} `));
    if (noun === undefined || (group.length > 0 && verb === undefined)) {
      (wantsHelp ? stdout : stderr)(overview(group.length > 0 ? group : COMMANDS));
      return wantsHelp ? 0 : 2;
    }
    stderr(`inlay: unknown command "${[noun, verb].filter(Boolean).join(" ")}" (${PROGRAM} --help lists them)`);
    return 2;
  }
  if (wantsHelp) {
    stdout(commandHelp(found));
    return 0;
  }

  let parsed: ParsedArgs;
  let input: unknown;
  try {
    const config: ParseArgsConfig = {
      args: rest.slice(2),
      options: Object.fromEntries(
        Object.entries({ ...found.options, ...GLOBAL_OPTIONS }).map(([name, spec]) => [name, { type: spec.type, multiple: spec.multiple ?? false }]),
      ),
      allowPositionals: true,
      strict: true,
    };
    parsed = parseArgs(config) as ParsedArgs;
    const max = (found.usage.match(/<[^>]+>/g) ?? []).length;
    if (parsed.positionals.length > max) throw new UsageError(`unexpected argument "${parsed.positionals[max]}"`);
    input = found.parse(parsed);
  } catch (error) {
    if (!(error instanceof UsageError) && !isParseArgsError(error)) throw error;
    stderr(`inlay ${found.name}: ${(error as Error).message.replace(/\s*\n\s*/g, " ")} (${PROGRAM} ${found.name} --help)`);
    return 2;
  }

  let target: CliTarget | undefined;
  let jobs: JobQueue | undefined;
  try {
    target = await (options.open ?? openFromEnv)(typeof parsed.values["data-dir"] === "string" ? parsed.values["data-dir"] : undefined);
    const { database, config } = target;
    const ctx: CommandContext = {
      database,
      prisma: database.prisma,
      config,
      async jobs() {
        if (!jobs) {
          jobs = createJobQueue({ database, work: false });
          await jobs.start();
        }
        return jobs;
      },
    };
    const result = await found.run(ctx, input);
    stdout(parsed.values.json === true ? JSON.stringify(result.json, null, 2) : result.text);
    return result.exitCode ?? 0;
  } catch (error) {
    if (error instanceof UsageError) {
      stderr(`inlay ${found.name}: ${error.message}`);
      return 2;
    }
    // A service's refusal (PlatformError: not found, conflict) is the operator's to read; anything else
    // too, as one line: the stack is for a bug report, not for this terminal.
    const message = error instanceof Error ? error.message : String(error);
    stderr(`inlay ${found.name}: ${message.replace(/\s*\n\s*/g, " ")}`);
    return 1;
  } finally {
    await jobs?.stop();
    await target?.close();
  }
}

/** node:util parseArgs's refusals (unknown option, missing value): bad input, said as it says it. */
function isParseArgsError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof TypeError && typeof code === "string" && code.startsWith("ERR_PARSE_ARGS");
}
