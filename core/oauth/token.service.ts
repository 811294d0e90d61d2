import { randomUUID } from 'node:crypto';
import { SignJWT, createLocalJWKSet, jwtVerify } from 'jose';
import type { Clock } from '../clock.js';
import type { Database } from '../db/database.js';
import type { AccessTokenClaims, TokenVerifier } from '../ports/token-verifier.js';
import { isUuid } from '../shared/ids.js';
import type { AuthenticatedClient } from './oauth-client.service.js';
import {
  type TenantPrincipalRow,
  deleteExpiredRevocations,
  findClientPrincipal,
  findTenantPrincipal,
  insertRevokedToken,
  touchOAuthClient,
} from './oauth-client.repository.js';
import { type OAuthUrlConfig, type OAuthUrls, mcpAudiences, oauthUrls } from './oauth-urls.js';
import {
  ACCESS_TOKEN_LIFETIME_SECONDS,
  OAUTH_SCOPES,
  type OAuthScope,
  isOAuthScope,
  normalizeScopes,
  oauthError,
  scopesInclude,
} from './oauth.schema.js';
import type { SigningKeys } from './signing-keys.js';

/** RFC 6749 §5.1 successful token response. */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

/** An access token presented to the MCP endpoint, verified, with the tenant it acts for. */
export interface AccessTokenPrincipal {
  claims: AccessTokenClaims;
  tenant: TenantPrincipalRow;
}

function invalidToken(description: string) {
  return oauthError(401, 'invalid_token', description);
}

function sameUrl(a: string, b: string): boolean {
  return a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
}

/**
 * The built-in authorization server's tokens: issues signed JWT access tokens (RFC 9068) for the
 * client credentials grant, revokes them (RFC 7009, through a `jti` denylist), and authenticates
 * the tokens presented to the MCP endpoint with the configured verifier.
 */
export class TokenService {
  private keySet: ReturnType<typeof createLocalJWKSet> | undefined;

  constructor(
    private readonly db: Database,
    private readonly keys: SigningKeys,
    private readonly verifier: TokenVerifier,
    private readonly clock: Clock,
    private readonly urlConfig: OAuthUrlConfig,
  ) {}

  /** The authorization server's and MCP endpoint's URLs, for a request that came to `requestBase`. */
  urls(requestBase: string): OAuthUrls {
    return oauthUrls(this.urlConfig, requestBase);
  }

  /** The issuer MCP clients get their tokens from (RFC 9728 `authorization_servers`). */
  authorizationServer(urls: OAuthUrls): string {
    return this.verifier.externalIssuer ?? urls.issuer;
  }

  /** The public keys of the built-in issuer (RFC 7517), served at the JWKS endpoint. */
  jwks() {
    return this.keys.jwks();
  }

  /** The scopes to grant: the client's when none are asked for; asking beyond them is `invalid_scope`. */
  private grantedScopes(client: AuthenticatedClient, scope: string | undefined): OAuthScope[] {
    const requested = (scope ?? '').split(' ').filter(Boolean);
    if (requested.length === 0) return client.scopes;
    const unknown = requested.find((s) => !isOAuthScope(s));
    if (unknown !== undefined) {
      throw oauthError(400, 'invalid_scope', `Unknown scope "${unknown}"; the scopes are ${OAUTH_SCOPES.join(', ')}.`);
    }
    const granted = normalizeScopes(requested as OAuthScope[]);
    if (granted.some((s) => !scopesInclude(client.scopes, s))) {
      throw oauthError(400, 'invalid_scope', `This client may request at most: ${client.scopes.join(' ')}.`);
    }
    return granted;
  }

  /** RFC 8707: each `resource` must name the MCP endpoint (or the MCP server); it becomes the audience. */
  private audiences(resources: string[], urls: OAuthUrls): string[] {
    if (resources.length === 0) return [urls.mcpResource];
    const known = mcpAudiences(urls);
    const audiences = resources.map((resource) => {
      let url: URL;
      try {
        url = new URL(resource);
      } catch {
        throw oauthError(400, 'invalid_target', `resource must be an absolute URI; got "${resource}".`);
      }
      if (url.hash) throw oauthError(400, 'invalid_target', 'resource must not contain a fragment.');
      const match = known.find((k) => sameUrl(k, resource));
      if (!match) {
        throw oauthError(400, 'invalid_target', `This authorization server issues tokens only for the MCP endpoint ${urls.mcpResource}.`);
      }
      return match;
    });
    return [...new Set(audiences)];
  }

