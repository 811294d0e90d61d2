import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Database } from '../db/database.js';
import { errors } from '../errors.js';
import { isUuid } from '../shared/ids.js';
import { presentOAuthClient } from './oauth-client.presenter.js';
import type { Scope } from '../shared/scope.js';
import {
  findActiveClient,
  insertInitialAccessToken,
  insertOAuthClient,
  listOAuthClients,
  lockUsableInitialAccessToken,
  markInitialAccessTokenUsed,
  revokeOAuthClient,
  scopeExists,
} from './oauth-client.repository.js';
import {
  type CreateInitialAccessTokenInput,
  type CreateOAuthClientInput,
  INTERACTIVE_SIGN_IN_UNAVAILABLE,
  OAUTH_SCOPES,
  type OAuthClientView,
  type OAuthScope,
  TOKEN_ENDPOINT_AUTH_METHODS,
  type TokenEndpointAuthMethod,
  isOAuthScope,
  normalizeScopes,
  oauthError,
  type RegistrationRequest,
  registrationRequestSchema,
  scopesInclude,
} from './oauth.schema.js';

/** 32 random bytes: 256 bits, 43 base64url characters. */
const SECRET_RANDOM_BYTES = 32;

function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** A client that proved it holds its secret. */
export interface AuthenticatedClient {
  id: string;
  tenantId: string;
  subTenantId: string | null;
  scopes: OAuthScope[];
}

