import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PASSWORD, startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(() => platform.close());

/** Fills every table an account owns, through the database or, where sealing is involved, the API. */
async function seedData(account: Account, label: string) {
  const prisma = platform.database.prisma;
  const endUser = await prisma.platformEndUser.create({
    data: { accountId: account.id, externalId: `${label}-user`, name: `${label} person`, metadata: { plan: "pro" } },
  });
  const agent = await prisma.platformAgent.create({
    data: {
      accountId: account.id,
      endUserId: endUser.id,
      name: `${label} agent`,
      instructions: `${label} instructions`,
      tools: ["web_search"],
      webhookEnabled: true,
      webhookTokenHash: `${label}-webhook-token-hash`,
    },
  });
  const accountAgent = await prisma.platformAgent.create({
    data: { accountId: account.id, name: `${label} shared agent` },
  });
  const document = await prisma.platformAgentDocument.create({
    data: {
      accountId: account.id,
      agentId: agent.id,
      name: `${label}.md`,
      content: `${label} document body`,
      sizeBytes: 10,
    },
  });
  const report = await prisma.platformAgentIssueReport.create({
    data: { accountId: account.id, endUserId: endUser.id, agentId: agent.id, summary: `${label} issue` },
  });
  const memory = await prisma.platformMemory.create({
    data: { accountId: account.id, endUserId: endUser.id, content: `${label} remembers tea`, agentId: agent.id },
  });
  const permission = await prisma.platformPermission.create({
    data: { accountId: account.id, endUserId: endUser.id, tool: `${label}_tool` },
  });
  const toolServer = await prisma.platformToolServer.create({
    data: {
      accountId: account.id,
      endUserId: endUser.id,
      name: `${label} tools`,
      url: "https://tools.example.test/api",
      kind: "rest_api",
      authType: "bearer",
      secretSealed: `${label}-sealed-tool-secret`,
      toolDefs: [{ name: "lookup", method: "GET", path: "/lookup" }],
    },
  });
  const script = await prisma.platformToolServer.create({
    data: {
      accountId: account.id,
      name: `${label} script`,
      url: "https://script.example.test",
      kind: "script",
      scriptSourceSealed: `${label}-sealed-script-source`,
      scriptSha256: "ab".repeat(32),
      toolDefs: ["hello"],
    },
  });
  const skill = await prisma.platformSkill.create({
    data: { accountId: account.id, endUserId: endUser.id, ownerKey: endUser.id, name: `${label} playbook`, slug: `${label}-playbook`, description: "d", body: `${label} playbook body` },
  });
  const ok = async (path: string, body: Record<string, unknown>, query: Record<string, string> = {}) => {
    const response = await platform.call(path, { key: account.key, body, query });
    expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
    return response.body;
  };
  const userQuery = { user_id: `${label}-user` };
  const run = await ok("/runs", { teammate_id: agent.id, message: `${label} says hello`, stream: false }, userQuery);
  await platform.waitForRun(account.key, run.id, ["completed"], userQuery);
  const task = await ok("/tasks", { teammate_id: agent.id, instructions: `${label} weekly digest` }, userQuery);
  const trigger = await ok(`/tasks/${task.id}/triggers`, { type: "schedule", cron: "0 9 * * 1", timezone: "Europe/Berlin" }, userQuery);
  const webhook = await ok("/webhooks", { url: "http://127.0.0.1:9/hook", events: ["run.completed"] });
  const bridge = await ok("/bridges", { server_url: "http://127.0.0.1:9", password: `${label}-bridge-password` });
  const connection = await prisma.platformAppConnection.create({
    data: { id: `conn_${label}_${account.id}`, accountId: account.id, endUserId: endUser.id, app: "codehost", authKind: "oauth2", status: "active", credentialsSealed: `${label}-sealed-credentials` },
  });
  const repo = await prisma.platformAgentRepo.create({
    data: { accountId: account.id, agentId: agent.id, repoFullName: `octo/${label}`, connectionId: connection.id, envKeys: ["TOKEN"], envSealed: `${label}-sealed-env` },
  });
  const judgment = await prisma.platformJudgment.create({
    data: {
      accountId: account.id,
      mode: "decide",
      model: "sim",
      result: { answers: [{ question: `${label} question`, answer: "yes" }] },
      resultExpiresAt: new Date(Date.now() + 86_400_000),
      expiresAt: new Date(Date.now() + 90 * 86_400_000),
    },
  });
  const payment = await prisma.platformPayment.create({
    data: { accountId: account.id, kind: "topup", provider: "stripe", amountCents: 2_000, reference: `pi_${label}_${account.id}` },
  });
  const receipt = await prisma.platformReceipt.create({
    data: { accountId: account.id, paymentId: payment.id, amountCents: 2_000, description: `${label} top-up`, pageSalt: `${label}-salt` },
  });
  return { endUser, agent, accountAgent, document, report, memory, permission, toolServer, script, skill, run, task, trigger, webhook, bridge, connection, repo, judgment, receipt };
}