  /** The client credentials grant: a JWT access token for 15 minutes. */
  async issue(client: AuthenticatedClient, request: { scope?: string | undefined; resources: string[] }, urls: OAuthUrls): Promise<TokenResponse> {
    const scopes = this.grantedScopes(client, request.scope);
    const audience = this.audiences(request.resources, urls);
    const key = await this.keys.current();
    const now = this.clock.now();
    const iat = Math.floor(now.getTime() / 1000);
    const accessToken = await new SignJWT({
      client_id: client.id,
      tenant_id: client.tenantId,
      ...(client.subTenantId ? { sub_tenant_id: client.subTenantId } : {}),
      scope: scopes.join(' '),
    })
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'at+jwt' })
      .setIssuer(urls.issuer)
      .setSubject(client.id)
      .setAudience(audience.length === 1 ? audience[0]! : audience)
      .setIssuedAt(iat)
      .setExpirationTime(iat + ACCESS_TOKEN_LIFETIME_SECONDS)
      .setJti(randomUUID())
      .sign(key.privateKey);
    await touchOAuthClient(this.db, client.id, now);
    return { access_token: accessToken, token_type: 'Bearer', expires_in: ACCESS_TOKEN_LIFETIME_SECONDS, scope: scopes.join(' ') };
  }

  /**
   * RFC 7009: revokes an access token of the calling client. Anything that is not a live token of
   * this issuer (garbage, expired, another signature) is answered as done, as §2.2 requires; a live
   * token of another client is refused.
   */
  async revoke(client: AuthenticatedClient, token: string): Promise<void> {
    const key = await this.keys.current();
    this.keySet ??= createLocalJWKSet(await this.keys.jwks());
    let payload;
    try {
      ({ payload } = await jwtVerify(token, this.keySet, { algorithms: [key.alg], typ: 'at+jwt', currentDate: this.clock.now() }));
    } catch {
      return;
    }
    if (typeof payload.jti !== 'string' || typeof payload.exp !== 'number') return;
    if (payload.client_id !== client.id) throw oauthError(400, 'invalid_request', 'The token was not issued to this client.');
    await insertRevokedToken(this.db, { jti: payload.jti, clientId: client.id, expiresAt: new Date(payload.exp * 1000) });
    await deleteExpiredRevocations(this.db, this.clock.now());
  }

  /**
   * Authenticates a bearer token at the MCP endpoint: the verifier checks signature, issuer,
   * audience and lifetime; then, in one query, the client must still be active (built-in issuer),
   * the token not revoked, and its tenant and sub-tenant must exist. Every refusal is `invalid_token`.
   */
  async authenticate(token: string, urls: OAuthUrls): Promise<AccessTokenPrincipal> {
    if (token.split('.').length !== 3) {
      throw invalidToken(`This is not an OAuth access token: the MCP endpoint does not accept API keys or client secrets. Get an access token from ${urls.tokenEndpoint}.`);
    }
    const claims = await this.verifier.verify(token, { issuer: urls.issuer, audiences: mcpAudiences(urls), now: this.clock.now() });
    let tenant: (TenantPrincipalRow & { token_revoked: boolean }) | undefined;
    if (this.verifier.kind === 'local') {
      if (!isUuid(claims.clientId)) throw invalidToken('The access token names an unknown client.');
      tenant = await findClientPrincipal(this.db, claims.clientId, claims.tokenId);
      if (!tenant || tenant.tenant_id !== claims.tenantId || tenant.sub_tenant_id !== claims.subTenantId) {
        throw invalidToken('The OAuth client of this access token has been revoked.');
      }
    } else {
      tenant = await findTenantPrincipal(this.db, { tenantId: claims.tenantId, subTenantId: claims.subTenantId }, claims.tokenId);
      if (!tenant) throw invalidToken('The access token names an unknown tenant or sub-tenant.');
    }
    if (tenant.token_revoked) throw invalidToken('The access token has been revoked.');
    return { claims, tenant };
  }
}
