// The code host: GitHub's REST API (OAuth App user tokens). Every URL can be pointed elsewhere
// (GitHub Enterprise, a test fake) through the catalogue's settings.
import type { AppDefinition } from "../definition";

const repoPath = { owner: { type: "string", description: "Owner (user or organisation) of the repository" }, repo: { type: "string", description: "Repository name" } };

export const codehost: AppDefinition = {
  slug: "codehost",
  name: "Code host",
  description: "Repositories, issues and comments on the code host (GitHub REST API).",
  auth: "oauth2",
  oauth: {
    authorizationUrl: "https://github.com/login/oauth/authorize",
    tokenUrl: "https://github.com/login/oauth/access_token",
    scopes: ["repo", "read:user"],
  },
  apiBaseUrl: "https://api.github.com",
  identity: { path: "/user", labelField: "login" },
  tools: [
    {
      name: "list_repos",
      description: "List the repositories the connected account can access, most recently updated first.",
      method: "GET",
      path: "/user/repos",
      input: {
        type: "object",
        properties: {
          sort: { type: "string", enum: ["created", "updated", "pushed", "full_name"] },
          per_page: { type: "integer", minimum: 1, maximum: 100 },
          page: { type: "integer", minimum: 1 },
        },
      },
    },
    {
      name: "get_issue",
      description: "Get one issue of a repository.",
      method: "GET",
      path: "/repos/{owner}/{repo}/issues/{issue_number}",
      input: { type: "object", properties: { ...repoPath, issue_number: { type: "integer" } }, required: ["owner", "repo", "issue_number"] },
    },
    {
      name: "list_issues",
      description: "List the issues of a repository.",
      method: "GET",
      path: "/repos/{owner}/{repo}/issues",
      input: {
        type: "object",
        properties: {
          ...repoPath,
          state: { type: "string", enum: ["open", "closed", "all"] },
          labels: { type: "string", description: "Comma-separated label names" },
          per_page: { type: "integer", minimum: 1, maximum: 100 },
          page: { type: "integer", minimum: 1 },
        },
        required: ["owner", "repo"],
      },
    },
    {
      name: "create_issue",
      description: "Open an issue in a repository.",
      method: "POST",
      path: "/repos/{owner}/{repo}/issues",
      input: {
        type: "object",
        properties: { ...repoPath, title: { type: "string" }, body: { type: "string" }, labels: { type: "array", items: { type: "string" } } },
        required: ["owner", "repo", "title"],
      },
      scopes: ["repo"],
    },
    {
      name: "create_comment",
      description: "Comment on an issue or pull request.",
      method: "POST",
      path: "/repos/{owner}/{repo}/issues/{issue_number}/comments",
      input: { type: "object", properties: { ...repoPath, issue_number: { type: "integer" }, body: { type: "string" } }, required: ["owner", "repo", "issue_number", "body"] },
      scopes: ["repo"],
    },
  ],
  triggers: [
    {
      name: "issue_opened",
      description: "An issue was opened in a repository.",
      config: { type: "object", properties: repoPath, required: ["owner", "repo"] },
    },
  ],
  source: "builtin",
};
