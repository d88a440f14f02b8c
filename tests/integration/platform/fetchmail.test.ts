// fetchmail (POST/DELETE /agents/{id}/fetchmail) against a real IMAP server: a private Dovecot
// (tests/helpers/dovecot.ts). Mail put into the mailbox after fetchmail is on starts one run of the
// agent per message, with the text an inbox's mail gives (HTML-only mail as text); more polls, a poll
// job run twice, a copy with the same Message-ID and a claim left by a dead process start nothing
// more; DELETE stops it; bad credentials and blocked hosts are a clear 422; a foreign agent is 404.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FETCHMAIL_POLL_JOB } from "@/server/platform/services/messaging/fetchmail";
import { startDovecot, type Dovecot, type DovecotUser } from "../../helpers/dovecot";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { pollFor, pollUntil, waitForRun } from "../../helpers/poll";

let platform: PlatformHarness;
let dovecot: Dovecot;
let account: Account;
let other: Account;

const bob: DovecotUser = { name: "bob", password: "bob-imap-pass-7781" };
const carol: DovecotUser = { name: "carol", password: "carol-imap-pass-5512" };
const prisma = () => platform.database.prisma;

beforeAll(async () => {
  dovecot = await startDovecot([bob, carol]);
  // Polls every second; jobs looked for every half second.
  platform = await startPlatform({ jobPollSeconds: 0.5, email: { fetchmailPollSeconds: 1 } });
  account = await platform.signup({ require_end_user_id: false });
  other = await platform.signup({ require_end_user_id: false });
}, 60_000);
afterAll(async () => {
  if (platform) {
    // No poll left in flight when the platform closes its pool: the mailboxes go (a poll of a removed
    // mailbox ends at once and enqueues no next one), then the running polls are waited for.
    await platform.database.prisma.platformFetchmailMailbox.deleteMany();
    await pollUntil(
      async () => (await platform.database.prisma.$queryRawUnsafe<{ count: number }[]>(`SELECT count(*)::int AS count FROM pgboss.job WHERE name = $1 AND state = 'active'`, FETCHMAIL_POLL_JOB))[0]?.count ?? 0,
      (active) => active === 0,
      "the running mailbox polls",
    );
  }
  await platform?.close();
  await dovecot?.close();
});

async function newAgent(options: { key?: string; userId?: string } = {}) {
  const response = await platform.call("/agents", {
    key: options.key ?? account.key,
    query: options.userId ? { user_id: options.userId } : {},
    body: { name: "Mailbox Reader", default_permission_mode: "autonomous" },
  });
  if (response.status !== 201) throw new Error(`POST /agents: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as { id: number };
}

const mailboxBody = (user: DovecotUser, extra: Record<string, unknown> = {}) => ({
  host: dovecot.host,
  port: dovecot.port,
  tls: false,
  username: user.name,
  password: user.password,
  ...extra,
});

const fetchmail = (agentId: number, method: "POST" | "DELETE", body?: Record<string, unknown>, options: { key?: string | null; userId?: string } = {}) =>
  platform.call(`/agents/${agentId}/fetchmail`, {
    method,
    key: options.key === undefined ? account.key : options.key,
    query: options.userId ? { user_id: options.userId } : {},
    ...(body ? { body } : {}),
  });

const mail = (headers: Record<string, string>, body: string, contentType = "text/plain; charset=utf-8") =>
  [...Object.entries(headers).map(([name, value]) => `${name}: ${value}`), `Content-Type: ${contentType}`, "MIME-Version: 1.0", "", body, ""].join("\r\n");

const runsOf = (agentId: number) => prisma().platformRun.findMany({ where: { agentId }, orderBy: { id: "asc" } });
const finished = (runId: number) => waitForRun((id) => prisma().platformRun.findUnique({ where: { id } }), runId, ["completed", "failed", "cancelled"]);
const mailboxRow = (agentId: number) => prisma().platformFetchmailMailbox.findUnique({ where: { agentId } });

/** Waits for `count` more completed polls of the agent's mailbox (last_polled_at moving on). */
async function polls(agentId: number, count: number) {
  for (let i = 0; i < count; i++) {
    const before = (await mailboxRow(agentId))?.lastPolledAt?.getTime() ?? 0;
    await pollFor(async () => ((await mailboxRow(agentId))?.lastPolledAt?.getTime() ?? 0) > before, `poll ${i + 1} of agent ${agentId}'s mailbox`);
  }
}

