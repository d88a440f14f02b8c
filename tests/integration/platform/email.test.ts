// Email: agent inboxes (email_inbox on creation, POST/DELETE /agents|teammates/{id}/email-inbox), email
// triggers (fetchmail has its own file, against a real IMAP server), and the inbound SMTP server on a
// loopback port: mail sent with nodemailer starts a run (subject, text, attachments), an unknown
// recipient and a sender not allowed get 550 (the latter logged), the answer goes back by mail with
// In-Reply-To and References, an answer to that reply continues the run, and an email trigger starts
// its task's run.
import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { pollFor, waitForRun } from "../../helpers/poll";

let platform: PlatformHarness;
let account: Account;
let other: Account;
let transport: nodemailer.Transporter;

const prisma = () => platform.database.prisma;

beforeAll(async () => {
  // Reply jobs look again every half second while their run is going.
  platform = await startPlatform({ jobPollSeconds: 0.5 });
  account = await platform.signup({ require_end_user_id: false });
  other = await platform.signup({ require_end_user_id: false });
  transport = nodemailer.createTransport({ host: "127.0.0.1", port: await platform.smtpPort(), secure: false, ignoreTLS: true });
});
afterAll(async () => {
  transport?.close();
  await platform.close();
});

const ADDRESS = /^[a-z0-9-]+\.[a-z2-9]{10}@agents\.localhost$/;
let counter = 0;
const freshUser = () => `mail-user-${++counter}`;

