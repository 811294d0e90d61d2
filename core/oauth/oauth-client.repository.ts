import type { Queryable } from '../db/database.js';
import type { Scope } from '../shared/scope.js';
import { CREDENTIAL_TENANT_COLUMNS, type CredentialTenantRow } from '../tenants/tenant.repository.js';
import type { OAuthScope } from './oauth.schema.js';

export interface OAuthClientRow {
  id: string;
  tenant_id: string;
  sub_tenant_id: string | null;
  name: string;
  scopes: OAuthScope[];
  registered_by: 'admin' | 'registration';
  created_at: Date;
  last_used_at: Date | null;
}

export interface OAuthClientSecretRow extends OAuthClientRow {
  secret_hash: string;
}

/** The tenant (and sub-tenant) an OAuth client or token acts for, as every credential lookup loads them. */
export type TenantPrincipalRow = CredentialTenantRow;

const COLUMNS = 'c.id, c.tenant_id, c.sub_tenant_id, c.name, c.scopes, c.registered_by, c.created_at, c.last_used_at';

export async function insertOAuthClient(
  db: Queryable,
  row: {
    tenantId: string;
    subTenantId: string | null;
    name: string;
    scopes: OAuthScope[];
    secretHash: string;
    registeredBy: 'admin' | 'registration';
  },
): Promise<OAuthClientRow> {
  const { rows } = await db.query<OAuthClientRow>(
    `INSERT INTO oauth_clients AS c (tenant_id, sub_tenant_id, name, scopes, secret_hash, registered_by)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [row.tenantId, row.subTenantId, row.name, row.scopes, row.secretHash, row.registeredBy],
  );
  return rows[0]!;
}

/** An active (not revoked) client with its secret digest, for client authentication (by the client's id: unscoped). */
export async function findActiveClient(db: Queryable, id: string): Promise<OAuthClientSecretRow | undefined> {
  const { rows } = await db.query<OAuthClientSecretRow>(
    `SELECT ${COLUMNS}, c.secret_hash FROM oauth_clients c WHERE c.id = $1 AND c.revoked_at IS NULL`,
    [id],
  );
  return rows[0];
}

/** Records that a client obtained a token, at most once a minute (reads stay cheap); the client authenticated: unscoped. */
export async function touchOAuthClient(db: Queryable, id: string, at: Date): Promise<void> {
  await db.query(
    `UPDATE oauth_clients SET last_used_at = $2
     WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2::timestamptz - interval '60 seconds')`,
    [id, at],
  );
}

export async function listOAuthClients(db: Queryable, scope: Scope): Promise<OAuthClientRow[]> {
  const { rows } = await db.query<OAuthClientRow>(
    `SELECT ${COLUMNS} FROM oauth_clients c WHERE c.tenant_id = $1 AND c.revoked_at IS NULL ORDER BY c.created_at, c.id`,
    [scope.tenantId],
  );
  return rows;
}

/** Revokes a client; false when there is no such active client. Support revokes by client id: unscoped. */
export async function revokeOAuthClient(db: Queryable, id: string, at: Date): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE oauth_clients SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL', [id, at]);
  return rowCount > 0;
}

/** Whether the scope's tenant, and its sub-tenant when it names one, exist. */
export async function scopeExists(db: Queryable, scope: Scope): Promise<{ tenant: boolean; subTenant: boolean }> {
  const { rows } = await db.query<{ sub_tenant: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM sub_tenants s WHERE s.tenant_id = t.id AND s.id = $2::uuid) AS sub_tenant FROM tenants t WHERE t.id = $1`,
    [scope.tenantId, scope.subTenantId],
  );
  return { tenant: rows.length > 0, subTenant: rows[0]?.sub_tenant ?? false };
}

export interface InitialAccessTokenRow {
  id: string;
  tenant_id: string;
  sub_tenant_id: string | null;
  scopes: OAuthScope[];
  expires_at: Date;
}

