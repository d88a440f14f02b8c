// Mail and calendar: Google's Gmail and Calendar APIs, both under www.googleapis.com. Offline access
// with prompt=consent so Google hands out a refresh token every time.
import type { AppDefinition } from "../definition";

export const mail: AppDefinition = {
  slug: "mail",
  name: "Mail and calendar",
  description: "Read and send email, list and create calendar events (Gmail and Google Calendar APIs).",
  auth: "oauth2",
  oauth: {
    authorizationUrl: "https://accounts.google.com/o/oauth2/v2/auth",
    tokenUrl: "https://oauth2.googleapis.com/token",
    revocationUrl: "https://oauth2.googleapis.com/revoke",
    issuer: "https://accounts.google.com",
    scopes: [
      "openid",
      "email",
      "https://www.googleapis.com/auth/gmail.modify",
      "https://www.googleapis.com/auth/calendar.events",
    ],
    authorizationParams: { access_type: "offline", prompt: "consent", include_granted_scopes: "true" },
  },
  apiBaseUrl: "https://www.googleapis.com",
  identity: { path: "/oauth2/v3/userinfo", labelField: "email" },
  tools: [
    {
      name: "list_messages",
      description: "List messages of the mailbox, newest first; q takes Gmail search syntax.",
      method: "GET",
      path: "/gmail/v1/users/me/messages",
      input: { type: "object", properties: { q: { type: "string" }, maxResults: { type: "integer", minimum: 1, maximum: 500 }, pageToken: { type: "string" } } },
    },
    {
      name: "send_message",
      description: "Send an email given as an RFC 2822 message, base64url-encoded, in `raw`.",
      method: "POST",
      path: "/gmail/v1/users/me/messages/send",
      input: { type: "object", properties: { raw: { type: "string" }, threadId: { type: "string" } }, required: ["raw"] },
    },
    {
      name: "list_events",
      description: "List events of a calendar (primary by default).",
      method: "GET",
      path: "/calendar/v3/calendars/{calendar_id}/events",
      input: {
        type: "object",
        properties: {
          calendar_id: { type: "string", default: "primary" },
          timeMin: { type: "string", format: "date-time" },
          timeMax: { type: "string", format: "date-time" },
          singleEvents: { type: "boolean" },
          maxResults: { type: "integer", minimum: 1, maximum: 2500 },
        },
        required: ["calendar_id"],
      },
    },
    {
      name: "create_event",
      description: "Create an event in a calendar.",
      method: "POST",
      path: "/calendar/v3/calendars/{calendar_id}/events",
      input: {
        type: "object",
        properties: {
          calendar_id: { type: "string", default: "primary" },
          summary: { type: "string" },
          description: { type: "string" },
          start: { type: "object", properties: { dateTime: { type: "string" }, date: { type: "string" }, timeZone: { type: "string" } } },
          end: { type: "object", properties: { dateTime: { type: "string" }, date: { type: "string" }, timeZone: { type: "string" } } },
          attendees: { type: "array", items: { type: "object", properties: { email: { type: "string" } } } },
        },
        required: ["calendar_id", "summary", "start", "end"],
      },
    },
  ],
  triggers: [
    {
      name: "email_received",
      description: "A message arrived in the mailbox.",
      config: { type: "object", properties: { q: { type: "string", description: "Gmail search the message must match" } } },
    },
  ],
  source: "builtin",
};
