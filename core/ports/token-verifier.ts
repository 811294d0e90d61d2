import type { OAuthScope } from '../oauth/oauth.schema.js';

/** What a verified access token says. */
export interface AccessTokenClaims {
  /** `jti`: the token's id, for revocation. */
  tokenId: string;
  clientId: string;
  tenantId: string;
  subTenantId: string | null;
  /** The granted scopes (Lore's scopes only; others are dropped). */
  scopes: OAuthScope[];
  /** `exp`, in seconds since the epoch. */
  expiresAt: number;
  audience: string[];
}

export interface ExpectedToken {
  /** The issuer of the built-in authorization server as this request reaches it. */
  issuer: string;
  /** Any of these audiences is accepted (the MCP resource identifiers). */
  audiences: string[];
  now: Date;
}

/**
 * Verifies access tokens presented to the MCP endpoint: signature, issuer, audience and lifetime.
 * Throws an AppError `invalid_token` (401) with a reason for anything else. The built-in issuer
 * (`local`) signs with its own key; an external one (Keycloak) is trusted through its JWKS, and its
 * clients live there rather than in Lore's database.
 */
export interface TokenVerifier {
  readonly kind: 'local' | 'external';
  /** The issuer to advertise in the protected-resource metadata; undefined: the built-in one. */
  readonly externalIssuer: string | undefined;
  verify(token: string, expected: ExpectedToken): Promise<AccessTokenClaims>;
}
