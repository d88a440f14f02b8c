// What is particular to apps in OAuth: an app definition's settings as the platform's OAuth client
// (outbound/oauth-client.ts) takes them, with loopback and plain http only for an app that may use
// them (appMayUseLoopback: the platform allows it, or the app is the installation's own).
import type { PlatformConfig } from "../platform-config";
import { authorizationUrl, OAuthError, type OAuthTarget } from "../outbound/oauth-client";
import { appMayUseLoopback, type AppDefinition, type OAuthSettings } from "./definition";

export const requireOAuth = (app: AppDefinition): OAuthSettings & { clientId: string; clientSecret: string } => {
  const settings = app.oauth;
  if (!settings?.clientId || !settings.clientSecret) throw new OAuthError("app_not_configured", `${app.slug} has no OAuth client credentials`);
  return settings as OAuthSettings & { clientId: string; clientSecret: string };
};

/** The app's authorization server and client, for the code exchange, refresh and revocation. */
export function appOAuthTarget(config: PlatformConfig, app: AppDefinition): OAuthTarget {
  const settings = requireOAuth(app);
  const allow = appMayUseLoopback(config, app);
  return {
    server: {
      ...(settings.issuer ? { issuer: settings.issuer } : {}),
      authorizationEndpoint: settings.authorizationUrl,
      tokenEndpoint: settings.tokenUrl,
      ...(settings.revocationUrl ? { revocationEndpoint: settings.revocationUrl } : {}),
    },
    clientId: settings.clientId,
    clientSecret: settings.clientSecret,
    authMethod: settings.tokenAuthMethod ?? "client_secret_post",
    outbound: { allowHttp: allow, allowLoopback: allow, timeoutMs: 15_000 },
    ...(settings.extraTokenTypes ? { extraTokenTypes: settings.extraTokenTypes } : {}),
  };
}

export function appAuthorizationUrl(app: AppDefinition, input: { redirectUri: string; state: string; codeVerifier: string }): Promise<string> {
  const settings = requireOAuth(app);
  return authorizationUrl({
    authorizationEndpoint: settings.authorizationUrl,
    clientId: settings.clientId,
    redirectUri: input.redirectUri,
    scopes: settings.scopes,
    ...(settings.scopeSeparator ? { scopeSeparator: settings.scopeSeparator } : {}),
    state: input.state,
    codeVerifier: input.codeVerifier,
    ...(settings.authorizationParams ? { params: settings.authorizationParams } : {}),
  });
}
