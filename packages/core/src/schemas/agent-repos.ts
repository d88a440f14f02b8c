// Repositories bound to an agent (/agents/{id}/repos): account-scoped, through the account's
// code-host connection; each binding's env is write-only (values 8-8192 characters, sealed).
import { z } from "zod";
import { IntId, Timestamp } from "./common";

/** owner/name as the code host spells it (GitHub's characters). */
export const RepoFullName = z
  .string()
  .max(200, "must be at most 200 characters")
  .regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, "must be owner/name");

// The spec names only `trusted` (the default of a new binding); other modes are kept as given, a
// short lower-case word, for the code host's features to read.
export const RepoMode = z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, "must be a short lower-case word such as trusted");

export const AgentRepoCreate = z.object({
  repo_full_name: RepoFullName,
  mode: RepoMode.optional().meta({ description: "Omitted: trusted for a new binding; a re-bind keeps its mode" }),
});

/** Env variable names as a shell would take them. */
export const ENV_KEY_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const ENV_KEY_MAX_CHARS = 128;
export const ENV_VALUE_MIN_CHARS = 8;
export const ENV_VALUE_MAX_CHARS = 8192;
export const ENV_KEYS_PER_REPO = 100;

export const EnvKey = z
  .string()
  .max(ENV_KEY_MAX_CHARS, `must be at most ${ENV_KEY_MAX_CHARS} characters`)
  .regex(ENV_KEY_PATTERN, "must be a variable name: letters, digits and _, not starting with a digit");

export const AgentRepoEnvPut = z.object({
  env: z
    .record(
      EnvKey,
      z
        .string()
        .min(ENV_VALUE_MIN_CHARS, `must be at least ${ENV_VALUE_MIN_CHARS} characters (shorter values cannot be redacted from run output)`)
        .max(ENV_VALUE_MAX_CHARS, `must be at most ${ENV_VALUE_MAX_CHARS} characters`),
    )
    .refine((env) => Object.keys(env).length <= ENV_KEYS_PER_REPO, `must have at most ${ENV_KEYS_PER_REPO} keys`)
    .meta({ description: "Replaces the stored set: keys left out are removed. Values are write-only." }),
});

export const AgentRepoEnv = z
  .object({
    repo_id: z.number().int(),
    keys: z.array(z.string()).meta({ description: "The names set, sorted; values are never returned" }),
    updated_at: Timestamp,
  })
  .meta({ id: "AgentRepoEnv" });

export const AgentRepo = z
  .object({
    id: z.number().int(),
    agent_id: z.number().int(),
    repo_full_name: z.string(),
    mode: z.string(),
    connection_id: z.string().meta({ description: "The account-level code-host connection the binding uses" }),
    env_keys: z.array(z.string()),
    commands_digest: z.string().nullable().meta({ description: "The approved commands' digest; null: none approved" }),
    commands_approved_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: "AgentRepo" });

export const AgentRepoParams = z.object({ agent_id: IntId, repo_id: IntId });
export const AgentRepoEnvKeyParams = AgentRepoParams.extend({ key: z.string().max(ENV_KEY_MAX_CHARS) });

/** A digest as tools print it: hex or base64, optionally prefixed with its algorithm (sha256:…). */
export const CommandsDigest = z
  .string()
  .min(1, "must not be empty")
  .max(200, "must be at most 200 characters")
  .regex(/^[A-Za-z0-9:+/=_-]+$/, "must be a digest such as sha256:<hex> (letters, digits and : + / = _ -)");

export const ApproveCommands = z.object({
  commands_digest: CommandsDigest.meta({ description: "The digest of the repository's commands being approved; replaces an earlier approval" }),
});