async function newAgent(body: Record<string, unknown> = {}, options: { key?: string; userId?: string } = {}) {
  const response = await platform.call("/agents", {
    key: options.key ?? account.key,
    query: options.userId ? { user_id: options.userId } : {},
    body: { name: "Mail Desk", default_permission_mode: "autonomous", ...body },
  });
  if (response.status !== 201) throw new Error(`POST /agents: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

const inbox = (path: string, method: string, options: { key?: string | null; userId?: string } = {}) =>
  platform.call(path, {
    method,
    key: options.key === undefined ? account.key : options.key,
    query: options.userId ? { user_id: options.userId } : {},
  });

/** Sends a mail; resolves with the SMTP outcome (accepted, or the refusal's code and text). */
async function send(mail: nodemailer.SendMailOptions) {
  try {
    const info = await transport.sendMail(mail);
    return { ok: true as const, messageId: info.messageId as string, response: info.response as string };
  } catch (error) {
    const failure = error as { responseCode?: number; response?: string; message: string };
    return { ok: false as const, code: failure.responseCode, response: failure.response ?? failure.message };
  }
}

const waitFor = <T>(what: string, read: () => Promise<T | null | undefined>) => pollFor(read, what);

const inboundOf = (address: string, status?: string) =>
  prisma().platformEmailMessage.findMany({ where: { toAddress: address, direction: "inbound", ...(status ? { status } : {}) }, orderBy: { id: "asc" } });

const replyTo = (to: string, count = 1) =>
  waitFor(`reply mail to ${to}`, async () => {
    const rows = await prisma().platformMail.findMany({ where: { to, kind: "email_reply" }, orderBy: { id: "asc" } });
    return rows.length >= count ? rows[count - 1] : null;
  });

const finished = (runId: number) => waitForRun((id) => prisma().platformRun.findUnique({ where: { id } }), runId, ["completed", "failed", "cancelled"]);

describe("agent inboxes", () => {
  it("email_inbox: true on creation gives the agent an address on the configured domain", async () => {
    const agent = await newAgent({ email_inbox: true });
    expect(agent.email_inbox).toBe(true);
    expect(agent.email_address).toMatch(ADDRESS);
    expect(agent.email_address.startsWith("mail-desk.")).toBe(true);
    const read = await platform.call(`/agents/${agent.id}`, { key: account.key });
    expect(read.body.email_address).toBe(agent.email_address);
    const plain = await newAgent();
    expect(plain).toMatchObject({ email_inbox: false, email_address: null });
  });

  it("POST enables (the same address when on already), DELETE releases it; the teammate form too", async () => {
    const agent = await newAgent();
    const on = await inbox(`/agents/${agent.id}/email-inbox`, "POST");
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ id: agent.id, email_inbox: true, email_address: expect.stringMatching(ADDRESS) });
    const again = await inbox(`/agents/${agent.id}/email-inbox`, "POST");
    expect(again.body.email_address).toBe(on.body.email_address);
    const off = await inbox(`/agents/${agent.id}/email-inbox`, "DELETE");
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ email_inbox: false, email_address: null });
    const teammate = await inbox(`/teammates/${agent.id}/email-inbox`, "POST");
    expect(teammate.status).toBe(200);
    expect(teammate.body.email_address).toMatch(ADDRESS);
    expect(teammate.body.email_address).not.toBe(on.body.email_address);
    expect((await inbox(`/teammates/${agent.id}/email-inbox`, "DELETE")).body.email_inbox).toBe(false);
    const created = await platform.call("/teammates", { key: account.key, body: { name: "Old Form", email_inbox: true } });
    expect(created.status).toBe(201);
    expect(created.body.email_address).toMatch(ADDRESS);
  });

  it("is 404 for another account's or end-user's agent, and 401 without a key", async () => {
    const owner = freshUser();
    const agent = await newAgent({ email_inbox: true }, { userId: owner });
    for (const path of [`/agents/${agent.id}/email-inbox`, `/teammates/${agent.id}/email-inbox`]) {
      for (const method of ["POST", "DELETE"]) {
        expect((await inbox(path, method, { key: other.key })).status).toBe(404);
        expect((await inbox(path, method, { key: other.key, userId: owner })).status).toBe(404);
        expect((await inbox(path, method, { userId: freshUser() })).status).toBe(404);
        expect((await inbox(path, method, { key: null, userId: owner })).status).toBe(401);
      }
    }
    const row = await prisma().platformAgent.findUniqueOrThrow({ where: { id: agent.id } });
    expect(row).toMatchObject({ emailInbox: true, emailAddress: agent.email_address });
  });

  it("refuses allowed_senders entries that are neither addresses nor @domains, naming the field", async () => {
    const response = await platform.call("/agents", { key: account.key, body: { allowed_senders: ["not an address"] } });
    expect(response.status).toBe(422);
    expect(response.body.error.message).toMatch(/^allowed_senders\.0: /);
  });
});

describe("inbound mail (SMTP)", () => {
  it("starts a run with the subject, text and attachments, and mails the answer back in the thread", async () => {
    const agent = await newAgent({ email_inbox: true, allowed_senders: ["alice@example.org"] });
    const sent = await send({
      from: "Alice <alice@example.org>",
      to: agent.email_address,
      subject: "Quarterly numbers",
      text: "Please summarise the attached notes.",
      attachments: [
        { filename: "notes.txt", content: "the secret word is plover\nsecond line", contentType: "text/plain" },
        { filename: "archive.zip", content: Buffer.from([0x50, 0x4b, 3, 4]), contentType: "application/zip" },
      ],
    });
    expect(sent.ok, JSON.stringify(sent)).toBe(true);
    const [logged] = await waitFor("the inbound log", async () => {
      const rows = await inboundOf(agent.email_address, "started");
      return rows.length > 0 ? rows : null;
    });
    expect(logged).toMatchObject({ accountId: account.id, agentId: agent.id, fromAddress: "alice@example.org", subject: "Quarterly numbers" });
    expect(logged!.messageId).toBe(sent.ok ? sent.messageId : "");
    const run = await finished(logged!.runId!);
    expect(run).toMatchObject({ agentId: agent.id, status: "completed" });
    expect(run.metadata).toEqual({ source: "email" });
    expect(run.output).toContain("From: alice@example.org");
    expect(run.output).toContain("Subject: Quarterly numbers");
    expect(run.output).toContain("Please summarise the attached notes.");
    expect(run.output).toContain("Attachment notes.txt (text/plain): the secret word is plover");
    expect(run.output).toMatch(/Attachments not passed on:\n- archive\.zip \(application\/zip, 4 bytes\)/);
    const files = await prisma().platformRunFile.findMany({ where: { runId: run.id } });
    expect(files.map((file) => file.name)).toEqual(["notes.txt"]);

    const reply = await replyTo("alice@example.org");
    expect(reply).toMatchObject({
      accountId: account.id,
      from: agent.email_address,
      subject: "Re: Quarterly numbers",
      inReplyTo: logged!.messageId,
      references: [logged!.messageId],
      text: run.output,
    });
    expect(reply.messageId).toMatch(/^<reply\.\d+\.[0-9a-f]{16}@agents\.localhost>$/);
    const outbound = await prisma().platformEmailMessage.findMany({ where: { answersId: logged!.id } });
    expect(outbound).toHaveLength(1);
    expect(outbound[0]).toMatchObject({ direction: "outbound", status: "sent", runId: run.id, messageId: reply.messageId });

    // An answer to that reply continues the same run, as POST /runs/{id}/reply would.
    const answer = await send({
      from: "alice@example.org",
      to: agent.email_address,
      subject: "Re: Quarterly numbers",
      text: "Thanks, and the second line?",
      inReplyTo: reply.messageId!,
      references: [logged!.messageId!, reply.messageId!],
    });
    expect(answer.ok).toBe(true);
    const second = await replyTo("alice@example.org", 2);
    expect(second.inReplyTo).toBe(answer.ok ? answer.messageId : "");
    expect(second.references).toEqual([logged!.messageId, reply.messageId, answer.ok ? answer.messageId : ""]);
    const continued = await inboundOf(agent.email_address, "continued");
    expect(continued).toHaveLength(1);
    expect(continued[0]!.runId).toBe(run.id);
    const turns = await platform.call(`/runs/${run.id}/messages`, { key: account.key });
    expect(turns.body.data.filter((turn: { role: string }) => turn.role === "user")).toHaveLength(2);
    expect(second.text).toContain("Thanks, and the second line?");
  });

  it("answers 550 for an address no inbox has, and logs nothing", async () => {
    const before = await prisma().platformEmailMessage.count();
    const refused = await send({ from: "alice@example.org", to: "nobody.abcdefghij@agents.localhost", subject: "Hi", text: "?" });
    expect(refused).toMatchObject({ ok: false, code: 550 });
    expect(refused.ok ? "" : refused.response).toContain("no such mailbox");
    expect(await prisma().platformEmailMessage.count()).toBe(before);
    // A released address is unknown too.
    const agent = await newAgent({ email_inbox: true, allowed_senders: ["alice@example.org"] });
    await inbox(`/agents/${agent.id}/email-inbox`, "DELETE");
    expect(await send({ from: "alice@example.org", to: agent.email_address, subject: "Hi", text: "?" })).toMatchObject({ ok: false, code: 550 });
  });

  it("refuses a sender not allowed with 550 and logs it; an empty list admits the account owner only", async () => {
    const agent = await newAgent({ email_inbox: true, allowed_senders: ["alice@example.org", "@trusted.example"] });
    const refused = await send({ from: "mallory@example.org", to: agent.email_address, subject: "Let me in", text: "!" });
    expect(refused).toMatchObject({ ok: false, code: 550 });
    expect(refused.ok ? "" : refused.response).toContain("may not write");
    const [logged] = await inboundOf(agent.email_address, "refused");
    expect(logged).toMatchObject({ accountId: account.id, agentId: agent.id, fromAddress: "mallory@example.org", runId: null, reason: "sender not in allowed_senders" });
    expect(await prisma().platformRun.count({ where: { agentId: agent.id } })).toBe(0);
    // @domain admits that exact domain.
    expect((await send({ from: "bob@trusted.example", to: agent.email_address, subject: "Hi", text: "domain" })).ok).toBe(true);
    expect((await send({ from: "bob@sub.trusted.example", to: agent.email_address, subject: "Hi", text: "sub" })).ok).toBe(false);

    const closed = await newAgent({ email_inbox: true });
    expect((await send({ from: "alice@example.org", to: closed.email_address, subject: "Hi", text: "?" })).ok).toBe(false);
    expect((await send({ from: account.email, to: closed.email_address, subject: "Hi", text: "owner" })).ok).toBe(true);
  });

  it("starts one run for a message delivered twice (the same Message-ID)", async () => {
    const agent = await newAgent({ email_inbox: true, allowed_senders: ["twice@example.org"] });
    const mail = { from: "twice@example.org", to: agent.email_address, subject: "Once", text: "only once", messageId: "<twice.1@example.org>" };
    expect((await send(mail)).ok).toBe(true);
    expect((await send(mail)).ok).toBe(true);
    await replyTo("twice@example.org", 1);
    expect(await prisma().platformRun.count({ where: { agentId: agent.id } })).toBe(1);
    expect(await inboundOf(agent.email_address)).toHaveLength(1);
  });

  it("accepts mail sent automatically without starting a run", async () => {
    const agent = await newAgent({ email_inbox: true, allowed_senders: ["alice@example.org"] });
    const sent = await send({ from: "alice@example.org", to: agent.email_address, subject: "Out of office", text: "Away", headers: { "Auto-Submitted": "auto-replied" } });
    expect(sent.ok).toBe(true);
    const [logged] = await waitFor("the ignored mail", async () => {
      const rows = await inboundOf(agent.email_address, "ignored");
      return rows.length > 0 ? rows : null;
    });
    expect(logged!.runId).toBeNull();
    expect(await prisma().platformRun.count({ where: { agentId: agent.id } })).toBe(0);
  });

  it("refuses mail for a disabled agent with 550", async () => {
    const agent = await newAgent({ email_inbox: true, allowed_senders: ["alice@example.org"] });
    await platform.call(`/agents/${agent.id}/disable`, { key: account.key, method: "POST" });
    expect(await send({ from: "alice@example.org", to: agent.email_address, subject: "Hi", text: "?" })).toMatchObject({ ok: false, code: 550 });
    expect((await inboundOf(agent.email_address, "refused"))[0]!.reason).toBe("the agent is disabled");
  });
});

describe("the SMTP server's size cap", () => {
  it("answers 552 for a message over INLAY_SMTP_MAX_BYTES and starts nothing", async () => {
    // A second process on the same database whose server takes 8 KB at most.
    const small = await startPlatform({ database: platform.database, email: { smtp: { port: 0, host: "127.0.0.1", maxBytes: 8 * 1024 } } });
    const client = nodemailer.createTransport({ host: "127.0.0.1", port: await small.smtpPort(), secure: false, ignoreTLS: true });
    try {
      const agent = await newAgent({ email_inbox: true, allowed_senders: ["alice@example.org"] });
      const big = await client.sendMail({ from: "alice@example.org", to: agent.email_address, subject: "Big", text: "x".repeat(20_000) }).catch((error: unknown) => error);
      expect(big).toMatchObject({ responseCode: 552 });
      expect(await prisma().platformRun.count({ where: { agentId: agent.id } })).toBe(0);
      const fits = await client.sendMail({ from: "alice@example.org", to: agent.email_address, subject: "Small", text: "fits" });
      expect(fits.accepted).toEqual([agent.email_address]);
    } finally {
      client.close();
      await small.close();
    }
  });
});

describe("email triggers", () => {
  async function newTask(key = account.key, userId?: string) {
    const agent = await newAgent({}, { key, userId });
    const task = await platform.call("/tasks", {
      key,
      query: userId ? { user_id: userId } : {},
      body: { teammate_id: agent.id, instructions: "Triage the incoming request" },
    });
    if (task.status !== 201) throw new Error(`POST /tasks: ${task.status} ${JSON.stringify(task.body)}`);
    return task.body.id as number;
  }

  it("gives the trigger an address whose mail starts the task's run, and answers by mail", async () => {
    const taskId = await newTask();
    const created = await platform.call(`/tasks/${taskId}/triggers`, { key: account.key, body: { type: "email", allowed_senders: ["@example.org"] } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^email_\d+$/),
      type: "email",
      task_id: taskId,
      enabled: true,
      allowed_senders: ["@example.org"],
      email_address: expect.stringMatching(new RegExp(`^task-${taskId}\\.[a-z2-9]{10}@agents\\.localhost$`)),
      next_run_at: null,
    });
    const address = created.body.email_address as string;
    const listed = await platform.call("/triggers", { key: account.key, query: { type: "email", task_id: taskId } });
    expect(listed.body.data.map((trigger: { id: string }) => trigger.id)).toEqual([created.body.id]);

    const sent = await send({ from: "carol@example.org", to: address, subject: "Printer on fire", text: "Third floor." });
    expect(sent.ok).toBe(true);
    const [logged] = await waitFor("the trigger's run", async () => {
      const rows = await inboundOf(address, "started");
      return rows.length > 0 ? rows : null;
    });
    const run = await finished(logged!.runId!);
    expect(run.taskId).toBe(taskId);
    expect(run.output).toBe("Echo: Triage the incoming request\n\nEmail:\nFrom: carol@example.org\nSubject: Printer on fire\n\nThird floor.");
    const fires = await platform.call(`/tasks/${taskId}/triggers/${created.body.id}/fires`, { key: account.key });
    expect(fires.body.data).toEqual([expect.objectContaining({ outcome: "started", run_id: run.id })]);
    const reply = await replyTo("carol@example.org");
    expect(reply).toMatchObject({ from: address, subject: "Re: Printer on fire", inReplyTo: logged!.messageId });

    expect((await send({ from: "dave@elsewhere.example", to: address, subject: "Hi", text: "?" })).ok).toBe(false);
    const paused = await platform.call(`/tasks/${taskId}/triggers/${created.body.id}`, { key: account.key, method: "PATCH", body: { enabled: false } });
    expect(paused.body.enabled).toBe(false);
    expect(await send({ from: "carol@example.org", to: address, subject: "Again", text: "?" })).toMatchObject({ ok: false, code: 550 });
    const widened = await platform.call(`/tasks/${taskId}/triggers/${created.body.id}`, {
      key: account.key,
      method: "PATCH",
      body: { enabled: true, allowed_senders: ["dave@elsewhere.example"] },
    });
    expect(widened.body).toMatchObject({ enabled: true, allowed_senders: ["dave@elsewhere.example"], email_address: address });
    expect((await send({ from: "dave@elsewhere.example", to: address, subject: "Hi", text: "now?" })).ok).toBe(true);

    expect((await platform.call(`/tasks/${taskId}/triggers/${created.body.id}`, { key: account.key, method: "DELETE" })).status).toBe(204);
    expect(await send({ from: "dave@elsewhere.example", to: address, subject: "Hi", text: "gone?" })).toMatchObject({ ok: false, code: 550 });
  });

  it("answers 422 naming the field for what an email trigger cannot have", async () => {
    const taskId = await newTask();
    for (const [body, field] of [
      [{ type: "email", cron: "0 9 * * *" }, "cron"],
      [{ type: "email", allowed_senders: ["nope"] }, "allowed_senders.0"],
      [{ type: "email", interval_seconds: 60 }, "interval_seconds"],
    ] as const) {
      const response = await platform.call(`/tasks/${taskId}/triggers`, { key: account.key, body });
      expect(response.status, JSON.stringify(response.body)).toBe(422);
      expect(response.body.error.message).toMatch(new RegExp(`^${field.replace(".", "\\.")}: `));
    }
    const schedule = await platform.call(`/tasks/${taskId}/triggers`, { key: account.key, body: { type: "schedule", interval_seconds: 3600 } });
    const patched = await platform.call(`/tasks/${taskId}/triggers/${schedule.body.id}`, {
      key: account.key,
      method: "PATCH",
      body: { allowed_senders: ["a@example.org"] },
    });
    expect(patched.status).toBe(422);
    expect(patched.body.error.message).toMatch(/^allowed_senders: only email triggers/);
  });

  it("keeps another account's and end-user's email triggers out of reach (404)", async () => {
    const owner = freshUser();
    const taskId = await newTask(account.key, owner);
    const created = await platform.call(`/tasks/${taskId}/triggers`, { key: account.key, query: { user_id: owner }, body: { type: "email" } });
    expect(created.status).toBe(201);
    expect((await platform.call(`/tasks/${taskId}/triggers`, { key: other.key, body: { type: "email" } })).status).toBe(404);
    expect((await platform.call(`/tasks/${taskId}/triggers/${created.body.id}`, { key: other.key, method: "PATCH", body: { enabled: false } })).status).toBe(404);
    expect((await platform.call(`/tasks/${taskId}/triggers/${created.body.id}`, { key: other.key, method: "DELETE" })).status).toBe(404);
    expect((await platform.call(`/tasks/${taskId}/triggers`, { key: account.key, query: { user_id: freshUser() }, body: { type: "email" } })).status).toBe(404);
    const row = await prisma().platformTaskTrigger.findFirstOrThrow({ where: { taskId, type: "email" } });
    expect(row.enabled).toBe(true);
  });
});
