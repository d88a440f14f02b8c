// How an app tool's definition and the model's input become one HTTP request.
import { describe, expect, it } from "vitest";
import { AppToolInputError, buildAppRequest } from "@/server/platform/apps/app-http";
import type { AppToolDefinition } from "@/server/platform/apps/definition";

const createIssue: AppToolDefinition = {
  name: "create_issue",
  description: "Open an issue",
  method: "POST",
  path: "/repos/{owner}/{repo}/issues",
  input: { type: "object", properties: {}, required: ["owner", "repo", "title"] },
};

const listIssues: AppToolDefinition = { ...createIssue, name: "list_issues", method: "GET" };

describe("buildAppRequest", () => {
  it("fills the path from the input, URL-encoded, and sends the rest as a JSON body", () => {
    const request = buildAppRequest("https://api.example.test/", createIssue, { owner: "a b", repo: "x/y", title: "Bug", labels: ["p1"] });
    expect(request.method).toBe("POST");
    expect(request.url).toBe("https://api.example.test/repos/a%20b/x%2Fy/issues");
    expect(JSON.parse(request.body!)).toEqual({ title: "Bug", labels: ["p1"] });
    expect(request.headers["content-type"]).toBe("application/json");
  });

  it("puts the rest in the query string for GET, objects as JSON", () => {
    const request = buildAppRequest("https://api.example.test/v1", listIssues, { owner: "o", repo: "r", state: "open", per_page: 5, filter: { a: 1 } });
    const url = new URL(request.url);
    expect(url.pathname).toBe("/v1/repos/o/r/issues");
    expect(Object.fromEntries(url.searchParams)).toEqual({ state: "open", per_page: "5", filter: '{"a":1}' });
    expect(request.body).toBeUndefined();
  });

  it("honours query names on a POST", () => {
    const request = buildAppRequest("https://api.example.test", { ...createIssue, query: ["dry_run"] }, { owner: "o", repo: "r", title: "t", dry_run: true });
    expect(new URL(request.url).searchParams.get("dry_run")).toBe("true");
    expect(JSON.parse(request.body!)).toEqual({ title: "t" });
  });

  it("refuses a missing path value by name", () => {
    expect(() => buildAppRequest("https://api.example.test", createIssue, { owner: "o", title: "t" })).toThrow(AppToolInputError);
    expect(() => buildAppRequest("https://api.example.test", createIssue, { owner: "o", repo: "", title: "t" })).toThrow("repo: is required");
  });

  it("cannot climb out of the base path through a placeholder", () => {
    for (const owner of ["..", ".", "%2e%2E", ".%2e"]) {
      expect(() => buildAppRequest("https://api.example.test/v1", listIssues, { owner, repo: "r" })).toThrow("owner: is not a valid path value");
    }
    const request = buildAppRequest("https://api.example.test/v1", listIssues, { owner: "o", repo: "../../admin" });
    expect(new URL(request.url).pathname).toBe("/v1/repos/o/..%2F..%2Fadmin/issues");
  });
});
