// The run lifecycle table (packages/core/src/schemas/run-lifecycle.ts) against the spec's "Run status" table, and
// against the code: no statement writes a run's status except with a transition's `to`.
import { type Dirent, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ACTIVE_STATUSES, RUN_STATUSES, TERMINAL_STATUSES, type RunStatusName } from "@inlay/core/schemas/run-constants";
import { RUN_LIFECYCLE, type RunTransition, type RunTransitionName } from "@inlay/core/schemas/run-lifecycle";
import { WEBHOOK_EVENT_TYPES } from "@inlay/core/schemas/webhooks";

const transitions = Object.entries(RUN_LIFECYCLE) as [RunTransitionName, RunTransition][];
const leaving = (status: RunStatusName) => transitions.filter(([, transition]) => transition.from.includes(status));

/**
 * The spec's table (concepts.md, "States and transitions", "Run status"), one row each: the states a
 * run is in, what moves it, and the state it reaches (null: unchanged, the request gets 409). `by`
 * names the transition of ours that carries the row out.
 */
const SPEC_ROWS: { states: RunStatusName[] | "none"; movedBy: string; next: RunStatusName | null; by?: RunTransitionName }[] = [
  { states: "none", movedBy: "POST /runs, /runs/first-session, /runs/with-files, /tasks/<task_id>/runs", next: "running", by: "start" },
  { states: ["running", "awaiting_approval"], movedBy: "POST /runs/<run_id>/cancel", next: "cancelled", by: "cancel" },
  { states: ["completed", "failed", "cancelled"], movedBy: "POST /runs/<run_id>/cancel", next: null, by: "cancel" },
  // An answer to a running run is stored and picked up: its status does not change.
  { states: ["running"], movedBy: "POST /runs/<run_id>/answer", next: null, by: "proceed" },
  { states: ["awaiting_approval"], movedBy: "POST /runs/<run_id>/answer", next: "running", by: "proceed" },
  { states: ["completed", "failed", "cancelled"], movedBy: "POST /runs/<run_id>/answer", next: null, by: "proceed" },
  { states: ["running"], movedBy: "a tool needs approval or a question is asked", next: "awaiting_approval", by: "pause" },
  // The approval settles the request; the run goes on once none is pending (the answer's row above).
  { states: ["awaiting_approval"], movedBy: "POST /runs/<run_id>/approve", next: "running", by: "proceed" },
];

