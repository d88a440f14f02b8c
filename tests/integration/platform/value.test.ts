// Value tracking over real HTTP: use cases, observations, linked runs, confirm and GET /value/report
// (its arithmetic against sim runs of known cost), every validation and limit, and isolation between
// accounts, end-users and the account level.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  VALUE_AMOUNT_MAX_USD,
  VALUE_EVIDENCE_MAX_ITEMS,
  VALUE_NAME_MAX_CHARS,
  VALUE_RUN_IDS_MAX_ITEMS,
} from "@inlay/core/schemas/value";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
let strict: Account;
let lax: Account;
let other: Account;
/** Runs of the lax account (alice's, bob's, the account level's) and of the other account, with their cost in micro-USD. */
const runs: Record<string, { id: number; cost: number }> = {};
const profiles: Record<string, number> = {};

type Query = Record<string, string | number | undefined>;

const micros = (usd: string) => Math.round(Number(usd) * 1_000_000);
const usd = (microsValue: number) => `${microsValue < 0 ? "-" : ""}${(Math.abs(microsValue) / 1_000_000).toFixed(6)}`;
const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

async function runToEnd(key: string, userId: string | undefined, message: string) {
  const query = userId === undefined ? {} : { user_id: userId };
  const agent = await platform.call("/agents", { key, query, body: { name: `Agent ${userId ?? "account"}` } });
  expect(agent.status).toBe(201);
  const started = await platform.call("/runs", {
    key,
    query,
    body: { teammate_id: agent.body.id, message, stream: false, permission_mode: "autonomous" },
  });
  expect(started.status).toBe(200);
  const run = await platform.waitForRun(key, started.body.id, ["completed", "failed", "cancelled", "awaiting_approval"], query);
  expect(run.status).toBe("completed");
  return { id: run.id as number, cost: micros(run.usage.cost_usd) };
}

beforeAll(async () => {
  platform = await startPlatform();
  strict = await platform.signup();
  lax = await platform.signup({ require_end_user_id: false });
  other = await platform.signup({ require_end_user_id: false });
  runs.alice1 = await runToEnd(lax.key, "alice", "first");
  runs.alice2 = await runToEnd(lax.key, "alice", "::words 40");
  runs.bob = await runToEnd(lax.key, "bob", "bob's run");
  runs.account = await runToEnd(lax.key, undefined, "account-level run");
  runs.theirs = await runToEnd(other.key, "alice", "someone else's");
  for (const userId of ["alice", "bob"]) {
    profiles[userId] = (await platform.call(`/users/${userId}`, { key: lax.key })).body.id;
  }
  profiles.theirAlice = (await platform.call("/users/alice", { key: other.key })).body.id;
}, 180_000);
afterAll(() => platform.close());

let counter = 0;
const freshUser = () => `value-user-${++counter}`;

