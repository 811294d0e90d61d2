import type { Role } from '../context.js';
import type { Queryable } from '../db/database.js';
import type { Scope } from '../shared/scope.js';
import type { CredentialTenantRow } from '../tenants/tenant.repository.js';

export interface PortalUserRow {
  id: string;
  tenant_id: string;
  email: string;
  role: Role;
  language: string;
  created_at: Date;
  password_changed_at: Date | null;
  /** Whether a password has been set (the hash itself never leaves the repository's sign-in read). */
  has_password: boolean;
}

const USER_COLUMNS = 'u.id, u.tenant_id, u.email, u.role, u.language, u.created_at, u.password_changed_at, u.password_hash IS NOT NULL AS has_password';

/**
 * Adds a person to a tenant, with their password when they chose it already (accepting an
 * invitation); undefined when the address already has an account (on any tenant).
 */
export async function insertPortalUser(
  db: Queryable,
  scope: Scope,
  user: { email: string; role: Role; language: string; password?: { hash: string; now: Date } },
): Promise<PortalUserRow | undefined> {
  const { rows } = await db.query<PortalUserRow>(
    `INSERT INTO portal_users AS u (tenant_id, email, role, language, password_hash, password_changed_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, coalesce($6, now()))
     ON CONFLICT (email) DO NOTHING RETURNING ${USER_COLUMNS}`,
    [scope.tenantId, user.email, user.role, user.language, user.password?.hash ?? null, user.password?.now ?? null],
  );
  return rows[0];
}

export async function listPortalUsers(db: Queryable, scope: Scope): Promise<PortalUserRow[]> {
  const { rows } = await db.query<PortalUserRow>(
    `SELECT ${USER_COLUMNS} FROM portal_users u WHERE u.tenant_id = $1 ORDER BY u.created_at, u.id`,
    [scope.tenantId],
  );
  return rows;
}

export async function deletePortalUser(db: Queryable, scope: Scope, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM portal_users WHERE tenant_id = $1 AND id = $2', [scope.tenantId, id]);
  return rowCount > 0;
}

export async function countPortalAdmins(db: Queryable, scope: Scope): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM portal_users WHERE tenant_id = $1 AND role = 'admin'`,
    [scope.tenantId],
  );
  return rows[0]!.n;
}

/** The admins' addresses and languages, for notices (leaked keys). */
export async function listPortalAdmins(db: Queryable, scope: Scope): Promise<Array<{ email: string; language: string }>> {
  const { rows } = await db.query<{ email: string; language: string }>(
    `SELECT email, language FROM portal_users WHERE tenant_id = $1 AND role = 'admin' ORDER BY created_at`,
    [scope.tenantId],
  );
  return rows;
}

/**
 * The account an address signs in to, with its password hash. Unscoped: sign-in knows only the
 * address, which is unique on the instance; the tenant comes from the row.
 */
export async function findUserForSignIn(
  db: Queryable,
  email: string,
): Promise<(PortalUserRow & { password_hash: string | null }) | undefined> {
  const { rows } = await db.query<PortalUserRow & { password_hash: string | null }>(
    `SELECT ${USER_COLUMNS}, u.password_hash FROM portal_users u WHERE u.email = $1`, // unscoped: see above
    [email],
  );
  return rows[0];
}

/** Holds the person's row until the transaction ends (one reset request at a time per person). */
export async function lockPortalUser(db: Queryable, scope: Scope, userId: string): Promise<void> {
  await db.query('SELECT 1 FROM portal_users WHERE tenant_id = $1 AND id = $2 FOR UPDATE', [scope.tenantId, userId]);
}

export async function setPortalPassword(db: Queryable, scope: Scope, userId: string, passwordHash: string, now: Date): Promise<void> {
  await db.query('UPDATE portal_users SET password_hash = $3, password_changed_at = $4 WHERE tenant_id = $1 AND id = $2', [
    scope.tenantId,
    userId,
    passwordHash,
    now,
  ]);
}

export async function setPortalLanguage(db: Queryable, scope: Scope, userId: string, language: string): Promise<void> {
  await db.query('UPDATE portal_users SET language = $3 WHERE tenant_id = $1 AND id = $2', [scope.tenantId, userId, language]);
}

// Sessions

export async function insertPortalSession(
  db: Queryable,
  row: { idHash: string; userId: string; tenantId: string; csrfToken: string; now: Date; expiresAt: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO portal_sessions (id_hash, user_id, tenant_id, csrf_token, created_at, last_seen_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $5, $6)`,
    [row.idHash, row.userId, row.tenantId, row.csrfToken, row.now, row.expiresAt],
  );
}

/** A live session with what authentication needs about its user and tenant (as an API key's row has; no sub-tenant). */
export interface SessionRow extends CredentialTenantRow {
  id_hash: string;
  csrf_token: string;
  user_id: string;
  email: string;
  role: Role;
  tenant_name: string;
}