describe("the run lifecycle table", () => {
  it.each(SPEC_ROWS)("$movedBy from $states: $next", ({ states, next, by }) => {
    const transition = RUN_LIFECYCLE[by!];
    if (states === "none") {
      expect(transition.from).toEqual([]);
      expect(transition.to).toBe(next);
      return;
    }
    for (const state of states) {
      if (next === null) expect(transition.from).not.toContain(state);
      else expect(transition).toMatchObject({ from: expect.arrayContaining([state]), to: next });
    }
  });

  it("moves no finished run except by a reply, which makes it run again", () => {
    for (const status of TERMINAL_STATUSES) {
      expect(leaving(status).map(([name]) => name)).toEqual(["reply"]);
    }
    expect(RUN_LIFECYCLE.reply).toMatchObject({ to: "running", event: "run.message_received" });
  });

  it("cancels only an active run", () => {
    expect(RUN_LIFECYCLE.cancel.from).toEqual(ACTIVE_STATUSES);
  });

  it("never moves a run into or out of closed or archived, and never into paused (the spec shows none)", () => {
    for (const [, transition] of transitions) {
      expect(["closed", "archived", "paused"]).not.toContain(transition.to);
      expect(transition.from).not.toContain("closed");
      expect(transition.from).not.toContain("archived");
    }
  });

  it("emits the spec's run event of each status it reaches", () => {
    const eventOf: Partial<Record<RunStatusName, string>> = {
      completed: "run.completed",
      failed: "run.failed",
      cancelled: "run.cancelled",
      awaiting_approval: "run.awaiting_input",
    };
    for (const [name, transition] of transitions) {
      if (transition.event !== null) expect(WEBHOOK_EVENT_TYPES).toContain(transition.event);
      const expected = eventOf[transition.to];
      if (expected) expect(transition.event, name).toBe(expected);
    }
    expect(RUN_LIFECYCLE.start.event).toBe("run.started");
  });

  it("names only statuses of the spec", () => {
    for (const [, transition] of transitions) {
      for (const status of [...transition.from, transition.to]) expect(RUN_STATUSES).toContain(status);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The code: a run's status is written only as a transition's `to`.

const ROOTS = ["server", "lib", "app", "prisma", "scripts"];
const SKIP = /(^|\/)(generated|node_modules)(\/|$)/;
const PRISMA_WRITES = new Set(["create", "createMany", "createManyAndReturn", "update", "updateMany", "updateManyAndReturn", "upsert"]);

function sourceFiles(dir: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (SKIP.test(full)) return [];
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|mts)$/.test(entry.name) ? [full] : [];
  });
}

/** A transition's target: `RUN_LIFECYCLE.<name>.to`, `RUN_LIFECYCLE[<name>].to`, or `to` read from one. */
const isTransitionTarget = (node: ts.Node): boolean => {
  const text = node.getText().replace(/\s+/g, "");
  return /^RUN_LIFECYCLE(\.\w+|\[\w+(\.\w+)*\])\.to(::text)?$/.test(text) || text === "to";
};

/** Where the code writes a run's status otherwise, as "file:line: what". */
function statusWrites(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (node: ts.Node, what: string) =>
    found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${what}`);
  const visit = (node: ts.Node) => {
    // prisma.platformRun.<write>({ data: { status: … } }) (a `where` may name statuses: it writes none).
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      PRISMA_WRITES.has(node.expression.name.text) &&
      ts.isPropertyAccessExpression(node.expression.expression) &&
      node.expression.expression.name.text === "platformRun"
    ) {
      const [args] = node.arguments;
      const data = args && ts.isObjectLiteralExpression(args) ? args.properties.find((p) => p.name?.getText() === "data" || p.name?.getText() === "create" || p.name?.getText() === "update") : undefined;
      const written = (value: ts.Node | undefined): void => {
        if (!value) return;
        if (ts.isObjectLiteralExpression(value)) {
          for (const property of value.properties) {
            if (ts.isPropertyAssignment(property) && property.name.getText() === "status" && !isTransitionTarget(property.initializer)) {
              at(property, `platformRun.${(node.expression as ts.PropertyAccessExpression).name.text} writes status ${property.initializer.getText()}`);
            }
            if (ts.isShorthandPropertyAssignment(property) && property.name.text === "status") at(property, "writes a status it was given");
          }
          return;
        }
        // toDbJson(…, RUN_JSON) and the like: look inside their first argument.
        if (ts.isCallExpression(value)) written(value.arguments[0]);
      };
      if (data && ts.isPropertyAssignment(data)) {
        written(data.initializer);
        if (ts.isObjectLiteralExpression(data.initializer)) {
          for (const property of data.initializer.properties) if (ts.isSpreadAssignment(property)) written(property.expression);
        }
      }
    }
    // SQL: INSERT INTO platform_runs (…, status, …) or UPDATE platform_runs … SET … status = ….
    if (ts.isTemplateExpression(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      const parts = ts.isTemplateExpression(node)
        ? [node.head.text, ...node.templateSpans.flatMap((span) => [`\u0000${span.expression.getText()}\u0000`, span.literal.text])]
        : [node.text];
      const sql = parts.join("");
      const insert = /INSERT\s+INTO\s+platform_runs\s*\(([^)]*)\)\s*SELECT([\s\S]*?)\bFROM\b/i.exec(sql);
      if (insert) {
        const columns = insert[1]!.replace(/\u0000[^\u0000]*\u0000/g, "").split(",").map((column) => column.trim()).filter(Boolean);
        const values = splitTopLevel(insert[2]!);
        const offset = values.length - columns.length;
        const index = columns.indexOf("status");
        const value = index === -1 ? undefined : values[index + offset]?.replace(/\u0000/g, "").trim();
        if (index !== -1 && !(value && /^RUN_LIFECYCLE\.\w+\.to(::text)?$/.test(value))) at(node, `INSERT INTO platform_runs writes status ${value}`);
      }
      for (const match of sql.matchAll(/UPDATE\s+platform_runs\b[^;]*?\bSET\b([\s\S]*?)(\bWHERE\b|\bFROM\b|\bRETURNING\b|$)/gi)) {
        const set = match[1]!;
        const status = /(?:^|,)\s*(?:\w+\.)?status\s*=\s*([^,]*)/.exec(set);
        if (status && !/^\u0000RUN_LIFECYCLE\[[\w.]+\]\.to\u0000$/.test(status[1]!.trim())) at(node, `UPDATE platform_runs sets status = ${status[1]!.trim()}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The items of a SELECT list, split at commas outside parentheses (interpolations already marked). */
function splitTopLevel(list: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let inside = false;
  let current = "";
  for (const char of list) {
    if (char === "\u0000") inside = !inside;
    if (!inside && char === "(") depth++;
    if (!inside && char === ")") depth--;
    if (!inside && depth === 0 && char === ",") {
      items.push(current.trim());
      current = "";
    } else current += char;
  }
  if (current.trim()) items.push(current.trim());
  return items;
}

describe("a run's status changes only through the lifecycle table", () => {
  it("finds the writes it must find", () => {
    // The checks themselves, on code that breaks the rule and code that keeps it.
    const broken = [
      'prisma.platformRun.update({ where: { id }, data: { status: "cancelled" } });',
      'tx.platformRun.updateMany({ where: { id, status: { in: ["running"] } }, data: { ...runUpdate(data), status: "failed" } });',
      "prisma.platformRun.create({ data: toDbJson({ ...data, status: \"running\" }, RUN_JSON) });",
      "sql`UPDATE platform_runs SET lease_owner = NULL, status = 'failed' WHERE id = ${id}`;",
      "sql`UPDATE platform_runs AS r SET status = ${next}, error = ${error} WHERE r.id = ${id}`;",
      "sql`INSERT INTO platform_runs (account_id, status, model) SELECT ${a}, 'running', ${m} FROM hold`;",
    ];
    for (const code of broken) expect(statusWrites("example.ts", code), code).toHaveLength(1);
    const kept = [
      "tx.platformRun.updateMany({ where: { id, status: { in: [...from] } }, data: { ...runUpdate(data), status: to } });",
      "prisma.platformRun.updateMany({ where: { id: runId, status: { not: \"running\" } }, data: { checkpoint: null } });",
      "sql`UPDATE platform_runs SET lease_owner = NULL WHERE id = ${id} AND status = 'running'`;",
      "sql`UPDATE platform_runs AS r SET status = ${RUN_LIFECYCLE[transition].to}, error = ${e} WHERE r.id = ${id}`;",
      "sql`INSERT INTO platform_runs (account_id, status, model) SELECT ${a}, ${RUN_LIFECYCLE.start.to}::text, ${m} FROM hold`;",
    ];
    for (const code of kept) expect(statusWrites("example.ts", code), code).toEqual([]);
  });

  it("no code writes a run's status but as a transition's target", () => {
    const root = path.resolve(import.meta.dirname, "../../..");
    const found = ROOTS.flatMap((dir) => sourceFiles(path.join(root, dir))).flatMap((file) => {
      const text = readFileSync(file, "utf8");
      // Only files with a write to the runs table are parsed.
      if (!/platformRun\.(create|update|upsert)|(INSERT\s+INTO|UPDATE)\s+platform_runs/i.test(text)) return [];
      return statusWrites(path.relative(root, file), text);
    });
    expect(found).toEqual([]);
  });
});
