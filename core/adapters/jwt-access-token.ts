import { type JWTPayload, errors as joseErrors } from 'jose';
import { AppError } from '../errors.js';
import { type OAuthScope, isOAuthScope, normalizeScopes } from '../oauth/oauth.schema.js';
import type { AccessTokenClaims } from '../ports/token-verifier.js';

export function invalidToken(description: string): AppError {
  return new AppError(401, 'invalid_token', description);
}

/** A verification failure as the reason the client is told (never the token itself). */
export function verificationFailure(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof joseErrors.JWTExpired) return invalidToken('The access token has expired; request a new one.');
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    if (err.claim === 'aud') return invalidToken('The access token was not issued for this resource (wrong audience).');
    if (err.claim === 'iss') return invalidToken('The access token was not issued by the authorization server this resource trusts.');
    return invalidToken(`The access token's "${err.claim}" claim is not valid.`);
  }
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return invalidToken('The access token signature is not valid.');
  if (err instanceof joseErrors.JWKSNoMatchingKey) return invalidToken('The access token is signed with an unknown key.');
  if (err instanceof joseErrors.JWKSTimeout) {
    return new AppError(503, 'temporarily_unavailable', 'The authorization server\'s keys could not be fetched; retry shortly.');
  }
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return invalidToken('The access token is signed with an algorithm that is not accepted.');
  if (err instanceof joseErrors.JOSEError) return invalidToken('The bearer token is not a valid access token.');
  throw err;
}

function stringClaim(payload: JWTPayload, name: string): string | undefined {
  const value = payload[name];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Lore's claims of a verified JWT access token (RFC 9068): `client_id` (Keycloak: `azp`),
 * `tenant_id`, optional `sub_tenant_id`, `scope`, `jti` and `exp`.
 */
export function accessTokenClaims(payload: JWTPayload): AccessTokenClaims {
  const clientId = stringClaim(payload, 'client_id') ?? stringClaim(payload, 'azp') ?? payload.sub;
  const tenantId = stringClaim(payload, 'tenant_id');
  const subTenantId = payload.sub_tenant_id ?? null;
  if (!clientId) throw invalidToken('The access token names no client.');
  if (!tenantId || !UUID.test(tenantId)) throw invalidToken('The access token names no tenant.');
  if (subTenantId !== null && (typeof subTenantId !== 'string' || !UUID.test(subTenantId))) {
    throw invalidToken('The access token names an invalid sub-tenant.');
  }
  if (!payload.jti) throw invalidToken('The access token has no "jti" claim.');
  if (typeof payload.exp !== 'number') throw invalidToken('The access token has no expiry.');
  const scopes: OAuthScope[] = normalizeScopes(
    (typeof payload.scope === 'string' ? payload.scope.split(' ') : []).filter(isOAuthScope),
  );
  if (scopes.length === 0) throw invalidToken('The access token grants none of the scopes mcp:read, mcp:write, mcp:admin.');
  return {
    tokenId: payload.jti,
    clientId,
    tenantId,
    subTenantId,
    scopes,
    expiresAt: payload.exp,
    audience: Array.isArray(payload.aud) ? payload.aud : payload.aud ? [payload.aud] : [],
  };
}