/**
 * Finds a session that has neither expired nor been idle too long, and records its use (at most once
 * a minute). Unscoped: the session id is the credential that names the tenant.
 */
export async function touchPortalSession(db: Queryable, idHash: string, now: Date, idleSeconds: number): Promise<SessionRow | undefined> {
  const { rows } = await db.query<SessionRow>(
    `WITH s AS (
       SELECT s.id_hash, s.csrf_token, s.user_id, s.last_seen_at, u.email, u.role, s.tenant_id, t.name AS tenant_name, t.plan,
              t.status, t.dpa_accepted_version, t.limit_overrides, t.per_user_rate_limit_per_min, t.translation_config,
              t.period_start, t.period_end, t.period_included_queries
       FROM portal_sessions s JOIN portal_users u ON u.id = s.user_id JOIN tenants t ON t.id = s.tenant_id
       WHERE s.id_hash = $1 AND s.expires_at > $2 AND s.last_seen_at > $2::timestamptz - make_interval(secs => $3)
     ), touched AS (
       UPDATE portal_sessions SET last_seen_at = $2
       WHERE id_hash = (SELECT id_hash FROM s) AND last_seen_at < $2::timestamptz - interval '60 seconds'
     )
     SELECT id_hash, csrf_token, user_id, email, role, tenant_id, tenant_name, plan, status, dpa_accepted_version, limit_overrides,
            per_user_rate_limit_per_min, translation_config, period_start, period_end, period_included_queries, NULL::uuid AS sub_tenant_id, NULL::int AS sub_query_rate_limit_per_min,
            NULL::int AS sub_per_user_rate_limit_per_min, NULL::bigint AS sub_included_queries_per_period,
            NULL::jsonb AS sub_translation_config
     FROM s`, // unscoped: see above
    [idHash, now, idleSeconds],
  );
  return rows[0];
}

/** Ends one session. Unscoped: whoever holds a session id may end it. */
export async function deletePortalSession(db: Queryable, idHash: string): Promise<void> {
  await db.query('DELETE FROM portal_sessions WHERE id_hash = $1', [idHash]); // unscoped: see above
}

export async function deleteUserSessions(db: Queryable, scope: Scope, userId: string): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM portal_sessions WHERE tenant_id = $1 AND user_id = $2', [scope.tenantId, userId]);
  return rowCount;
}

/** Sessions that ended long ago. Unscoped: housekeeping across the instance. */
export async function deleteExpiredSessions(db: Queryable, now: Date): Promise<void> {
  await db.query('DELETE FROM portal_sessions WHERE expires_at < $1', [now]); // unscoped: see above
}

// Set-password and reset links

export async function insertPasswordLink(
  db: Queryable,
  scope: Scope,
  row: { tokenHash: string; userId: string; purpose: 'reset' | 'invite'; now: Date; expiresAt: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO portal_password_links (token_hash, user_id, tenant_id, purpose, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`,
    [row.tokenHash, row.userId, scope.tenantId, row.purpose, row.now, row.expiresAt],
  );
}

/** Reset links sent to a person since a moment (the per-hour limit counts them). */
export async function countResetLinksSince(db: Queryable, scope: Scope, userId: string, since: Date): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM portal_password_links
     WHERE tenant_id = $1 AND user_id = $2 AND purpose = 'reset' AND created_at > $3`,
    [scope.tenantId, userId, since],
  );
  return rows[0]!.n;
}

export interface PasswordLinkRow {
  user_id: string;
  tenant_id: string;
  email: string;
  purpose: 'reset' | 'invite';
}

/** A link that can still be used. Unscoped: the token is the credential that names the account. */
export async function findUsablePasswordLink(db: Queryable, tokenHash: string, now: Date): Promise<PasswordLinkRow | undefined> {
  const { rows } = await db.query<PasswordLinkRow>(
    `SELECT l.user_id, l.tenant_id, u.email, l.purpose FROM portal_password_links l JOIN portal_users u ON u.id = l.user_id
     WHERE l.token_hash = $1 AND l.used_at IS NULL AND l.expires_at > $2`, // unscoped: see above
    [tokenHash, now],
  );
  return rows[0];
}

/**
 * Uses a link: true for exactly one caller, however many use it at once. Every other open link of
 * the person is used up with it, so an older e-mail cannot set the password again.
 */
export async function consumePasswordLinks(db: Queryable, scope: Scope, userId: string, tokenHash: string, now: Date): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE portal_password_links SET used_at = $4 WHERE tenant_id = $1 AND token_hash = $3 AND user_id = $2 AND used_at IS NULL AND expires_at > $4`,
    [scope.tenantId, userId, tokenHash, now],
  );
  if (rowCount === 0) return false;
  await db.query(`UPDATE portal_password_links SET used_at = $3 WHERE tenant_id = $1 AND user_id = $2 AND used_at IS NULL`, [
    scope.tenantId,
    userId,
    now,
  ]);
  return true;
}