async function createUseCase(key: string, body: Record<string, unknown> = {}, query: Query = {}) {
  const response = await platform.call("/value/use-cases", { key, query, body: { name: "Invoice triage", goal: "Fewer hours on invoices", ...body } });
  if (response.status !== 201) throw new Error(`POST /value/use-cases: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as { id: number; status: string; linked_run_count: number };
}

const observation = (extra: Record<string, unknown> = {}) => ({
  kind: "cost_saving",
  evidence_level: "measured",
  title: "Saved an hour",
  amount_usd: 50,
  evidence: [{ source: "external", record_id: "ticket-42" }],
  observed_at: daysAgo(1),
  ...extra,
});

async function observe(key: string, useCaseId: number, extra: Record<string, unknown> = {}, query: Query = {}) {
  const response = await platform.call(`/value/use-cases/${useCaseId}/observations`, { key, query, body: observation(extra) });
  if (response.status !== 201) throw new Error(`POST observations: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as { id: number; status: string };
}

const fieldsOf = (body: { error: { details?: { fields?: { field: string }[] } } }) =>
  (body.error.details?.fields ?? []).map((entry) => entry.field);

function expect422(response: { status: number; body: any }, field: string) {
  expect(response.status, JSON.stringify(response.body)).toBe(422);
  expect(response.body.error.type).toBe("validation_error");
  expect(response.body.error.message).toContain(field);
  // An array's element is named by its index (run_ids.0).
  const fields = fieldsOf(response.body);
  if (fields.length > 0) expect(fields.some((name) => name === field || name.startsWith(`${field}.`)), fields.join()).toBe(true);
}

function expect404(response: { status: number; body: any }) {
  expect(response.status, JSON.stringify(response.body)).toBe(404);
  expect(response.body.error.type).toBe("not_found");
}

describe("POST /value/use-cases", () => {
  it("creates a use case in an end-user's scope with every field", async () => {
    const { status, body } = await platform.call("/value/use-cases", {
      key: lax.key,
      body: {
        name: "  Invoice triage ",
        goal: "Cut the hours spent on invoices",
        measurement_model: { unit: "hours", baseline: 12 },
        responsible_user_id: profiles.alice,
        source_run_id: runs.alice1!.id,
        user_id: "alice",
      },
    });
    expect(status).toBe(201);
    expect(body).toEqual({
      id: expect.any(Number),
      name: "Invoice triage",
      goal: "Cut the hours spent on invoices",
      measurement_model: { unit: "hours", baseline: 12 },
      responsible_user_id: profiles.alice,
      source_run_id: runs.alice1!.id,
      status: "active",
      linked_run_count: 0,
      user_id: "alice",
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it("creates an account-level use case whose responsible user is any of the account's end-users", async () => {
    const created = await createUseCase(lax.key, { responsible_user_id: profiles.bob, source_run_id: runs.account!.id });
    expect(created).toMatchObject({ user_id: null, responsible_user_id: profiles.bob, measurement_model: null });
  });

  it("takes user_id from the query string, and refuses the query and the body naming different end-users", async () => {
    expect(await createUseCase(lax.key, {}, { user_id: "alice" })).toMatchObject({ user_id: "alice" });
    expect422(await platform.call("/value/use-cases", { key: lax.key, query: { user_id: "alice" }, body: { name: "x", goal: "y", user_id: "bob" } }), "user_id");
  });

  it("is 404 for a responsible user or source run out of the scope's reach", async () => {
    const cases: [Record<string, unknown>, Query][] = [
      [{ responsible_user_id: profiles.bob }, { user_id: "alice" }], // another end-user's profile
      [{ responsible_user_id: profiles.theirAlice }, {}], // another account's profile
      [{ responsible_user_id: 999_999_999 }, {}],
      [{ source_run_id: runs.bob!.id }, { user_id: "alice" }], // another end-user's run
      [{ source_run_id: runs.alice1!.id }, {}], // an end-user's run from the account level
      [{ source_run_id: runs.theirs!.id }, { user_id: "alice" }], // another account's run
    ];
    for (const [body, query] of cases) {
      expect404(await platform.call("/value/use-cases", { key: lax.key, query, body: { name: "x", goal: "y", ...body } }));
    }
  });

  it("accepts a name of exactly the limit and validates every field with 422 naming it", async () => {
    expect(await createUseCase(lax.key, { name: "n".repeat(VALUE_NAME_MAX_CHARS) })).toMatchObject({ status: "active" });
    const cases: [Record<string, unknown>, string][] = [
      [{ name: undefined }, "name"],
      [{ name: "   " }, "name"],
      [{ name: "n".repeat(VALUE_NAME_MAX_CHARS + 1) }, "name"],
      [{ goal: undefined }, "goal"],
      [{ goal: "" }, "goal"],
      [{ goal: "g".repeat(5_001) }, "goal"],
      [{ measurement_model: "hours" }, "measurement_model"],
      [{ measurement_model: { blob: "x".repeat(10_300) } }, "measurement_model"],
      [{ responsible_user_id: "alice" }, "responsible_user_id"],
      [{ responsible_user_id: 0 }, "responsible_user_id"],
      [{ responsible_user_id: 2_147_483_648 }, "responsible_user_id"],
      [{ source_run_id: 1.5 }, "source_run_id"],
      [{ user_id: "" }, "user_id"],
    ];
    for (const [patch, field] of cases) {
      expect422(await platform.call("/value/use-cases", { key: lax.key, body: { name: "ok", goal: "ok", ...patch } }), field);
    }
  });

  it("refuses the account level in strict mode (422 end_user_id_required), and a missing key (401)", async () => {
    const refused = await platform.call("/value/use-cases", { key: strict.key, body: { name: "x", goal: "y" } });
    expect(refused.status).toBe(422);
    expect(refused.body.error.error_code).toBe("end_user_id_required");
    expect((await platform.call("/value/use-cases", { key: strict.key, body: { name: "x", goal: "y", user_id: "u" } })).status).toBe(201);
    expect((await platform.call("/value/use-cases", { key: null, body: { name: "x", goal: "y" } })).status).toBe(401);
  });
});

describe("GET /value/use-cases", () => {
  it("lists the scope's use cases newest first, paged, filtered by status, and nothing of another scope", async () => {
    const user = freshUser();
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await createUseCase(lax.key, { name: `Case ${i}` }, { user_id: user })).id);
    await platform.call(`/value/use-cases/${ids[0]}`, { key: lax.key, method: "PATCH", query: { user_id: user }, body: { status: "archived" } });
    await createUseCase(lax.key, {}, { user_id: freshUser() });
    await createUseCase(other.key, {}, { user_id: user });

    const first = await platform.call("/value/use-cases", { key: lax.key, query: { user_id: user, limit: 2 } });
    expect(first.status).toBe(200);
    expect(first.body.data.map((row: { id: number }) => row.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.has_more).toBe(true);
    const second = await platform.call("/value/use-cases", { key: lax.key, query: { user_id: user, limit: 2, starting_after: ids[1] } });
    expect(second.body).toEqual({ data: [expect.objectContaining({ id: ids[0], status: "archived" })], has_more: false });
    const archived = await platform.call("/value/use-cases", { key: lax.key, query: { user_id: user, status: "archived" } });
    expect(archived.body.data.map((row: { id: number }) => row.id)).toEqual([ids[0]]);
    const active = await platform.call("/value/use-cases", { key: lax.key, query: { user_id: user, status: "active" } });
    expect(active.body.data.map((row: { id: number }) => row.id)).toEqual([ids[2], ids[1]]);
    // The account level sees none of an end-user's.
    const accountLevel = await platform.call("/value/use-cases", { key: lax.key, query: { limit: 100 } });
    expect(accountLevel.body.data.every((row: { user_id: string | null }) => row.user_id === null)).toBe(true);
  });

  it("validates status, limit and starting_after, refuses unknown parameters and strict mode without user_id", async () => {
    expect422(await platform.call("/value/use-cases", { key: lax.key, query: { status: "done" } }), "status");
    expect422(await platform.call("/value/use-cases", { key: lax.key, query: { limit: 0 } }), "limit");
    expect422(await platform.call("/value/use-cases", { key: lax.key, query: { limit: 101 } }), "limit");
    expect422(await platform.call("/value/use-cases", { key: lax.key, query: { starting_after: "x" } }), "starting_after");
    expect((await platform.call("/value/use-cases", { key: lax.key, query: { sort: "name" } })).status).toBe(400);
    const refused = await platform.call("/value/use-cases", { key: strict.key });
    expect(refused.status).toBe(422);
    expect(refused.body.error.error_code).toBe("end_user_id_required");
  });
});

describe("GET and PATCH /value/use-cases/{use_case_id}", () => {
  it("is 404 from another end-user, the account level, another account, or for an unknown id", async () => {
    const user = freshUser();
    const mine = await createUseCase(lax.key, {}, { user_id: user });
    expect((await platform.call(`/value/use-cases/${mine.id}`, { key: lax.key, query: { user_id: user } })).status).toBe(200);
    const attempts: [string, Query][] = [
      [lax.key, { user_id: freshUser() }],
      [lax.key, {}],
      [other.key, { user_id: user }],
    ];
    for (const [key, query] of attempts) {
      expect404(await platform.call(`/value/use-cases/${mine.id}`, { key, query }));
      expect404(await platform.call(`/value/use-cases/${mine.id}`, { key, query, method: "PATCH", body: { name: "stolen" } }));
    }
    expect404(await platform.call("/value/use-cases/999999999", { key: lax.key, query: { user_id: user } }));
    expect422(await platform.call("/value/use-cases/abc", { key: lax.key, query: { user_id: user } }), "use_case_id");
    expect422(await platform.call("/value/use-cases/99999999999", { key: lax.key, query: { user_id: user } }), "use_case_id");
    expect((await platform.call(`/value/use-cases/${mine.id}`, { key: lax.key, query: { user_id: user } })).body.name).toBe("Invoice triage");
  });

  it("updates name, goal, measurement_model (null clears), responsible_user_id and status", async () => {
    const created = await createUseCase(lax.key, { measurement_model: { unit: "hours" } }, { user_id: "alice" });
    const path = `/value/use-cases/${created.id}`;
    const updated = await platform.call(path, {
      key: lax.key,
      method: "PATCH",
      query: { user_id: "alice" },
      body: { name: "Renamed", goal: "New goal", responsible_user_id: profiles.alice, status: "paused" },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: "Renamed", goal: "New goal", responsible_user_id: profiles.alice, status: "paused", measurement_model: { unit: "hours" } });
    const cleared = await platform.call(path, { key: lax.key, method: "PATCH", query: { user_id: "alice" }, body: { measurement_model: null, responsible_user_id: null } });
    expect(cleared.body).toMatchObject({ measurement_model: null, responsible_user_id: null, name: "Renamed" });
    const unchanged = await platform.call(path, { key: lax.key, method: "PATCH", query: { user_id: "alice" } });
    expect(unchanged.status).toBe(200);
    expect(unchanged.body).toMatchObject({ name: "Renamed", status: "paused" });
  });

  it("answers 422 naming the field for bad values and 404 for a responsible user out of reach", async () => {
    const created = await createUseCase(lax.key, {}, { user_id: "alice" });
    const path = `/value/use-cases/${created.id}`;
    const cases: [Record<string, unknown>, string][] = [
      [{ status: "done" }, "status"],
      [{ name: "" }, "name"],
      [{ goal: 5 }, "goal"],
      [{ measurement_model: [1] }, "measurement_model"],
      [{ responsible_user_id: -1 }, "responsible_user_id"],
    ];
    for (const [body, field] of cases) expect422(await platform.call(path, { key: lax.key, method: "PATCH", query: { user_id: "alice" }, body }), field);
    expect404(await platform.call(path, { key: lax.key, method: "PATCH", query: { user_id: "alice" }, body: { responsible_user_id: profiles.bob } }));
  });
});

describe("POST and GET /value/use-cases/{use_case_id}/observations", () => {
  it("records an observation with evidence of every source, pending until decided", async () => {
    const useCase = await createUseCase(lax.key, {}, { user_id: "alice" });
    const observedAt = "2026-01-31T12:00:00+02:00";
    const { status, body } = await platform.call(`/value/use-cases/${useCase.id}/observations`, {
      key: lax.key,
      query: { user_id: "alice" },
      body: {
        kind: "time_saved",
        evidence_level: "verified",
        title: "Invoices triaged in minutes",
        amount_usd: 12.3456789,
        metric_name: "hours saved",
        metric_value: 3.5,
        metric_unit: "h",
        evidence: [
          { source: "run", record_id: runs.alice1!.id },
          { source: "run", record_id: String(runs.alice2!.id), note: "the second run" },
          { source: "tool_result", record_id: "call_1", run_id: runs.alice1!.id },
          { source: "external", record_id: "JIRA-7", url: "https://tracker.example/JIRA-7" },
        ],
        source_run_id: runs.alice2!.id,
        observed_at: observedAt,
      },
    });
    expect(status).toBe(201);
    expect(body).toEqual({
      id: expect.any(Number),
      use_case_id: useCase.id,
      kind: "time_saved",
      evidence_level: "verified",
      title: "Invoices triaged in minutes",
      amount_usd: 12.345679,
      metric_name: "hours saved",
      metric_value: 3.5,
      metric_unit: "h",
      evidence: [
        { source: "run", record_id: runs.alice1!.id },
        { source: "run", record_id: runs.alice2!.id, note: "the second run" },
        { source: "tool_result", record_id: "call_1", run_id: runs.alice1!.id },
        { source: "external", record_id: "JIRA-7", url: "https://tracker.example/JIRA-7" },
      ],
      source_run_id: runs.alice2!.id,
      observed_at: "2026-01-31T10:00:00.000Z",
      status: "pending",
      decided_at: null,
      decided_by_key_id: null,
      user_id: "alice",
      created_at: expect.any(String),
    });
  });

  it("validates every field and limit with 422 naming it", async () => {
    const useCase = await createUseCase(lax.key, {}, { user_id: "alice" });
    const path = `/value/use-cases/${useCase.id}/observations`;
    const evidence = (entry: Record<string, unknown>) => ({ evidence: [entry] });
    const cases: [Record<string, unknown>, string][] = [
      [{ kind: undefined }, "kind"],
      [{ kind: "savings" }, "kind"],
      [{ evidence_level: undefined }, "evidence_level"],
      [{ evidence_level: "anecdotal" }, "evidence_level"],
      [{ title: undefined }, "title"],
      [{ title: " " }, "title"],
      [{ title: "t".repeat(256) }, "title"],
      [{ amount_usd: "50" }, "amount_usd"],
      [{ amount_usd: VALUE_AMOUNT_MAX_USD + 1 }, "amount_usd"],
      [{ amount_usd: -VALUE_AMOUNT_MAX_USD - 1 }, "amount_usd"],
      [{ metric_value: 3 }, "metric_name"],
      [{ metric_unit: "h" }, "metric_name"],
      [{ metric_name: "x", metric_value: "3" }, "metric_value"],
      [{ metric_name: "x", metric_unit: "u".repeat(65) }, "metric_unit"],
      [{ evidence: undefined }, "evidence"],
      [{ evidence: [] }, "evidence"],
      [{ evidence: "run 1" }, "evidence"],
      [{ evidence: Array.from({ length: VALUE_EVIDENCE_MAX_ITEMS + 1 }, (_, i) => ({ source: "external", record_id: `r${i}` })) }, "evidence"],
      [evidence({ source: "email", record_id: "1" }), "evidence.0.source"],
      [evidence({ source: "external" }), "evidence.0.record_id"],
      [evidence({ source: "external", record_id: "" }), "evidence.0.record_id"],
      [evidence({ source: "run", record_id: "abc" }), "evidence.0.record_id"],
      [evidence({ source: "run", record_id: "9999999999" }), "evidence.0.record_id"],
      [evidence({ source: "run", record_id: 9_999_999_999 }), "evidence.0.record_id"],
      [evidence({ source: "document", record_id: 1.5 }), "evidence.0.record_id"],
      [evidence({ source: "tool_result", record_id: "call_1" }), "evidence.0.run_id"],
      [evidence({ source: "external", record_id: "x", run_id: runs.alice1!.id }), "evidence.0.run_id"],
      [evidence({ source: "external", record_id: "x", url: "ftp://files.example/x" }), "evidence.0.url"],
      [{ source_run_id: "1" }, "source_run_id"],
      [{ observed_at: undefined }, "observed_at"],
      [{ observed_at: "2026-01-31" }, "observed_at"],
      [{ observed_at: "yesterday" }, "observed_at"],
      [{ observed_at: new Date(Date.now() + 86_400_000).toISOString() }, "observed_at"],
    ];
    for (const [patch, field] of cases) {
      expect422(await platform.call(path, { key: lax.key, query: { user_id: "alice" }, body: observation(patch) }), field);
    }
    // Exactly the limits are accepted.
    await observe(lax.key, useCase.id, {
      amount_usd: -VALUE_AMOUNT_MAX_USD,
      title: "t".repeat(255),
      evidence: Array.from({ length: VALUE_EVIDENCE_MAX_ITEMS }, (_, i) => ({ source: "external", record_id: `r${i}` })),
    }, { user_id: "alice" });
    const listed = await platform.call(path, { key: lax.key, query: { user_id: "alice" } });
    expect(listed.body.data).toHaveLength(1);
  });

  it("is 404 for evidence, a source run or a use case out of the scope's reach", async () => {
    const useCase = await createUseCase(lax.key, {}, { user_id: "alice" });
    const path = `/value/use-cases/${useCase.id}/observations`;
    const foreign: Record<string, unknown>[] = [
      { evidence: [{ source: "run", record_id: runs.bob!.id }] },
      { evidence: [{ source: "run", record_id: runs.theirs!.id }] },
      { evidence: [{ source: "run", record_id: runs.account!.id }] },
      { evidence: [{ source: "tool_result", record_id: "call_1", run_id: runs.bob!.id }] },
      { evidence: [{ source: "document", record_id: 999_999 }] },
      { source_run_id: runs.theirs!.id },
    ];
    for (const patch of foreign) expect404(await platform.call(path, { key: lax.key, query: { user_id: "alice" }, body: observation(patch) }));
    for (const [key, query] of [[lax.key, { user_id: "bob" }], [lax.key, {}], [other.key, { user_id: "alice" }]] as const) {
      expect404(await platform.call(path, { key, query, body: observation() }));
      expect404(await platform.call(path, { key, query }));
    }
    const listed = await platform.call(path, { key: lax.key, query: { user_id: "alice" } });
    expect(listed.body).toEqual({ data: [], has_more: false });
  });

  it("takes user_id in the body of every POST and PATCH as well, and refuses it disagreeing with the query string", async () => {
    const useCase = await createUseCase(lax.key, {}, { user_id: "alice" });
    const created = await platform.call(`/value/use-cases/${useCase.id}/observations`, { key: lax.key, body: observation({ user_id: "alice" }) });
    expect(created.status).toBe(201);
    const linked = await platform.call(`/value/use-cases/${useCase.id}/runs`, { key: lax.key, body: { run_ids: [runs.alice1!.id], user_id: "alice" } });
    expect(linked.body.added).toBe(1);
    const patched = await platform.call(`/value/use-cases/${useCase.id}`, { key: lax.key, method: "PATCH", body: { name: "Via body", user_id: "alice" } });
    expect(patched.body.name).toBe("Via body");
    const confirmed = await platform.call(`/value/observations/${created.body.id}/confirm`, { key: lax.key, body: { decision: "confirmed", user_id: "alice" } });
    expect(confirmed.body.status).toBe("confirmed");
    expect422(
      await platform.call(`/value/use-cases/${useCase.id}/observations`, { key: lax.key, query: { user_id: "alice" }, body: observation({ user_id: "bob" }) }),
      "user_id",
    );
    expect422(
      await platform.call(`/value/use-cases/${useCase.id}/runs`, { key: lax.key, query: { user_id: "bob" }, body: { run_ids: [runs.alice1!.id], user_id: "alice" } }),
      "user_id",
    );
  });

  it("lists newest first with paging", async () => {
    const useCase = await createUseCase(lax.key, {}, { user_id: "alice" });
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await observe(lax.key, useCase.id, { title: `Obs ${i}` }, { user_id: "alice" })).id);
    const path = `/value/use-cases/${useCase.id}/observations`;
    const first = await platform.call(path, { key: lax.key, query: { user_id: "alice", limit: 2 } });
    expect(first.body.data.map((row: { id: number }) => row.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.has_more).toBe(true);
    const second = await platform.call(path, { key: lax.key, query: { user_id: "alice", limit: 2, starting_after: ids[1] } });
    expect(second.body.data.map((row: { id: number }) => row.id)).toEqual([ids[0]]);
    expect(second.body.has_more).toBe(false);
    expect422(await platform.call(path, { key: lax.key, query: { user_id: "alice", limit: 101 } }), "limit");
  });

  it("refuses observations on an archived use case (409 use_case_archived) and takes them again once active", async () => {
    const useCase = await createUseCase(lax.key, {}, { user_id: "alice" });
    const path = `/value/use-cases/${useCase.id}`;
    await platform.call(path, { key: lax.key, method: "PATCH", query: { user_id: "alice" }, body: { status: "archived" } });
    const refused = await platform.call(`${path}/observations`, { key: lax.key, query: { user_id: "alice" }, body: observation() });
    expect(refused.status).toBe(409);
    expect(refused.body.error.error_code).toBe("use_case_archived");
    await platform.call(path, { key: lax.key, method: "PATCH", query: { user_id: "alice" }, body: { status: "active" } });
    expect((await observe(lax.key, useCase.id, {}, { user_id: "alice" })).status).toBe("pending");
  });
});

describe("POST /value/use-cases/{use_case_id}/runs", () => {
  it("links runs of the scope once each and counts them", async () => {
    const useCase = await createUseCase(lax.key, {}, { user_id: "alice" });
    const path = `/value/use-cases/${useCase.id}/runs`;
    const [a, b] = [runs.alice1!.id, runs.alice2!.id];
    const linked = await platform.call(path, { key: lax.key, query: { user_id: "alice" }, body: { run_ids: [b, a, b] } });
    expect(linked.status).toBe(200);
    expect(linked.body).toEqual({ use_case_id: useCase.id, run_ids: [a, b], added: 2, linked_run_count: 2 });
    const again = await platform.call(path, { key: lax.key, query: { user_id: "alice" }, body: { run_ids: [a] } });
    expect(again.body).toEqual({ use_case_id: useCase.id, run_ids: [a], added: 0, linked_run_count: 2 });
    expect((await platform.call(`/value/use-cases/${useCase.id}`, { key: lax.key, query: { user_id: "alice" } })).body.linked_run_count).toBe(2);
  });

  it("is 404 for a run of another end-user, the account level or another account, and then links nothing", async () => {
    const useCase = await createUseCase(lax.key, {}, { user_id: "alice" });
    const path = `/value/use-cases/${useCase.id}/runs`;
    for (const foreign of [runs.bob!.id, runs.account!.id, runs.theirs!.id, 999_999_999]) {
      expect404(await platform.call(path, { key: lax.key, query: { user_id: "alice" }, body: { run_ids: [runs.alice1!.id, foreign] } }));
    }
    expect((await platform.call(`/value/use-cases/${useCase.id}`, { key: lax.key, query: { user_id: "alice" } })).body.linked_run_count).toBe(0);
    for (const [key, query] of [[lax.key, { user_id: "bob" }], [lax.key, {}], [other.key, { user_id: "alice" }]] as const) {
      expect404(await platform.call(path, { key, query, body: { run_ids: [runs.alice1!.id] } }));
    }
  });

  it("validates run_ids (422) and refuses an archived use case (409)", async () => {
    const useCase = await createUseCase(lax.key, {}, { user_id: "alice" });
    const path = `/value/use-cases/${useCase.id}/runs`;
    const cases: unknown[] = [undefined, [], "1", [0], ["x"], [1.5], [2_147_483_648], Array.from({ length: VALUE_RUN_IDS_MAX_ITEMS + 1 }, (_, i) => i + 1)];
    for (const runIds of cases) expect422(await platform.call(path, { key: lax.key, query: { user_id: "alice" }, body: { run_ids: runIds } }), "run_ids");
    await platform.call(`/value/use-cases/${useCase.id}`, { key: lax.key, method: "PATCH", query: { user_id: "alice" }, body: { status: "archived" } });
    const refused = await platform.call(path, { key: lax.key, query: { user_id: "alice" }, body: { run_ids: [runs.alice1!.id] } });
    expect(refused.status).toBe(409);
    expect(refused.body.error.error_code).toBe("use_case_archived");
  });
});

describe("POST /value/observations/{observation_id}/confirm", () => {
  it("records the decision with who and when; the same decision again is harmless, the other is 409", async () => {
    const useCase = await createUseCase(lax.key, {}, { user_id: "alice" });
    const created = await observe(lax.key, useCase.id, {}, { user_id: "alice" });
    const path = `/value/observations/${created.id}/confirm`;
    const confirmed = await platform.call(path, { key: lax.key, query: { user_id: "alice" }, body: { decision: "confirmed" } });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ id: created.id, status: "confirmed", decided_by_key_id: expect.any(Number) });
    expect(Date.parse(confirmed.body.decided_at)).not.toBeNaN();
    const repeated = await platform.call(path, { key: lax.key, query: { user_id: "alice" }, body: { decision: "confirmed" } });
    expect(repeated.body).toEqual(confirmed.body);
    const flipped = await platform.call(path, { key: lax.key, query: { user_id: "alice" }, body: { decision: "rejected" } });
    expect(flipped.status).toBe(409);
    expect(flipped.body.error.error_code).toBe("observation_already_decided");

    const second = await observe(lax.key, useCase.id, {}, { user_id: "alice" });
    const rejected = await platform.call(`/value/observations/${second.id}/confirm`, { key: lax.key, query: { user_id: "alice" }, body: { decision: "rejected" } });
    expect(rejected.body.status).toBe("rejected");
  });

  it("validates decision and is 404 from another end-user, the account level or another account", async () => {
    const useCase = await createUseCase(lax.key, {}, { user_id: "alice" });
    const created = await observe(lax.key, useCase.id, {}, { user_id: "alice" });
    const path = `/value/observations/${created.id}/confirm`;
    for (const decision of [undefined, "approve", "", 1]) {
      expect422(await platform.call(path, { key: lax.key, query: { user_id: "alice" }, body: { decision } }), "decision");
    }
    for (const [key, query] of [[lax.key, { user_id: "bob" }], [lax.key, {}], [other.key, { user_id: "alice" }]] as const) {
      expect404(await platform.call(path, { key, query, body: { decision: "confirmed" } }));
    }
    expect404(await platform.call("/value/observations/999999999/confirm", { key: lax.key, query: { user_id: "alice" }, body: { decision: "confirmed" } }));
    expect422(await platform.call("/value/observations/99999999999/confirm", { key: lax.key, query: { user_id: "alice" }, body: { decision: "confirmed" } }), "observation_id");
    const listed = await platform.call(`/value/use-cases/${useCase.id}/observations`, { key: lax.key, query: { user_id: "alice" } });
    expect(listed.body.data[0].status).toBe("pending");
  });
});

describe("GET /value/report", () => {
  it("sets confirmed value against the linked runs' cost, per use case and in total", async () => {
    const user = "alice";
    // Alice's runs belong to her; a fresh pair of use cases in her scope on a fresh account would
    // need fresh runs, so this test reads only the use cases it creates (the report lists all).
    const triage = await createUseCase(lax.key, { name: "Report triage" }, { user_id: user });
    const drafting = await createUseCase(lax.key, { name: "Report drafting" }, { user_id: user });
    await platform.call(`/value/use-cases/${triage.id}/runs`, { key: lax.key, query: { user_id: user }, body: { run_ids: [runs.alice1!.id, runs.alice2!.id] } });
    await platform.call(`/value/use-cases/${drafting.id}/runs`, { key: lax.key, query: { user_id: user }, body: { run_ids: [runs.alice1!.id] } });
    const decide = async (extra: Record<string, unknown>, decision?: string) => {
      const created = await observe(lax.key, triage.id, extra, { user_id: user });
      if (decision) await platform.call(`/value/observations/${created.id}/confirm`, { key: lax.key, query: { user_id: user }, body: { decision } });
    };
    await decide({ amount_usd: 100.5, evidence_level: "measured" }, "confirmed");
    await decide({ amount_usd: 20.25, evidence_level: "self_reported" }, "confirmed");
    await decide({ amount_usd: 0.000001, evidence_level: "verified" }, "confirmed");
    await decide({ amount_usd: 7 }); // pending: shown, not counted
    await decide({ amount_usd: 3 }, "rejected");
    await decide({ metric_name: "tickets", metric_value: 4, amount_usd: undefined }, "confirmed"); // no amount
    await decide({ amount_usd: 1_000, observed_at: daysAgo(45) }, "confirmed"); // before the default range

    const { status, body } = await platform.call("/value/report", { key: lax.key, query: { user_id: user } });
    expect(status).toBe(200);
    expect(body.end_date).toBe(today());
    expect(body.start_date).toBe(new Date(Date.parse(`${today()}T00:00:00Z`) - 29 * 86_400_000).toISOString().slice(0, 10));
    expect(body.user_id).toBe(user);
    const value = 100_500_000 + 20_250_000 + 1;
    const cost = runs.alice1!.cost + runs.alice2!.cost;
    expect(runs.alice1!.cost).toBeGreaterThan(0);
    const row = body.use_cases.find((entry: { use_case_id: number }) => entry.use_case_id === triage.id);
    expect(row).toEqual({
      use_case_id: triage.id,
      name: "Report triage",
      status: "active",
      confirmed_value_usd: usd(value),
      confirmed_value_micros: value,
      pending_value_usd: usd(7_000_000),
      rejected_value_usd: usd(3_000_000),
      value_by_evidence_level: { self_reported: usd(20_250_000), measured: usd(100_500_000), verified: usd(1) },
      observation_counts: { pending: 1, confirmed: 4, rejected: 1 },
      run_count: 2,
      cost_usd: usd(cost),
      cost_micros: cost,
      net_usd: usd(value - cost),
      net_micros: value - cost,
      value_to_cost_ratio: Math.floor((value * 10_000) / cost) / 10_000,
    });
    const draftingRow = body.use_cases.find((entry: { use_case_id: number }) => entry.use_case_id === drafting.id);
    expect(draftingRow).toMatchObject({
      confirmed_value_micros: 0,
      run_count: 1,
      cost_micros: runs.alice1!.cost,
      net_micros: -runs.alice1!.cost,
      value_to_cost_ratio: 0,
      observation_counts: { pending: 0, confirmed: 0, rejected: 0 },
    });
    // The totals are the sums over alice's use cases, a run linked twice counted once.
    const sum = (field: string) => body.use_cases.reduce((total: number, entry: Record<string, number>) => total + entry[field]!, 0);
    expect(body.totals.confirmed_value_micros).toBe(sum("confirmed_value_micros"));
    expect(body.totals.cost_micros).toBe(cost);
    expect(body.totals.run_count).toBe(2);
    expect(body.totals.net_micros).toBe(body.totals.confirmed_value_micros - cost);

    // A range that holds the old observation but not today's runs or observations.
    const old = await platform.call("/value/report", {
      key: lax.key,
      query: { user_id: user, start_date: daysAgo(50).slice(0, 10), end_date: daysAgo(40).slice(0, 10) },
    });
    const oldRow = old.body.use_cases.find((entry: { use_case_id: number }) => entry.use_case_id === triage.id);
    expect(oldRow).toMatchObject({ confirmed_value_micros: 1_000_000_000, cost_micros: 0, run_count: 0, value_to_cost_ratio: null, net_micros: 1_000_000_000 });
  });

  it("reports one scope: another end-user, the account level and another account see none of alice's", async () => {
    const bobCase = await createUseCase(lax.key, { name: "Bob's" }, { user_id: "bob" });
    await platform.call(`/value/use-cases/${bobCase.id}/runs`, { key: lax.key, query: { user_id: "bob" }, body: { run_ids: [runs.bob!.id] } });
    const bob = await platform.call("/value/report", { key: lax.key, query: { user_id: "bob" } });
    expect(bob.body.use_cases.every((entry: { name: string }) => !entry.name.startsWith("Report"))).toBe(true);
    expect(bob.body.use_cases.find((entry: { use_case_id: number }) => entry.use_case_id === bobCase.id)).toMatchObject({ cost_micros: runs.bob!.cost });
    expect(bob.body.totals.cost_micros).toBe(runs.bob!.cost);
    const accountLevel = await platform.call("/value/report", { key: lax.key });
    expect(accountLevel.body.user_id).toBeNull();
    expect(accountLevel.body.use_cases.map((entry: { use_case_id: number }) => entry.use_case_id)).not.toContain(bobCase.id);
    const theirs = await platform.call("/value/report", { key: other.key, query: { user_id: "alice" } });
    expect(theirs.status).toBe(200);
    expect(theirs.body.use_cases.every((entry: { name: string }) => !entry.name.startsWith("Report"))).toBe(true);
    expect(theirs.body.totals.cost_micros).toBe(0);
  });

  it("validates the dates, refuses unknown parameters and strict mode without user_id", async () => {
    expect422(await platform.call("/value/report", { key: lax.key, query: { start_date: "2026-02-30" } }), "start_date");
    expect422(await platform.call("/value/report", { key: lax.key, query: { end_date: "26-01-01" } }), "end_date");
    expect422(await platform.call("/value/report", { key: lax.key, query: { start_date: "2026-02-02", end_date: "2026-02-01" } }), "start_date");
    expect422(await platform.call("/value/report", { key: lax.key, query: { start_date: "2024-01-01", end_date: "2025-01-01" } }), "start_date");
    const fullYear = await platform.call("/value/report", { key: lax.key, query: { start_date: "2024-01-01", end_date: "2024-12-31" } });
    expect(fullYear.status).toBe(200);
    expect((await platform.call("/value/report", { key: lax.key, query: { teammate_id: 1 } })).status).toBe(400);
    const refused = await platform.call("/value/report", { key: strict.key });
    expect(refused.status).toBe(422);
    expect(refused.body.error.error_code).toBe("end_user_id_required");
    expect((await platform.call("/value/report", { key: null })).status).toBe(401);
  });
});

describe("GET /account/export", () => {
  it("carries the account's use cases, their linked runs and observations", async () => {
    const account = await platform.signup({ require_end_user_id: false });
    const useCase = await createUseCase(account.key, { name: "Exported" }, { user_id: "eve" });
    const created = await observe(account.key, useCase.id, {}, { user_id: "eve" });
    const { body } = await platform.call("/account/export", { key: account.key });
    expect(body.value_use_cases).toEqual([expect.objectContaining({ id: useCase.id, name: "Exported", user_id: "eve", run_ids: [] })]);
    expect(body.value_observations).toEqual([expect.objectContaining({ id: created.id, use_case_id: useCase.id, user_id: "eve", status: "pending" })]);
  });
});

describe("GET /openapi.json", () => {
  it("documents the value operations", async () => {
    const { body } = await platform.call("/openapi.json");
    for (const path of [
      "/value/use-cases",
      "/value/use-cases/{use_case_id}",
      "/value/use-cases/{use_case_id}/observations",
      "/value/use-cases/{use_case_id}/runs",
      "/value/observations/{observation_id}/confirm",
      "/value/report",
    ]) {
      expect(body.paths[path], path).toBeDefined();
    }
  });
});
