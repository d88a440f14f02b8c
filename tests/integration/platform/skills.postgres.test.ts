// Two instances of one deployment on one PostgreSQL database: creating or renaming skills to the same
// slug at the same moment leaves one skill with it; the others get 409 skill_exists (the unique index
// on account, owner scope and slug decides, not a read before the write).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

let a: PlatformHarness;
let b: PlatformHarness;
let account: Account;
beforeAll(async () => {
  a = await startPlatform();
  b = await startPlatform({ database: a.database });
  account = await a.signup({ require_end_user_id: false });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

const body = (name: string) => ({ name, description: "d", body: "b" });

describe("the slug's uniqueness across instances", () => {
  it.each([
    ["the account level", undefined],
    ["an end-user", "racer"],
  ])("lets one of eight concurrent creations in %s have the slug", async (_, userId) => {
    const names = ["Daily digest", "daily digest", "Daily-Digest", "DAILY DIGEST!", "Daily  digest", "daily_digest", "Daily digest.", "daily Digest"];
    const answers = await Promise.all(
      names.map((name, index) => (index % 2 === 0 ? a : b).call("/skills", { key: account.key, query: { user_id: userId }, body: body(name) })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    for (const answer of answers.filter((each) => each.status === 409)) expect(answer.body.error.error_code).toBe("skill_exists");
    const listed = await a.call("/skills", { key: account.key, query: { user_id: userId, limit: 100 } });
    expect(listed.body.data.filter((row: { slug: string }) => row.slug === "daily-digest")).toHaveLength(1);
  });

  it("lets one of two concurrent renames to the same slug win", async () => {
    const [first, second] = await Promise.all(["One", "Two"].map((name) => a.call("/skills", { key: account.key, body: body(name) })));
    const answers = await Promise.all([
      a.call(`/skills/${first!.body.id}`, { key: account.key, method: "PATCH", body: { name: "Renamed" } }),
      b.call(`/skills/${second!.body.id}`, { key: account.key, method: "PATCH", body: { name: "renamed" } }),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
  });
});
