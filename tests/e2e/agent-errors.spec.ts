// Errors mean what they say: the agent form saves once however often it is submitted, a name the
// workspace already uses (in any case) is refused on the name field, and the chat routes answer 404
// for a run or agent that is not there, creating nothing.
import { expect, test, type Page } from "@playwright/test";
import { AgentsPage } from "./pages/agent-pages";
import { signedIn } from "./pages/sign-in-page";

/** A request from the page (with its session cookie), as the chat components make them. */
async function call(page: Page, path: string, init: { method?: string; body?: unknown } = {}) {
  return page.evaluate(
    async ({ path, method, body }) => {
      const response = await fetch(path, {
        method: method ?? "GET",
        headers: body === undefined ? {} : { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      let kind: string | undefined;
      try {
        kind = (JSON.parse(text) as { error?: { kind?: string } }).error?.kind;
      } catch {
        kind = undefined;
      }
      return { status: response.status, kind };
    },
    { path, method: init.method, body: init.body },
  );
}

test("the agent form saves once when submitted twice at once, and refuses a name the workspace uses", async ({ browser }) => {
  test.setTimeout(90_000);
  const admin = await signedIn(browser, "admin@acme.test");
  const agents = new AgentsPage(admin);
  await agents.goto();
  const name = `Twice ${Date.now().toString(36)}`;
  const form = admin.getByRole("form", { name: "Create agent" });
  await form.getByLabel("Name").fill(name);
  await form.getByLabel("Instructions").fill("Answer briefly.");
  // Two submits in the same task, before React can re-render a disabled button.
  await form.evaluate((element: HTMLFormElement) => {
    element.requestSubmit();
    element.requestSubmit();
  });
  await expect(form.getByRole("status")).toHaveText("Saved.");
  await expect(agents.rows().filter({ hasText: name })).toHaveCount(1);
  await expect(form.getByRole("alert")).toHaveCount(0);
  // The form starts again empty for the next agent.
  await expect(form.getByLabel("Name")).toHaveValue("");

  await form.getByLabel("Name").fill(name.toUpperCase());
  await form.getByRole("button", { name: "Create agent" }).click();
  await expect(form.getByText(`An agent named “${name.toUpperCase()}” already exists in this workspace: choose another name.`)).toBeVisible();
  await expect(form.getByLabel("Name")).toHaveAttribute("aria-invalid", "true");
  await expect(agents.rows().filter({ hasText: new RegExp(name, "i") })).toHaveCount(1);
  await admin.screenshot({ path: "test-results/agent-name-taken.png", fullPage: true });
  await admin.context().close();
});

test("the chat routes answer 404 for a missing run and an unknown agent, and create no agent", async ({ browser }) => {
  test.setTimeout(90_000);
  const member = await signedIn(browser, "member@acme.test");
  const agents = new AgentsPage(member);
  await agents.goto();
  const before = await agents.rows().count();

  expect(await call(member, "/api/chat?runId=987654")).toEqual({ status: 404, kind: "not_found" });
  expect(await call(member, "/api/chat/conversation?agent=Acme%20assistant&runId=987654")).toEqual({ status: 404, kind: "not_found" });
  expect(await call(member, "/api/chat/actions", { method: "POST", body: { action: "cancel", runId: 987654 } })).toEqual({
    status: 404,
    kind: "not_found",
  });
  const message = { id: "m1", role: "user", parts: [{ type: "text", text: "hello" }] };
  expect(await call(member, "/api/chat", { method: "POST", body: { agent: "Acme assistant", runId: 987654, message } })).toEqual({
    status: 404,
    kind: "not_found",
  });
  // acme has personal agents off: an unknown name is not made into one.
  expect(await call(member, "/api/chat", { method: "POST", body: { agent: "No such agent", message } })).toEqual({ status: 404, kind: "not_found" });
  expect(await call(member, "/api/chat/history?agent=No%20such%20agent")).toEqual({ status: 404, kind: "not_found" });

  await agents.goto();
  await expect(agents.rows()).toHaveCount(before);
  await expect(agents.rows().filter({ hasText: "No such agent" })).toHaveCount(0);
  await member.context().close();
});
