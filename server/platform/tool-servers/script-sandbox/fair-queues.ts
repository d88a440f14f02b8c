// The script sandbox's fair share (index.ts): waiting calls are taken account by account in turn and,
// within an account, end-user by end-user, so an account's load spread over many end-users still
// counts as one account's. No limits here: the pool says which account and end-user may run one more.

/** Whose call it is: an account, and one of its end-users or (endUser "") the account's own calls. */
export interface SandboxScope {
  account: string;
  endUser: string;
}

export class FairQueues<T extends { scope: SandboxScope }> {
  // Accounts in the order they are served, each with its end-users' calls in the order they are served.
  private readonly accounts = new Map<string, Map<string, T[]>>();
  private count = 0;

  /** Calls waiting, all accounts together. */
  get size(): number {
    return this.count;
  }

  waitingOf(scope: SandboxScope): number {
    return this.accounts.get(scope.account)?.get(scope.endUser)?.length ?? 0;
  }

  waitingOfAccount(account: string): number {
    let waiting = 0;
    for (const calls of this.accounts.get(account)?.values() ?? []) waiting += calls.length;
    return waiting;
  }

  push(item: T): void {
    const { account, endUser } = item.scope;
    let endUsers = this.accounts.get(account);
    if (!endUsers) this.accounts.set(account, (endUsers = new Map()));
    let calls = endUsers.get(endUser);
    if (!calls) endUsers.set(endUser, (calls = []));
    calls.push(item);
    this.count++;
  }

  /**
   * The next call of the first account in turn that `accountMay` run one more, from its first end-user
   * in turn that `endUserMay`; the account and the end-user go to the back of their turns.
   */
  take(accountMay: (account: string) => boolean, endUserMay: (scope: SandboxScope) => boolean): T | undefined {
    for (const [account, endUsers] of this.accounts) {
      if (!accountMay(account)) continue;
      for (const [endUser, calls] of endUsers) {
        if (!endUserMay({ account, endUser })) continue;
        const item = calls.shift()!;
        this.count--;
        endUsers.delete(endUser);
        if (calls.length > 0) endUsers.set(endUser, calls);
        this.accounts.delete(account);
        if (endUsers.size > 0) this.accounts.set(account, endUsers);
        return item;
      }
    }
    return undefined;
  }

  /** Empties the queues; returns what waited. */
  clear(): T[] {
    const all = [...this.accounts.values()].flatMap((endUsers) => [...endUsers.values()].flat());
    this.accounts.clear();
    this.count = 0;
    return all;
  }
}

/** Calls running, per account and per end-user. */
export class Counts {
  private readonly accounts = new Map<string, number>();
  private readonly endUsers = new Map<string, number>();

  add(scope: SandboxScope, delta: number): void {
    bump(this.accounts, scope.account, delta);
    bump(this.endUsers, endUserKey(scope), delta);
  }

  ofAccount(account: string): number {
    return this.accounts.get(account) ?? 0;
  }

  ofEndUser(scope: SandboxScope): number {
    return this.endUsers.get(endUserKey(scope)) ?? 0;
  }
}

const endUserKey = (scope: SandboxScope) => JSON.stringify([scope.account, scope.endUser]);

function bump(counts: Map<string, number>, key: string, delta: number): void {
  const count = (counts.get(key) ?? 0) + delta;
  if (count > 0) counts.set(key, count);
  else counts.delete(key);
}