const tableCounts = async (accountId: number) => {
  const prisma = platform.database.prisma;
  const where = { where: { accountId } };
  return {
    accounts: await prisma.platformAccount.count({ where: { id: accountId } }),
    apiKeys: await prisma.platformApiKey.count(where),
    verifications: await prisma.platformEmailVerification.count(where),
    mail: await prisma.platformMail.count(where),
    endUsers: await prisma.platformEndUser.count(where),
    agents: await prisma.platformAgent.count(where),
    agentDocuments: await prisma.platformAgentDocument.count(where),
    issueReports: await prisma.platformAgentIssueReport.count(where),
    memories: await prisma.platformMemory.count(where),
    permissions: await prisma.platformPermission.count(where),
    toolServers: await prisma.platformToolServer.count(where),
    skills: await prisma.platformSkill.count(where),
  };
};

describe("GET /account/export", () => {
  it("exports everything the account owns", async () => {
    const account = await platform.signup({ product: "crm" });
    const seeded = await seedData(account, "mine");
    const named = await platform.call("/keys", { key: account.key, body: { name: "ci", expires_in_days: 3 } });
    const revoked = await platform.call("/keys", { key: account.key, body: { name: "gone" } });
    await platform.call(`/keys/${revoked.body.id}`, { key: account.key, method: "DELETE" });

    const { status, body } = await platform.call("/account/export", { key: account.key });
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual([
      "account",
      "agent_documents",
      "agent_repos",
      "agents",
      "api_keys",
      "app_connections",
      "balance_transactions",
      "bridges",
      "end_users",
      "exported_at",
      "issue_reports",
      "judgments",
      "mail",
      "memories",
      "permissions",
      "receipts",
      "runs",
      "settings",
      "skills",
      "tasks",
      "tool_servers",
      "value_observations",
      "value_use_cases",
      "webhooks",
    ]);
    expect(Date.parse(body.exported_at)).not.toBeNaN();
    expect(body.account).toMatchObject({
      id: account.id,
      email: account.email,
      first_name: "Test",
      product: "crm",
      signup_source: "api",
      email_verified: false,
      email_verified_at: null,
    });
    expect(body.settings).toEqual({
      require_end_user_id: true,
      retention_mode: "standard",
      per_end_user_run_limit: null,
      per_end_user_cost_limit_cents: null,
      per_end_user_rate_per_minute: null,
      approval_email_enabled: true,
      approval_chat_enabled: true,
      company_research: true,
    });

    expect(body.api_keys.map((key: { name: string }) => key.name)).toEqual(["default", "ci", "gone"]);
    expect(body.api_keys[1]).toMatchObject({
      id: named.body.id,
      kind: "named",
      expires_at: named.body.expires_at,
      revoked_at: null,
    });
    expect(Date.parse(body.api_keys[2].revoked_at)).not.toBeNaN();

    expect(body.end_users).toEqual([
      expect.objectContaining({
        id: seeded.endUser.id,
        user_id: "mine-user",
        name: "mine person",
        metadata: { plan: "pro" },
      }),
    ]);
    expect(body.agents).toEqual([
      expect.objectContaining({
        id: seeded.agent.id,
        user_id: "mine-user",
        name: "mine agent",
        instructions: "mine instructions",
        tools: ["web_search"],
        webhook_enabled: true,
      }),
      expect.objectContaining({ id: seeded.accountAgent.id, user_id: null, name: "mine shared agent" }),
    ]);
    expect(body.agent_documents).toEqual([
      expect.objectContaining({
        id: seeded.document.id,
        agent_id: seeded.agent.id,
        name: "mine.md",
        content: "mine document body",
      }),
    ]);
    expect(body.issue_reports).toEqual([
      { id: seeded.report.id, agent_id: seeded.agent.id, run_id: null, user_id: "mine-user", summary: "mine issue", details: null, status: "open", created_at: expect.any(String), resolved_at: null },
    ]);
    expect(body.memories).toEqual([
      expect.objectContaining({
        id: seeded.memory.id,
        user_id: "mine-user",
        content: "mine remembers tea",
        agent_id: seeded.agent.id,
      }),
    ]);
    expect(body.permissions).toEqual([
      expect.objectContaining({ id: seeded.permission.id, user_id: "mine-user", tool: "mine_tool" }),
    ]);
    expect(body.tool_servers).toEqual([
      expect.objectContaining({ id: seeded.toolServer.id, user_id: "mine-user", name: "mine tools", kind: "rest_api", auth_type: "bearer", has_secret: true, script_sha256: null }),
      expect.objectContaining({ id: seeded.script.id, user_id: null, kind: "script", script_sha256: "ab".repeat(32) }),
    ]);
    expect(body.skills).toEqual([
      expect.objectContaining({ id: seeded.skill.id, user_id: "mine-user", slug: "mine-playbook", body: "mine playbook body" }),
    ]);
    expect(body.mail).toEqual([expect.objectContaining({ to: account.email, kind: "verify_email" })]);
    expect(body.mail[0].text).toContain("/verify/confirm?token=[redacted]");

    // As their own endpoints show them, with a run's conversation.
    const run = await platform.call(`/runs/${seeded.run.id}`, { key: account.key, query: { user_id: "mine-user" } });
    expect(body.runs).toEqual([{ ...run.body, messages: [expect.objectContaining({ role: "user" }), expect.objectContaining({ role: "assistant" })] }]);
    expect(body.tasks).toEqual([{ ...seeded.task, updated_at: expect.any(String), triggers: [expect.objectContaining({ id: seeded.trigger.id, cron: "0 9 * * 1", timezone: "Europe/Berlin" })] }]);
    expect(body.webhooks).toEqual([expect.objectContaining({ id: seeded.webhook.id, url: seeded.webhook.url, secret: expect.stringMatching(/^whsec_\*{4}/) })]);
    expect(body.bridges).toEqual([expect.objectContaining({ id: seeded.bridge.id, has_password: true })]);
    expect(body.app_connections).toEqual([expect.objectContaining({ connection_id: seeded.connection.id, app: "codehost", user_id: "mine-user", status: "active" })]);
    // The signup's credit, then what the run cost.
    const ledger = await platform.call("/billing/balance", { key: account.key });
    expect(body.balance_transactions).toEqual([...ledger.body.transactions].reverse());
    expect(body.balance_transactions.map((entry: { type: string }) => entry.type)).toEqual(["topup", "debit"]);
    expect(body.receipts).toEqual([expect.objectContaining({ id: seeded.receipt.id, amount_cents: 2_000, kind: "topup", payment_reference: `pi_mine_${account.id}` })]);
    expect(body.judgments).toEqual([expect.objectContaining({ id: seeded.judgment.id, mode: "decide", answers: [{ question: "mine question", answer: "yes" }] })]);
    expect(body.agent_repos).toEqual([expect.objectContaining({ id: seeded.repo.id, agent_id: seeded.agent.id, repo_full_name: "octo/mine", env_keys: ["TOKEN"] })]);
  });

  it("never includes a password hash, key hash, secret or token", async () => {
    const account = await platform.signup({ password: PASSWORD });
    const seeded = await seedData(account, "secretive");
    const named = await platform.call("/keys", { key: account.key, body: { name: "ci" } });
    const { body } = await platform.call("/account/export", { key: named.body.key });
    const text = JSON.stringify(body);

    const prisma = platform.database.prisma;
    const row = await prisma.platformAccount.findUniqueOrThrow({ where: { id: account.id } });
    const keys = await prisma.platformApiKey.findMany({ where: { accountId: account.id } });
    const mail = platform.lastMail(account.email, "verify_email");
    const verification = await prisma.platformEmailVerification.findFirstOrThrow({ where: { accountId: account.id } });
    const token = /token=([^&\s]+)/.exec(mail.text)?.[1];
    expect(token).toMatch(/^[A-Za-z0-9_-]{20,}$/);

    const secrets = [
      row.passwordHash!,
      account.key,
      named.body.key,
      ...keys.map((key) => key.hash),
      token!,
      verification.tokenHash,
      "secretive-webhook-token-hash",
      "secretive-sealed-tool-secret",
      "secretive-sealed-script-source",
      "secretive-bridge-password",
      "secretive-sealed-credentials",
      "secretive-sealed-env",
      "secretive-salt",
      seeded.webhook.secret,
    ];
    for (const secret of secrets) expect(text).not.toContain(secret);
    // Nor a field that would hold one, even empty.
    expect(text).not.toMatch(/"(password_?hash|hash|token_?hash|webhook_?token_?hash)"/i);
  });

  it("contains nothing of another account", async () => {
    const mine = await platform.signup();
    const other = await platform.signup();
    await seedData(other, "foreign");
    await platform.call("/keys", { key: other.key, body: { name: "foreign-key" } });
    const { body } = await platform.call("/account/export", { key: mine.key });
    const text = JSON.stringify(body);
    expect(text).not.toContain("foreign");
    expect(text).not.toContain(other.email);
    expect(body.end_users).toEqual([]);
    expect(body.agents).toEqual([]);
    expect(body.api_keys).toHaveLength(1);
  });

  it("needs a valid key and refuses user_id", async () => {
    const account = await platform.signup();
    const expiring = await platform.call("/keys", { key: account.key, body: { name: "temp", expires_in_days: 1 } });
    await platform.database.prisma.platformApiKey.update({
      where: { id: expiring.body.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect((await platform.call("/account/export")).status).toBe(401);
    expect((await platform.call("/account/export", { key: expiring.body.key })).status).toBe(401);
    const scoped = await platform.call("/account/export", { key: account.key, query: { user_id: "u1" } });
    expect(scoped.status).toBe(400);
    expect(scoped.body.error.error_code).toBe("unknown_query_parameter");
  });
});

describe("DELETE /account", () => {
  it("deletes the account and all its data, after which its keys answer 401", async () => {
    const account = await platform.signup({ password: PASSWORD });
    const bystander = await platform.signup();
    await seedData(account, "doomed");
    await seedData(bystander, "kept");
    const named = await platform.call("/keys", { key: account.key, body: { name: "ci" } });
    const before = await tableCounts(account.id);
    for (const [table, count] of Object.entries(before)) expect(count, table).toBeGreaterThan(0);
    const bystanderBefore = await tableCounts(bystander.id);

    const { status, body } = await platform.call("/account", { key: named.body.key, method: "DELETE" });
    expect(status).toBe(204);
    expect(body).toBeNull();

    for (const key of [account.key, named.body.key]) {
      const response = await platform.call("/verify/status", { key });
      expect(response.status).toBe(401);
      expect(response.body.error.type).toBe("authentication_error");
    }
    const after = await tableCounts(account.id);
    for (const [table, count] of Object.entries(after)) expect(count, table).toBe(0);
    // Another account is untouched.
    expect(await tableCounts(bystander.id)).toEqual(bystanderBefore);
    expect((await platform.call("/verify/status", { key: bystander.key })).status).toBe(200);

    // The password no longer works, and the email is free again.
    const token = await platform.call("/token", { body: { email: account.email, password: PASSWORD } });
    expect(token.status).toBe(401);
    expect((await platform.call("/signup", { body: { email: account.email, first_name: "Again" } })).status).toBe(201);
  });

  it("needs a valid key and refuses user_id", async () => {
    const account = await platform.signup();
    const revoked = await platform.call("/keys", { key: account.key, body: { name: "old" } });
    await platform.call(`/keys/${revoked.body.id}`, { key: account.key, method: "DELETE" });
    expect((await platform.call("/account", { method: "DELETE" })).status).toBe(401);
    expect((await platform.call("/account", { method: "DELETE", key: revoked.body.key })).status).toBe(401);
    const scoped = await platform.call("/account", { key: account.key, method: "DELETE", query: { user_id: "u1" } });
    expect(scoped.status).toBe(400);
    expect(scoped.body.error.error_code).toBe("unknown_query_parameter");
    // Still there after all those refusals.
    expect((await platform.call("/verify/status", { key: account.key })).status).toBe(200);
    expect(await platform.database.prisma.platformAccount.count({ where: { id: account.id } })).toBe(1);
  });
});
