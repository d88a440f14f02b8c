// An operation's name for metrics and logs: its method and path with every id or name replaced by
// {id} (`GET /runs/{id}/events`), so a label never carries a run id, a user id or a document name.
// The words below are the paths' fixed segments; anything else is taken for an id, so a path this list
// does not know yet is named coarsely, never by its values (tests/unit/platform-client/operation-name.test.ts
// checks the list against the resources' paths).
export const PATH_WORDS: ReadonlySet<string> = new Set(
  (
    "accept account accounts activate-free activity agent-templates agents alert-settings all answer api-key apply-default " +
    "approve approve-commands apps authorizations auto-reload balance billing bridges built-in-tools cancel channels " +
    "chat-channel check checkout commands complete confirm connect connection connections credits default-model deliveries " +
    "disable documents email-inbox enable end-users env events export fetchmail fires first-session handles identities " +
    "install-links invites invoice invokable issue-reports judgments keys lessons lessons:clear link-code mcp-servers " +
    "members memories messages model-connections models needs-you oauth observations operator overage password paste " +
    "permission-mode permissions plans portal preferred-default provA receipts refresh replay reply report repos resend reset " +
    "retry revoke rotate rotate-secret runs sessions settings signup signup-invites skills start status system-prompt tasks teammates " +
    "teams test timeseries token tools topup triggers unarchive usage use-cases users value verify webhook webhooks " +
    "with-files workspaces"
  ).split(" "),
);

export function operationName(method: string, path: string): string {
  const template = path
    .split("/")
    .map((part) => (part === "" || PATH_WORDS.has(part) ? part : "{id}"))
    .join("/");
  return `${method} ${template}`;
}
