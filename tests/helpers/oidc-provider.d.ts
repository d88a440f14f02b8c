// The parts of oidc-provider 9 (untyped JavaScript) the tests' OAuth server uses.
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  export type ClientMetadata = Record<string, unknown> & { client_id: string };

  export interface KoaContextWithOIDC {
    oidc?: { params?: Record<string, unknown> };
  }

  interface Token {
    accountId?: string;
    grantId?: string;
    scopes?: Set<string>;
    aud?: string | string[];
    isExpired: boolean;
    destroy(): Promise<void>;
  }

  interface GrantInstance {
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    addResourceScope(indicator: string, scope: string): void;
    save(): Promise<string>;
    destroy(): Promise<void>;
  }

  interface InteractionDetails {
    prompt: { name: string; details: Record<string, unknown> };
    params: Record<string, unknown>;
    session?: { accountId: string };
    grantId?: string;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
    on(event: string, listener: (...args: any[]) => void): this;
    AccessToken: { find(value: string): Promise<Token | undefined> };
    RefreshToken: { find(value: string): Promise<Token | undefined> };
    Grant: { new (init: { accountId: string; clientId: string }): GrantInstance; find(id: string): Promise<GrantInstance | undefined> };
  }
}
