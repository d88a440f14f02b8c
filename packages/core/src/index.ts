// @inlay/core: the typed Agent Platform API client (with Standard Webhooks verification) and
// micro-USD money. Deeper entry points: `@inlay/core/schemas/<resource>` (the zod contract the
// platform validates with) and `@inlay/core/chat/<module>` (the chat's stream protocol).
export * from "./platform-client";
export { formatMicros, formatMicrosExact, microsToUsd, usdToMicros } from "./money";