describe("POST /agents/{id}/fetchmail", () => {
  it("starts one run per new message with the message's text, exactly once", async () => {
    // Mail already there when fetchmail is turned on is not taken.
    await dovecot.append(bob, mail({ From: "old@example.org", Subject: "Before", "Message-ID": "<before.1@example.org>" }, "old mail"));
    const agent = await newAgent();
    const on = await fetchmail(agent.id, "POST", mailboxBody(bob));
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect(on.body).toMatchObject({
      id: agent.id,
      fetchmail: true,
      fetchmail_mailbox: { host: "127.0.0.1", port: dovecot.port, tls: false, username: "bob", mailbox: "INBOX", last_error: null },
    });
    expect(JSON.stringify(on.body)).not.toContain(bob.password);
    const stored = await mailboxRow(agent.id);
    expect(stored!.passwordSealed).not.toContain(bob.password);
    expect((await platform.call(`/agents/${agent.id}`, { key: account.key })).body.fetchmail).toBe(true);

    await dovecot.append(bob, mail({ From: "Alice <alice@example.org>", Subject: "Plain question", "Message-ID": "<plain.1@example.org>" }, "What is the plan for Tuesday?"));
    await dovecot.append(
      bob,
      mail({ From: "dan@example.org", Subject: "Styled", "Message-ID": "<html.1@example.org>" }, "<html><body><p>Hello <b>there</b></p><script>evil()</script><p>Second line</p></body></html>", "text/html; charset=utf-8"),
    );
    const runs = await pollUntil(() => runsOf(agent.id), (rows) => rows.length >= 2, "two runs from the mailbox");
    const [plain, html] = await Promise.all(runs.map((run) => finished(run.id)));
    expect(plain).toMatchObject({ status: "completed", metadata: { source: "fetchmail" } });
    expect(plain!.output).toContain("From: alice@example.org\nSubject: Plain question\n\nWhat is the plan for Tuesday?");
    expect(html!.output).toContain("From: dan@example.org\nSubject: Styled");
    expect(html!.output).toContain("Hello there");
    expect(html!.output).toContain("Second line");
    expect(html!.output).not.toContain("evil()");
    expect(html!.output).not.toContain("<p>");

    // More polls, a copy of a message (same Message-ID, new UID), the poll job run twice at once:
    // nothing new starts.
    await dovecot.append(bob, mail({ From: "Alice <alice@example.org>", Subject: "Plain question", "Message-ID": "<plain.1@example.org>" }, "What is the plan for Tuesday?"));
    await polls(agent.id, 2);
    const box = (await mailboxRow(agent.id))!;
    const jobs = (await platform.runtime()).jobs;
    const data = { agentId: agent.id, revision: box.revision, at: new Date().toISOString() };
    await Promise.all([jobs.enqueue(FETCHMAIL_POLL_JOB, data, { key: "twin-a" }), jobs.enqueue(FETCHMAIL_POLL_JOB, data, { key: "twin-b" })]);
    await polls(agent.id, 2);
    expect((await runsOf(agent.id)).length).toBe(2);
    const taken = await prisma().platformFetchmailMessage.findMany({ where: { agentId: agent.id }, orderBy: { uid: "asc" } });
    expect(taken.map((row) => [row.status, row.messageId])).toEqual([
      ["started", "<plain.1@example.org>"],
      ["started", "<html.1@example.org>"],
    ]);
    expect(taken.map((row) => row.runId)).toEqual(runs.map((run) => run.id));
  });

  it("does not start a message a dead process had claimed, and ignores automatic mail", async () => {
    const agent = await newAgent();
    expect((await fetchmail(agent.id, "POST", mailboxBody(carol))).status).toBe(200);
    const box = (await mailboxRow(agent.id))!;
    // A poll that died after claiming the next message and before its run started.
    await prisma().platformFetchmailMessage.create({
      data: { accountId: account.id, agentId: agent.id, uidValidity: box.uidValidity, uid: box.lastUid + 1n, messageId: "<claimed.1@example.org>", status: "starting" },
    });
    await dovecot.append(carol, mail({ From: "erin@example.org", Subject: "Claimed", "Message-ID": "<claimed.1@example.org>" }, "claimed already"));
    await dovecot.append(carol, mail({ From: "bot@example.org", Subject: "Out of office", "Message-ID": "<auto.1@example.org>", "Auto-Submitted": "auto-replied" }, "away"));
    await dovecot.append(carol, mail({ From: "erin@example.org", Subject: "Fresh", "Message-ID": "<fresh.1@example.org>" }, "a fresh one"));
    const [run] = await pollUntil(() => runsOf(agent.id), (rows) => rows.length >= 1, "the fresh message's run");
    expect((await finished(run!.id)).output).toContain("Subject: Fresh");
    await polls(agent.id, 2);
    expect((await runsOf(agent.id)).length).toBe(1);
    const rows = await prisma().platformFetchmailMessage.findMany({ where: { agentId: agent.id }, orderBy: { uid: "asc" } });
    expect(rows.map((row) => row.status)).toEqual(["starting", "ignored", "started"]);
    expect((await mailboxRow(agent.id))!.lastUid).toBe(box.lastUid + 3n);
  });

  it("answers 422 naming the problem for bad credentials, a closed port, a blocked host or a missing field", async () => {
    const agent = await newAgent();
    const wrong = await fetchmail(agent.id, "POST", mailboxBody(bob, { password: "not-the-password" }));
    expect(wrong.status).toBe(422);
    expect(wrong.body.error).toMatchObject({ type: "validation_error", error_code: "fetchmail_login_failed", details: { field: "password" } });
    expect(wrong.body.error.message).toMatch(new RegExp(`^fetchmail: the IMAP server 127\\.0\\.0\\.1:${dovecot.port} refused the login of bob`));
    expect(wrong.body.error.message).not.toContain("not-the-password");

    const closed = await fetchmail(agent.id, "POST", mailboxBody(bob, { port: 1 }));
    expect(closed.status).toBe(422);
    expect(closed.body.error).toMatchObject({ error_code: "fetchmail_connection_failed", details: { field: "host" } });

    const blocked = await fetchmail(agent.id, "POST", mailboxBody(bob, { host: "10.1.2.3" }));
    expect(blocked.status).toBe(422);
    expect(blocked.body.error).toMatchObject({ error_code: "fetchmail_blocked_address", message: "fetchmail: 10.1.2.3 is a private address" });

    const noMailbox = await fetchmail(agent.id, "POST", mailboxBody(bob, { mailbox: "Nowhere" }));
    expect(noMailbox.status).toBe(422);
    expect(noMailbox.body.error).toMatchObject({ error_code: "fetchmail_no_mailbox", details: { field: "mailbox" } });

    const missing = await fetchmail(agent.id, "POST", { username: "bob", password: "x" });
    expect(missing.status).toBe(422);
    expect(missing.body.error.message).toMatch(/host/);
    expect(missing.body.error.details.fields.map((field: { field: string }) => field.field)).toEqual(["host"]);

    // The spec's form, user_id alone, on an agent with no mailbox yet: the fields that would give it one.
    for (const body of [undefined, {}]) {
      const bare = await fetchmail(agent.id, "POST", body);
      expect(bare.status).toBe(422);
      expect(bare.body.error).toMatchObject({ type: "validation_error", error_code: "fetchmail_mailbox_required" });
      expect(bare.body.error.message).toContain("host, username, password");
      expect(bare.body.error.details.fields.map((field: { field: string }) => field.field)).toEqual(["host", "username", "password"]);
    }

    expect(await mailboxRow(agent.id)).toBeNull();
    expect((await platform.call(`/agents/${agent.id}`, { key: account.key })).body.fetchmail).toBe(false);
  });

  it("is 404 for another account's or end-user's agent, and 401 without a key", async () => {
    const owner = "fetchmail-owner";
    const agent = await newAgent({ userId: owner });
    for (const method of ["POST", "DELETE"] as const) {
      const body = method === "POST" ? mailboxBody(bob) : undefined;
      expect((await fetchmail(agent.id, method, body, { key: other.key })).status).toBe(404);
      expect((await fetchmail(agent.id, method, body, { key: other.key, userId: owner })).status).toBe(404);
      expect((await fetchmail(agent.id, method, body, { userId: "someone-else" })).status).toBe(404);
      expect((await fetchmail(agent.id, method, body, { key: null, userId: owner })).status).toBe(401);
    }
    expect(await mailboxRow(agent.id)).toBeNull();
    const on = await fetchmail(agent.id, "POST", mailboxBody(bob), { userId: owner });
    expect(on.status).toBe(200);
    // The spec's form (user_id alone, in the query or the body) keeps the mailbox the agent has, where it left off.
    const box = await mailboxRow(agent.id);
    for (const [body, query] of [[undefined, { userId: owner }], [{ user_id: owner }, {}]] as const) {
      const again = await fetchmail(agent.id, "POST", body, query);
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect(again.body).toMatchObject({ id: agent.id, fetchmail: true, fetchmail_mailbox: { host: dovecot.host, port: dovecot.port, username: "bob", mailbox: "INBOX" } });
    }
    expect(await mailboxRow(agent.id)).toMatchObject({ revision: box!.revision, lastUid: box!.lastUid });
    // Another end-user still finds nothing there.
    expect((await fetchmail(agent.id, "POST", undefined, { userId: "someone-else" })).status).toBe(404);
  });
});

