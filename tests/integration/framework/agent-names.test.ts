// Agent names are unique within a tenant, case-insensitively (chat and embeds find agents by name):
// a clash is a CONFLICT on the name field; archiving gives the name back; other tenants are apart.
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFramework, type FrameworkHarness } from "../../helpers/framework";

let fw: FrameworkHarness;
beforeAll(async () => {
  fw = await startFramework();
});
afterAll(() => fw?.close());

const agent = (name: string) => ({ name, instructions: "", model: null, permissionMode: "autonomous" as const, tools: [] });

async function conflictOf(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(TRPCError);
  return { code: (error as TRPCError).code, message: (error as TRPCError).message, field: ((error as TRPCError).cause as { field?: string }).field };
}

describe("agent names", () => {
  it("are unique in a tenant whatever their case, for workspace and personal agents alike", async () => {
    const admin = await fw.callerFor("admin@acme.test");
    const helper = await admin.agents.create({ scope: "tenant", agent: agent("Helper") });
    expect(await conflictOf(admin.agents.create({ scope: "tenant", agent: agent("helper ") }))).toEqual({
      code: "CONFLICT",
      message: "An agent named “helper” already exists in this workspace: choose another name.",
      field: "name",
    });
    expect((await conflictOf(admin.agents.create({ scope: "personal", agent: agent("HELPER") }))).code).toBe("CONFLICT");
    // Renaming onto a taken name is refused too; keeping one's own name is not a clash.
    const other = await admin.agents.create({ scope: "tenant", agent: agent("Other") });
    expect((await conflictOf(admin.agents.update({ id: other.id, agent: agent("Helper") }))).code).toBe("CONFLICT");
    expect((await admin.agents.update({ id: helper.id, agent: { ...agent("helper"), instructions: "Be brief." } })).name).toBe("helper");
    // Another tenant may use it.
    expect((await (await fw.callerFor("admin@globex.test")).agents.create({ scope: "tenant", agent: agent("Helper") })).name).toBe("Helper");
  });

  it("are given back when an agent is archived", async () => {
    const admin = await fw.callerFor("admin@acme.test");
    const first = await admin.agents.create({ scope: "tenant", agent: agent("Reviewer") });
    await admin.agents.archive({ id: first.id });
    const second = await admin.agents.create({ scope: "tenant", agent: agent("Reviewer") });
    expect(second.id).not.toBe(first.id);
  });

  it("hold under concurrent creation: one wins, the others get CONFLICT", async () => {
    const admin = await fw.callerFor("admin@acme.test");
    const results = await Promise.allSettled([1, 2, 3].map(() => admin.agents.create({ scope: "tenant", agent: agent("Racer") })));
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    for (const result of results) {
      if (result.status === "rejected") expect((result.reason as TRPCError).code).toBe("CONFLICT");
    }
  });
});
