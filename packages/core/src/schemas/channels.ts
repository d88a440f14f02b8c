// Channels (/channels): the team-chat app and the code-host app as the account's channels, the
// account's own registration of each (its identity) and the links that install them. No schema here
// carries a secret: identities' secrets are write-only.
import { z } from "zod";
import { RedirectUri } from "./apps";
import { Timestamp, UserId } from "./common";

export const CHANNELS = ["chat", "codehost"] as const;
export const ChannelName = z.enum(CHANNELS, { error: "must be chat (the team-chat app) or codehost (the code-hosting app)" });
export type ChannelName = z.infer<typeof ChannelName>;

export const CHANNEL_IDENTITY_STATES = ["own", "shared", "unavailable"] as const;
export const ChannelIdentityState = z.enum(CHANNEL_IDENTITY_STATES).meta({
  description:
    "own: the account's identity (PUT /channels/identities) is used; shared: the operator's app is; unavailable: neither is configured, so the channel cannot be installed",
});

export const Channel = z
  .object({
    channel: ChannelName,
    app: z.string().meta({ description: "The app's slug (its /apps/<app_name>)" }),
    name: z.string(),
    identity: ChannelIdentityState,
    client_id: z.string().nullable().meta({ description: "The OAuth client in use (the account's own, or the shared app's); null when unavailable" }),
    client_secret_set: z.boolean().meta({ description: "The account's identity holds a client secret (never returned)" }),
    signing_secret_set: z.boolean().meta({ description: "The account's identity holds a signing secret (never returned)" }),
    codehost_app_id: z.string().nullable().meta({ description: "codehost: the identity's app id" }),
    codehost_app_slug: z.string().nullable().meta({ description: "codehost: the identity's app slug" }),
    codehost_private_key_set: z.boolean().meta({ description: "codehost: the identity holds a private key (never returned)" }),
    updated_at: Timestamp.nullable().meta({ description: "When the account's identity was last stored; null without one" }),
  })
  .meta({ id: "Channel" });
export type Channel = z.infer<typeof Channel>;

const Text = (max: number) => z.string().trim().min(1, "must not be blank").max(max, `must be at most ${max} characters`);

export const PutChannelIdentityRequest = z
  .object({
    channel: ChannelName,
    client_id: Text(255).meta({ description: "The OAuth client id of the account's own app" }),
    client_secret: Text(1_000).meta({ description: "Write-only; stored encrypted" }),
    signing_secret: Text(1_000).meta({ description: "Write-only; stored encrypted" }),
    // Kept as given: the spec types none of the three, and only the code host can say what is valid.
    codehost_app_id: z
      .union([Text(100), z.number().int().positive().max(Number.MAX_SAFE_INTEGER)])
      .optional()
      .meta({ description: "codehost (required there): the app's id" }),
    codehost_app_slug: Text(100).optional().meta({ description: "codehost (required there): the app's slug" }),
    codehost_private_key: Text(16_000)
      .optional()
      .meta({ description: "codehost (required there): the app's private key (PEM); write-only, stored encrypted, never returned" }),
  })
  .superRefine((value, context) => {
    for (const field of ["codehost_app_id", "codehost_app_slug", "codehost_private_key"] as const) {
      if (value.channel === "codehost" && value[field] === undefined) {
        context.addIssue({ code: "custom", path: [field], message: "is required for the codehost channel (with codehost_app_id, codehost_app_slug and codehost_private_key)" });
      }
      if (value.channel === "chat" && value[field] !== undefined) {
        context.addIssue({ code: "custom", path: [field], message: "is only accepted for the codehost channel" });
      }
    }
  });
export type PutChannelIdentityRequest = z.infer<typeof PutChannelIdentityRequest>;

export const ChannelInstallLink = z
  .object({
    install_url: z.string().meta({ description: "Send the person's browser here (the app's authorization page)" }),
    connection_id: z.string().meta({ description: "The pending connection; complete it with POST /apps/<app>/connect/complete after the redirect" }),
    expires_at: Timestamp.meta({ description: "The install must come back before then (10 minutes)" }),
    identity: z.enum(["own", "shared"]).meta({ description: "Whose app the link installs: the account's identity or the shared app" }),
  })
  .meta({ id: "ChannelInstallLink" });

export const ChannelInstallLinks = z
  .object({
    chat: ChannelInstallLink,
    codehost: ChannelInstallLink.nullable().meta({ description: "null when the code host is unavailable (no identity and no shared app)" }),
  })
  .meta({ id: "ChannelInstallLinks" });

export const InstallLinksQuery = z.object({
  user_id: UserId.optional().meta({ description: "Install for this end-user; omit for the account level" }),
  redirect_uri: RedirectUri.optional().meta({
    description: "Where the browser lands after the install (connect's rules: the platform's origin or an allowed one); default: the platform's own origin",
  }),
});
