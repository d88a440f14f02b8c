// runs stuck: runs that stopped moving, for the operator to look at.
import { findStuckRuns, type StuckReason } from "@/server/platform/services/account/operator";
import { count, durationMs } from "../args";
import { command, str } from "../command";
import { table } from "../output";

const REASON_TEXT: Record<StuckReason, string> = {
  lease_lapsed: "lease lapsed: no worker renews or reclaims it",
  unclaimed: "no worker claimed it",
  long_running: "running long, lease held",
};

export const stuckRuns = command({
  name: "runs stuck",
  usage: "[--older-than 15m] [--limit 100]",
  summary: "List runs still running that no worker moves on",
  details:
    "Listed: a run whose lease lapsed (its worker died and none took it over: are workers running?), a run no worker\n" +
    "claimed for --older-than, and a run started more than --older-than ago whose lease is held (maybe just long).",
  options: {
    "older-than": { type: "string", value: "DURATION", description: "how long counts as stuck: 90s, 15m, 2h, 1d (default 15m)" },
    limit: { type: "string", value: "N", description: "at most this many, oldest first (default 100)" },
  },
  parse: ({ values }) => ({
    olderThanMs: durationMs("older-than", str(values["older-than"]) ?? "15m"),
    limit: count("limit", str(values.limit) ?? "100", 1, 10_000),
  }),
  async run(ctx, input) {
    const runs = await findStuckRuns(ctx.prisma, input);
    return {
      json: runs,
      text:
        runs.length === 0
          ? "no stuck runs"
          : table(
              ["run", "account", "why", "lease owner", "lease until", "started", "resumes"],
              runs.map((run) => [run.id, run.account_id, REASON_TEXT[run.reason], run.lease_owner ?? "-", run.lease_expires_at ?? "-", run.created_at, run.resume_attempts]),
            ),
    };
  },
});
