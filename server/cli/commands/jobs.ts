// jobs failed: jobs whose every retry failed, for the operator to look at.
import { listFailedJobs } from "@/server/platform/infrastructure/job-queue";
import { count } from "../args";
import { command, str } from "../command";
import { oneLine, table } from "../output";

export const failedJobs = command({
  name: "jobs failed",
  usage: "[--name JOB] [--limit 50]",
  summary: "List jobs that failed for good (every retry spent), newest first",
  details: "The job queue keeps a finished job for 7 days: this reaches back that far. Webhook attempts that gave up are\nalso in `webhooks dead`.",
  options: {
    name: { type: "string", value: "JOB", description: "only jobs of this name (e.g. webhook-attempt, trigger-fire)" },
    limit: { type: "string", value: "N", description: "at most this many (default 50)" },
  },
  parse: ({ values }) => ({ name: str(values.name), limit: count("limit", str(values.limit) ?? "50", 1, 10_000) }),
  async run(ctx, input) {
    const jobs = await listFailedJobs(ctx.database, input);
    return {
      json: jobs,
      text:
        jobs.length === 0
          ? "no failed jobs"
          : table(
              ["job", "id", "failed at", "retries", "error", "data"],
              jobs.map((job) => [job.name, job.id, job.failedAt?.toISOString() ?? "-", job.retryCount, oneLine(job.error ?? "-", 80), oneLine(JSON.stringify(job.data ?? null), 60)]),
            ),
    };
  },
});
