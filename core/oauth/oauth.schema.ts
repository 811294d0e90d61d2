import { z } from 'zod';
import type { Role } from '../context.js';
import { AppError } from '../errors.js';

/** Spec §5: the MCP scopes; a broader scope includes the narrower ones. */
export const OAUTH_SCOPES = ['mcp:read', 'mcp:write', 'mcp:admin'] as const;
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

const SCOPE_RANK: Record<OAuthScope, number> = { 'mcp:read': 1, 'mcp:write': 2, 'mcp:admin': 3 };
const SCOPE_ROLE: Record<OAuthScope, Role> = { 'mcp:read': 'read', 'mcp:write': 'write', 'mcp:admin': 'admin' };

/** Spec §8: access tokens expire after 15 minutes. */
export const ACCESS_TOKEN_LIFETIME_SECONDS = 15 * 60;

/** Interactive browser sign-in is unavailable (spec §5); every answer that touches it says so. */
export const INTERACTIVE_SIGN_IN_UNAVAILABLE =
  'Interactive browser sign-in is not available: Lore issues tokens only through the client credentials grant ' +
  '(grant_type=client_credentials with a client_id and client_secret registered by support). ' +
  'Clients that need a browser sign-in cannot connect; use the REST API with an API key instead.';

export function isOAuthScope(value: string): value is OAuthScope {
  return (OAUTH_SCOPES as readonly string[]).includes(value);
}

/** Whether scopes held include `required` (mcp:admin includes mcp:write includes mcp:read). */
export function scopesInclude(held: readonly OAuthScope[], required: OAuthScope): boolean {
  return held.some((s) => SCOPE_RANK[s] >= SCOPE_RANK[required]);
}

/** The role a token acts with: that of its broadest scope. */
export function roleOfScopes(scopes: readonly OAuthScope[]): Role {
  const broadest = [...scopes].sort((a, b) => SCOPE_RANK[b] - SCOPE_RANK[a])[0];
  return broadest ? SCOPE_ROLE[broadest] : 'read';
}

/** Unique scopes, narrowest first: the canonical order in `scope` strings and records. */
export function normalizeScopes(scopes: readonly OAuthScope[]): OAuthScope[] {
  return [...new Set(scopes)].sort((a, b) => SCOPE_RANK[a] - SCOPE_RANK[b]);
}

/** Every scope a set of scopes grants, implied ones included (what a session may call). */
export function effectiveScopes(scopes: readonly OAuthScope[]): OAuthScope[] {
  return OAUTH_SCOPES.filter((s) => scopesInclude(scopes, s));
}

/**
 * An OAuth protocol error (RFC 6749 §5.2, RFC 7009, RFC 7591, RFC 8707): rendered by the OAuth
 * endpoints as `{error, error_description}`.
 */
export function oauthError(status: number, code: string, description: string, headers: Record<string, string> = {}): AppError {
  return new AppError(status, code, description, {}, headers);
}

const scopeList = z
  .array(z.enum(OAUTH_SCOPES))
  .min(1)
  .transform(normalizeScopes)
  .meta({ description: 'mcp:read, mcp:write and/or mcp:admin; a broader scope includes the narrower ones.' });

/** Body of POST /internal/v1/oauth-clients. */
export const createOAuthClientSchema = z.strictObject({
  tenant_id: z.uuid(),
  sub_tenant_id: z.uuid().nullable().optional(),
  name: z.string().trim().min(1).max(200),
  scopes: scopeList,
});
export type CreateOAuthClientInput = z.infer<typeof createOAuthClientSchema>;

/** Body of POST /internal/v1/oauth-initial-access-tokens. */
export const createInitialAccessTokenSchema = z.strictObject({
  tenant_id: z.uuid(),
  sub_tenant_id: z.uuid().nullable().optional(),
  scopes: scopeList.optional().meta({ description: 'The most a client registered with this token may hold (default: all three).' }),
  expires_in: z
    .number()
    .int()
    .min(60)
    .max(30 * 86_400)
    .default(86_400)
    .meta({ description: 'Seconds until the token expires unused (default one day, at most 30 days).' }),
});
export type CreateInitialAccessTokenInput = z.infer<typeof createInitialAccessTokenSchema>;

/**
 * RFC 7591 client metadata accepted at /oauth/register. Only what a client-credentials client can
 * use; other registered metadata (logo_uri, contacts, ...) is accepted and ignored, as §2 allows.
 */
export const registrationRequestSchema = z.looseObject({
  client_name: z.string().trim().min(1).max(200).optional(),
  scope: z.string().max(200).optional(),
  grant_types: z.array(z.string()).optional(),
  response_types: z.array(z.string()).optional(),
  redirect_uris: z.array(z.string()).optional(),
  token_endpoint_auth_method: z.string().optional(),
});
export type RegistrationRequest = z.infer<typeof registrationRequestSchema>;

export const TOKEN_ENDPOINT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post'] as const;
export type TokenEndpointAuthMethod = (typeof TOKEN_ENDPOINT_AUTH_METHODS)[number];

/** An OAuth application as support sees it (never its secret). */
export interface OAuthClientView {
  client_id: string;
  tenant_id: string;
  sub_tenant_id: string | null;
  name: string;
  scopes: OAuthScope[];
  registered_by: 'admin' | 'registration';
  created_at: string;
  last_used_at: string | null;
}
