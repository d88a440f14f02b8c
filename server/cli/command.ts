// What a command of the operator CLI is: its name, help, options, how it reads its arguments (before
// the database is opened) and what it does with the services.
import type { Database } from "@/server/shared/db";
import type { JobQueue } from "@/server/platform/infrastructure/job-queue";
import type { PlatformConfig } from "@/server/platform/platform-config";
import type { Db } from "@/server/platform/repositories/db";

export interface OptionSpec {
  type: "string" | "boolean";
  multiple?: boolean;
  /** The value's name in the help ("USD", "ID"). */
  value?: string;
  description: string;
}

/** What a command runs against: the database the platform uses, its configuration, its job queue. */
export interface CommandContext {
  database: Database;
  prisma: Db;
  config: PlatformConfig;
  /** The job queue, started on first use, enqueueing only: the platform's workers run the jobs. */
  jobs(): Promise<JobQueue>;
}

export interface CommandResult {
  /** What --json prints. */
  json: unknown;
  /** What is printed otherwise. */
  text: string;
  /** 1 when the command ran but what it found needs the operator (default 0). */
  exitCode?: number;
}

export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

export interface Command<Input = unknown> {
  /** "accounts verify" */
  name: string;
  /** "<email|account-id>" */
  usage: string;
  summary: string;
  /** More help: what it does exactly, examples. */
  details?: string;
  options: Record<string, OptionSpec>;
  /** Reads the arguments; throws UsageError. Runs before the database is opened. */
  parse(args: ParsedArgs): Input;
  run(ctx: CommandContext, input: Input): Promise<CommandResult>;
}

/** For a table of commands whose inputs differ. */
export const command = <Input>(definition: Command<Input>): Command<unknown> => definition as Command<unknown>;

export const str = (value: ParsedArgs["values"][string]): string | undefined => (typeof value === "string" ? value : undefined);