export async function insertInitialAccessToken(
  db: Queryable,
  row: { tenantId: string; subTenantId: string | null; scopes: OAuthScope[]; tokenHash: string; expiresAt: Date },
): Promise<InitialAccessTokenRow> {
  const { rows } = await db.query<InitialAccessTokenRow>(
    `INSERT INTO oauth_initial_access_tokens (tenant_id, sub_tenant_id, scopes, token_hash, expires_at)
     VALUES ($1, $2, $3, $4, $5) RETURNING id, tenant_id, sub_tenant_id, scopes, expires_at`,
    [row.tenantId, row.subTenantId, row.scopes, row.tokenHash, row.expiresAt],
  );
  return rows[0]!;
}

/** An unused, unexpired initial access token, locked until the caller's transaction ends. */
export async function lockUsableInitialAccessToken(db: Queryable, tokenHash: string, now: Date): Promise<InitialAccessTokenRow | undefined> {
  const { rows } = await db.query<InitialAccessTokenRow>(
    `SELECT id, tenant_id, sub_tenant_id, scopes, expires_at FROM oauth_initial_access_tokens
     WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 FOR UPDATE`,
    [tokenHash, now],
  );
  return rows[0];
}

/** The token was found by its secret's digest and locked (lockUsableInitialAccessToken): unscoped. */
export async function markInitialAccessTokenUsed(db: Queryable, id: string, clientId: string, at: Date): Promise<void> {
  await db.query('UPDATE oauth_initial_access_tokens SET used_at = $3, client_id = $2 WHERE id = $1', [id, clientId, at]);
}

/** Adds a token to the denylist (idempotent). */
export async function insertRevokedToken(db: Queryable, row: { jti: string; clientId: string; expiresAt: Date }): Promise<void> {
  await db.query(
    'INSERT INTO oauth_revoked_tokens (jti, client_id, expires_at) VALUES ($1, $2, $3) ON CONFLICT (jti) DO NOTHING',
    [row.jti, row.clientId, row.expiresAt],
  );
}

/** Forgets revocations of tokens that have expired anyway. */
export async function deleteExpiredRevocations(db: Queryable, now: Date): Promise<void> {
  await db.query('DELETE FROM oauth_revoked_tokens WHERE expires_at < $1', [now]);
}

/**
 * The principal behind an access token of the built-in issuer, in one round trip: the client must
 * still be active, its token not revoked, and its sub-tenant (if any) must still exist.
 */
export async function findClientPrincipal(
  db: Queryable,
  clientId: string,
  jti: string,
): Promise<(TenantPrincipalRow & { client_id: string; token_revoked: boolean }) | undefined> {
  const { rows } = await db.query<TenantPrincipalRow & { client_id: string; token_revoked: boolean }>(
    `SELECT c.id AS client_id, c.tenant_id, c.sub_tenant_id, ${CREDENTIAL_TENANT_COLUMNS},
            EXISTS (SELECT 1 FROM oauth_revoked_tokens r WHERE r.jti = $2) AS token_revoked
     FROM oauth_clients c
     JOIN tenants t ON t.id = c.tenant_id
     LEFT JOIN sub_tenants s ON s.id = c.sub_tenant_id AND s.tenant_id = c.tenant_id
     WHERE c.id = $1 AND c.revoked_at IS NULL AND (c.sub_tenant_id IS NULL OR s.id IS NOT NULL)`,
    [clientId, jti],
  );
  return rows[0];
}

/**
 * The principal behind an access token of an external issuer (its clients live there): the tenant
 * and sub-tenant its claims name, which must exist.
 */
export async function findTenantPrincipal(
  db: Queryable,
  claimed: Scope,
  jti: string,
): Promise<(TenantPrincipalRow & { token_revoked: boolean }) | undefined> {
  const { rows } = await db.query<TenantPrincipalRow & { token_revoked: boolean }>(
    `SELECT t.id AS tenant_id, s.id AS sub_tenant_id, ${CREDENTIAL_TENANT_COLUMNS},
            EXISTS (SELECT 1 FROM oauth_revoked_tokens r WHERE r.jti = $3) AS token_revoked
     FROM tenants t
     LEFT JOIN sub_tenants s ON s.id = $2::uuid AND s.tenant_id = t.id
     WHERE t.id = $1 AND ($2::uuid IS NULL OR s.id IS NOT NULL)`,
    [claimed.tenantId, claimed.subTenantId, jti],
  );
  return rows[0];
}