describe("DELETE /agents/{id}/fetchmail", () => {
  it("stops polling and deletes the settings and the sealed password", async () => {
    const agent = await newAgent();
    expect((await fetchmail(agent.id, "POST", mailboxBody(bob))).status).toBe(200);
    await polls(agent.id, 1);
    const off = await fetchmail(agent.id, "DELETE");
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ id: agent.id, fetchmail: false, fetchmail_mailbox: null });
    expect(await mailboxRow(agent.id)).toBeNull();
    await dovecot.append(bob, mail({ From: "late@example.org", Subject: "After", "Message-ID": "<after.1@example.org>" }, "too late"));
    // The poll queued before the DELETE runs and does nothing: once no poll of the agent is left in
    // the queue, none will take the mail.
    await pollUntil(
      async () =>
        (await prisma().$queryRawUnsafe<{ count: number }[]>(
          `SELECT count(*)::int AS count FROM pgboss.job WHERE name = $1 AND data->>'agentId' = $2 AND state IN ('created', 'retry', 'active')`,
          FETCHMAIL_POLL_JOB,
          String(agent.id),
        ))[0]?.count ?? 0,
      (queued) => queued === 0,
      "the queued polls of the deleted mailbox",
    );
    expect(await runsOf(agent.id)).toEqual([]);
    expect(await prisma().platformFetchmailMessage.count({ where: { agentId: agent.id } })).toBe(0);
  });
});
