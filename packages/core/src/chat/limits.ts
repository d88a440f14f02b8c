// The chat's limits that the browser needs as well as the bridge. Kept apart from contract.ts (zod)
// so the chat components can read them without bringing zod into the page's JavaScript.

/** At most this many files ride on one message (the composer stops adding; the bridge refuses more). */
export const MAX_ATTACHMENTS = 10;
