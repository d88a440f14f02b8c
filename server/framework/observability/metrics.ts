// The framework's Prometheus metrics (inlay_app_*), in the process's one registry beside the
// platform's (server/shared/metrics-registry.ts): one scrape of the app's /metrics shows both halves in
// the embedded mode. Updated where things happen: route handlers (timedRoute), tRPC procedures, the
// chat bridge, the run ledger, the platform client's calls (its onCall hook), sign-in and embed tokens.
// Labels are bounded: route templates and procedure paths, operation templates, outcome names; never an
// id, a tenant or a person.
import type { CallReport } from "@inlay/core/platform-client";
import { addCollector, counter, gauge, histogram } from "@/server/shared/metrics-registry";

// As the platform's: a cached read to a slow model's first token.
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export const appHttpDuration = histogram({
  name: "inlay_app_http_request_duration_seconds",
  help: "The app's route handlers by route template, method and status, until the response's headers",
  labelNames: ["method", "route", "status"] as const,
  buckets: SECONDS,
});

export const trpcDuration = histogram({
  name: "inlay_app_trpc_procedure_duration_seconds",
  help: "tRPC procedures by path, type (query, mutation) and the HTTP status of their answer (one batch may carry several)",
  labelNames: ["procedure", "type", "status"] as const,
  buckets: SECONDS,
});

export const chatTurnsStarted = counter({
  name: "inlay_app_chat_turns_started_total",
  help: "Chat turns the platform accepted, by kind (new: a new run, reply: on the chat's run)",
  labelNames: ["kind"] as const,
});

export const chatTurnsRefused = counter({
  name: "inlay_app_chat_turns_refused_total",
  help: "Chat turns refused before a run, by who refused (framework: a tenant or member limit; platform) and which limit (its code)",
  labelNames: ["by", "limit"] as const,
});

export const chatStreamsOpen = gauge({
  name: "inlay_app_chat_streams_open",
  help: "Chat streams (POST and GET /api/chat) this process is serving",
});

export const chatReattaches = counter({
  name: "inlay_app_chat_reattaches_total",
  help: "GET /api/chat reattachments by outcome (streamed, nothing: 204, failed)",
  labelNames: ["outcome"] as const,
});

export const ledgerAdmissionsOpen = gauge({
  name: "inlay_app_ledger_admissions_open",
  help: "Run admissions not settled yet (the database's: every instance reports the same; read when scraped)",
});

export const ledgerSettled = counter({
  name: "inlay_app_ledger_turns_settled_total",
  help: "Turns the run ledger settled, by what told it (stream: the chat saw its run end; webhook; sweep; start or reply: the platform answered with an ended run)",
  labelNames: ["via"] as const,
});

export const ledgerSettleLag = histogram({
  name: "inlay_app_ledger_settle_lag_seconds",
  help: "From a run's end on the platform to the ledger settling its turn",
  buckets: [...SECONDS, 120, 300, 900],
});

export const ledgerSweeps = counter({
  name: "inlay_app_ledger_sweeps_total",
  help: "Passes of the run ledger's sweep by outcome (ok, failed)",
  labelNames: ["outcome"] as const,
});

export const platformCallDuration = histogram({
  name: "inlay_app_platform_call_duration_seconds",
  help: "The app's calls to the platform by operation (method and path template) and status (error: no answer; aborted by the app), retries included",
  labelNames: ["operation", "status"] as const,
  buckets: SECONDS,
});

export const signIns = counter({
  name: "inlay_app_sign_ins_total",
  help: "Sign-ins by provider and outcome (ok; failed: wrong credentials or an unverified email; refused: sign-up closed or awaiting approval)",
  labelNames: ["provider", "outcome"] as const,
});

export const embedTokenMints = counter({
  name: "inlay_app_embed_token_mints_total",
  help: "Embed token mints by outcome (ok, or why it was refused: origin_not_allowed, invalid_origin)",
  labelNames: ["outcome"] as const,
});

/** The platform client's hook (packages/core/src/platform-client ClientOptions.onCall) recording into the histogram above. */
export function recordPlatformCall(call: CallReport): void {
  platformCallDuration.observe({ operation: call.operation, status: String(call.status) }, call.seconds);
}

/** The open admissions' gauge, read from `count` at each scrape (once per process). */
export function watchLedgerAdmissions(count: () => Promise<number>): () => void {
  return addCollector(async () => ledgerAdmissionsOpen.set(await count()));
}

/**
 * A route handler whose requests are counted under `route` (its template: app/api/chat/[id] is
 * "/api/chat/[id]", never the path). A thrown error counts as 500, as Next.js answers it.
 */
export function timedRoute<Req extends Request, Rest extends unknown[]>(
  route: string,
  handler: (request: Req, ...rest: Rest) => Response | Promise<Response>,
): (request: Req, ...rest: Rest) => Promise<Response> {
  return async (request, ...rest) => {
    const end = appHttpDuration.startTimer({ method: request.method, route });
    try {
      const response = await handler(request, ...rest);
      end({ status: String(response.status) });
      return response;
    } catch (error) {
      end({ status: "500" });
      throw error;
    }
  };
}