/** RFC 7591 metadata that a client-credentials client can have; anything else is refused (§3.2.2). */
function registrationMetadata(metadata: unknown): RegistrationRequest & { token_endpoint_auth_method?: TokenEndpointAuthMethod } {
  const parsed = registrationRequestSchema.safeParse(metadata);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw oauthError(400, 'invalid_client_metadata', `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
  }
  const request = parsed.data;
  if (request.redirect_uris?.length) throw oauthError(400, 'invalid_redirect_uri', INTERACTIVE_SIGN_IN_UNAVAILABLE);
  if (request.grant_types?.some((g) => g !== 'client_credentials')) {
    throw oauthError(400, 'invalid_client_metadata', `grant_types may only hold "client_credentials". ${INTERACTIVE_SIGN_IN_UNAVAILABLE}`);
  }
  if (request.response_types?.length) {
    throw oauthError(400, 'invalid_client_metadata', `response_types must be empty. ${INTERACTIVE_SIGN_IN_UNAVAILABLE}`);
  }
  const method = request.token_endpoint_auth_method;
  if (method !== undefined && !(TOKEN_ENDPOINT_AUTH_METHODS as readonly string[]).includes(method)) {
    throw oauthError(400, 'invalid_client_metadata', `token_endpoint_auth_method must be one of ${TOKEN_ENDPOINT_AUTH_METHODS.join(', ')}.`);
  }
  return request as RegistrationRequest & { token_endpoint_auth_method?: TokenEndpointAuthMethod };
}

/**
 * OAuth applications: registered and revoked by support (internal admin API), or registered by the
 * application itself with a single-use initial access token from support (RFC 7591). Secrets and
 * initial access tokens are random 256-bit strings of which only a SHA-256 digest is stored.
 */
export class OAuthClientService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly prefix: string,
  ) {}

  private secret(kind: 'cs' | 'iat'): string {
    return `${this.prefix}_${kind}_${randomBytes(SECRET_RANDOM_BYTES).toString('base64url')}`;
  }

  /** Checks the owner of a new client or initial access token; 404 for an unknown tenant or sub-tenant. */
  private async checkOwner(owner: Scope, scopes: OAuthScope[]): Promise<void> {
    const exists = await scopeExists(this.db, owner);
    if (!exists.tenant) throw errors.notFound('tenant');
    if (owner.subTenantId === null) return;
    if (!exists.subTenant) throw errors.notFound('sub-tenant');
    // Sub-tenant keys are read or write keys (spec §4); an application of a sub-tenant likewise.
    if (scopes.includes('mcp:admin')) {
      throw errors.invalid('body.scopes', "a sub-tenant's application may hold mcp:read and mcp:write, not mcp:admin");
    }
  }

  /** POST /internal/v1/oauth-clients: the secret is in this answer only. */
  async register(input: CreateOAuthClientInput): Promise<OAuthClientView & { client_secret: string }> {
    const subTenantId = input.sub_tenant_id ?? null;
    await this.checkOwner({ tenantId: input.tenant_id, subTenantId }, input.scopes);
    const secret = this.secret('cs');
    const row = await insertOAuthClient(this.db, {
      tenantId: input.tenant_id,
      subTenantId,
      name: input.name,
      scopes: input.scopes,
      secretHash: sha256Hex(secret),
      registeredBy: 'admin',
    });
    return { ...presentOAuthClient(row), client_secret: secret };
  }

  async list(scope: Scope): Promise<OAuthClientView[]> {
    if (!isUuid(scope.tenantId) || !(await scopeExists(this.db, scope)).tenant) throw errors.notFound('tenant');
    return (await listOAuthClients(this.db, scope)).map(presentOAuthClient);
  }

  /** Revokes a client: it can no longer obtain tokens, and every token it holds stops working at once. */
  async revoke(clientId: string): Promise<void> {
    if (!isUuid(clientId) || !(await revokeOAuthClient(this.db, clientId, this.clock.now()))) {
      throw errors.notFound('OAuth client');
    }
  }

  /** POST /internal/v1/oauth-initial-access-tokens: one registration at /oauth/register. */
  async issueInitialAccessToken(input: CreateInitialAccessTokenInput) {
    const subTenantId = input.sub_tenant_id ?? null;
    const scopes = input.scopes ?? (subTenantId ? (['mcp:read', 'mcp:write'] as OAuthScope[]) : [...OAUTH_SCOPES]);
    await this.checkOwner({ tenantId: input.tenant_id, subTenantId }, scopes);
    const token = this.secret('iat');
    const row = await insertInitialAccessToken(this.db, {
      tenantId: input.tenant_id,
      subTenantId,
      scopes,
      tokenHash: sha256Hex(token),
      expiresAt: new Date(this.clock.now().getTime() + input.expires_in * 1000),
    });
    return {
      initial_access_token: token,
      tenant_id: row.tenant_id,
      sub_tenant_id: row.sub_tenant_id,
      scopes: normalizeScopes(row.scopes),
      expires_at: row.expires_at.toISOString(),
    };
  }

  /**
   * POST /oauth/register (RFC 7591) with an initial access token: validates the client metadata
   * against what a client-credentials client can be and what the token allows, registers the client
   * and uses up the token, in one transaction.
   */
  async registerWithInitialAccessToken(initialAccessToken: string, metadata: unknown) {
    const now = this.clock.now();
    // Everything is checked inside the transaction, after the token: a refused registration rolls
    // back and leaves the token usable.
    return this.db.transaction(async (tx) => {
      const iat = await lockUsableInitialAccessToken(tx, sha256Hex(initialAccessToken), now);
      if (!iat) {
        throw oauthError(401, 'invalid_token', 'The initial access token is unknown, expired or already used; ask support for a new one.');
      }
      const request = registrationMetadata(metadata);
      const requested = request.scope?.split(' ').filter(Boolean);
      const unknown = requested?.find((s) => !isOAuthScope(s));
      if (unknown !== undefined) {
        throw oauthError(400, 'invalid_client_metadata', `Unknown scope "${unknown}"; the scopes are ${OAUTH_SCOPES.join(', ')}.`);
      }
      const scopes = requested?.length ? normalizeScopes(requested as OAuthScope[]) : normalizeScopes(iat.scopes);
      if (scopes.some((s) => !scopesInclude(iat.scopes, s))) {
        throw oauthError(400, 'invalid_client_metadata', `The initial access token allows at most: ${normalizeScopes(iat.scopes).join(' ')}.`);
      }
      const secret = this.secret('cs');
      const row = await insertOAuthClient(tx, {
        tenantId: iat.tenant_id,
        subTenantId: iat.sub_tenant_id,
        name: request.client_name ?? 'Registered client',
        scopes,
        secretHash: sha256Hex(secret),
        registeredBy: 'registration',
      });
      await markInitialAccessTokenUsed(tx, iat.id, row.id, now);
      return {
        client_id: row.id,
        client_secret: secret,
        client_id_issued_at: Math.floor(row.created_at.getTime() / 1000),
        client_secret_expires_at: 0,
        client_name: row.name,
        scope: scopes.join(' '),
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: request.token_endpoint_auth_method ?? 'client_secret_basic',
      };
    });
  }

  /**
   * The active client with this id if `secret` is its secret. The lookup is by id; the digests are
   * compared in constant time.
   */
  async authenticate(clientId: string, secret: string): Promise<AuthenticatedClient | undefined> {
    if (!isUuid(clientId) || secret.length === 0 || secret.length > 256) return undefined;
    const row = await findActiveClient(this.db, clientId);
    if (!row) return undefined;
    const same = timingSafeEqual(Buffer.from(row.secret_hash, 'hex'), Buffer.from(sha256Hex(secret), 'hex'));
    return same ? { id: row.id, tenantId: row.tenant_id, subTenantId: row.sub_tenant_id, scopes: normalizeScopes(row.scopes) } : undefined;
  }
}
