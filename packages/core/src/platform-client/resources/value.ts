// client.value: value tracking (/value): use cases, their observations and linked runs, confirming
// an observation, and the report. user_id goes in the body of POST /value/use-cases and in the query
// everywhere else.
import { collect, type PagePromise } from "../pagination";
import type { RequestOptions } from "../transport";
import type {
  ValueDecision,
  ValueLinkedRuns,
  ValueObservation,
  ValueObservationCreateParams,
  ValueObservationListParams,
  ValueReport,
  ValueReportParams,
  ValueUseCase,
  ValueUseCaseCreateParams,
  ValueUseCaseListParams,
  ValueUseCaseUpdateParams,
} from "../types";
import { Resource, segment } from "./resource";

const pathOfUseCase = (useCaseId: number) => `/value/use-cases/${segment(useCaseId)}`;

export class Value extends Resource {
  /** POST /value/use-cases */
  createUseCase(params: ValueUseCaseCreateParams, options?: RequestOptions): Promise<ValueUseCase> {
    return this.transport.json({ method: "POST", path: "/value/use-cases", body: params, userId: "body" }, options);
  }

  /** GET /value/use-cases: one page (newest first), or every use case of the scope when iterated. */
  listUseCases(params?: ValueUseCaseListParams, options?: RequestOptions): PagePromise<ValueUseCase> {
    return this.paged({ path: "/value/use-cases", userId: "query" }, params, options);
  }
  listAllUseCases(params?: ValueUseCaseListParams, options?: RequestOptions): Promise<ValueUseCase[]> {
    return collect(this.listUseCases(params, options));
  }

  /** GET /value/use-cases/{use_case_id} */
  getUseCase(useCaseId: number, options?: RequestOptions): Promise<ValueUseCase> {
    return this.transport.json({ method: "GET", path: pathOfUseCase(useCaseId), userId: "query" }, options);
  }

  /** PATCH /value/use-cases/{use_case_id}: name, goal, measurement_model, responsible_user_id, status. */
  updateUseCase(useCaseId: number, params: ValueUseCaseUpdateParams, options?: RequestOptions): Promise<ValueUseCase> {
    return this.transport.json({ method: "PATCH", path: pathOfUseCase(useCaseId), body: params, userId: "query" }, options);
  }

  /** POST /value/use-cases/{use_case_id}/observations: pending until confirm decides. */
  createObservation(useCaseId: number, params: ValueObservationCreateParams, options?: RequestOptions): Promise<ValueObservation> {
    return this.transport.json({ method: "POST", path: `${pathOfUseCase(useCaseId)}/observations`, body: params, userId: "query" }, options);
  }

  /** GET /value/use-cases/{use_case_id}/observations: newest first. */
  listObservations(useCaseId: number, params?: ValueObservationListParams, options?: RequestOptions): PagePromise<ValueObservation> {
    return this.paged({ path: `${pathOfUseCase(useCaseId)}/observations`, userId: "query" }, params, options);
  }

  /** POST /value/use-cases/{use_case_id}/runs: links runs of the scope (all or nothing). */
  linkRuns(useCaseId: number, runIds: number[], options?: RequestOptions): Promise<ValueLinkedRuns> {
    return this.transport.json({ method: "POST", path: `${pathOfUseCase(useCaseId)}/runs`, body: { run_ids: runIds }, userId: "query" }, options);
  }

  /** POST /value/observations/{observation_id}/confirm: confirmed counts in the report, rejected does not. */
  confirmObservation(observationId: number, decision: ValueDecision, options?: RequestOptions): Promise<ValueObservation> {
    return this.transport.json(
      { method: "POST", path: `/value/observations/${segment(observationId)}/confirm`, body: { decision }, userId: "query" },
      options,
    );
  }

  /** GET /value/report: confirmed value against the linked runs' cost over UTC days (default the last 30). */
  report(params: ValueReportParams = {}, options?: RequestOptions): Promise<ValueReport> {
    return this.transport.json({ method: "GET", path: "/value/report", query: params, userId: "query" }, options);
  }
}
