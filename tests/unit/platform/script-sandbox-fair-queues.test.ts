// The script sandbox's waiting calls are taken by account first and by end-user within the account
// (tool-servers/script-sandbox/fair-queues.ts): an account's many end-users add up to one account's turn.
import { describe, expect, it } from "vitest";
import { Counts, FairQueues, type SandboxScope } from "@/server/platform/tool-servers/script-sandbox/fair-queues";

const call = (account: string, endUser: string, tag: string) => ({ scope: { account, endUser }, tag });
const always = () => true;

describe("FairQueues", () => {
  it("takes accounts in turn however many end-users each has, and an account's end-users in turn", () => {
    const queues = new FairQueues<ReturnType<typeof call>>();
    // Account 1 floods through four end-users before account 2's one call arrives.
    for (const user of ["u1", "u2", "u3", "u4"]) for (const n of [1, 2]) queues.push(call("1", user, `${user}.${n}`));
    queues.push(call("2", "", "b"));
    expect(queues.size).toBe(9);
    expect(queues.waitingOfAccount("1")).toBe(8);
    expect(queues.waitingOf({ account: "1", endUser: "u2" })).toBe(2);

    const order = Array.from({ length: 9 }, () => queues.take(always, always)!.tag);
    expect(order).toEqual(["u1.1", "b", "u2.1", "u3.1", "u4.1", "u1.2", "u2.2", "u3.2", "u4.2"]);
    expect(queues.size).toBe(0);
    expect(queues.take(always, always)).toBeUndefined();
  });

  it("skips an account, or an end-user, that may not run one more, without losing its turn", () => {
    const queues = new FairQueues<ReturnType<typeof call>>();
    queues.push(call("1", "u1", "a"));
    queues.push(call("1", "u2", "c"));
    queues.push(call("2", "", "b"));
    expect(queues.take((account) => account !== "1", always)!.tag).toBe("b");
    expect(queues.take(always, (scope: SandboxScope) => scope.endUser !== "u1")!.tag).toBe("c");
    expect(queues.take(always, always)!.tag).toBe("a");
  });

  it("hands back what waited when cleared", () => {
    const queues = new FairQueues<ReturnType<typeof call>>();
    queues.push(call("1", "u1", "a"));
    queues.push(call("2", "", "b"));
    expect(queues.clear().map((item) => item.tag).sort()).toEqual(["a", "b"]);
    expect(queues.size).toBe(0);
  });
});

describe("Counts", () => {
  it("counts running calls per account and per end-user", () => {
    const counts = new Counts();
    counts.add({ account: "1", endUser: "u1" }, 1);
    counts.add({ account: "1", endUser: "u2" }, 1);
    expect(counts.ofAccount("1")).toBe(2);
    expect(counts.ofEndUser({ account: "1", endUser: "u1" })).toBe(1);
    // The same end-user id under another account is someone else.
    expect(counts.ofEndUser({ account: "2", endUser: "u1" })).toBe(0);
    counts.add({ account: "1", endUser: "u1" }, -1);
    expect(counts.ofAccount("1")).toBe(1);
    expect(counts.ofEndUser({ account: "1", endUser: "u1" })).toBe(0);
  });
});
