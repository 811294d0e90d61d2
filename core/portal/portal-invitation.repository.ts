import type { Role } from '../context.js';
import type { Queryable } from '../db/database.js';
import type { Scope } from '../shared/scope.js';

export interface PortalInvitationRow {
  id: string;
  tenant_id: string;
  email: string;
  role: Role;
  language: string;
  created_at: Date;
  sent_at: Date;
  expires_at: Date;
  /** The inviting admin's address, while they are one of the tenant's people. */
  invited_by_email: string | null;
}

const INVITATION_COLUMNS = `i.id, i.tenant_id, i.email, i.role, i.language, i.created_at, i.sent_at, i.expires_at,
  (SELECT p.email FROM portal_users p WHERE p.id = i.invited_by AND p.tenant_id = i.tenant_id) AS invited_by_email`;

/**
 * Invites an address to a tenant, or invites it again. An invitation whose e-mail went after
 * `resendAfter` keeps its link and sends nothing (`sent` false; only the role and language follow the
 * new request); otherwise the new token replaces the old link, with a new expiry, to be e-mailed.
 */
export async function upsertInvitation(
  db: Queryable,
  scope: Scope,
  row: { email: string; role: Role; language: string; tokenHash: string; invitedBy: string; now: Date; expiresAt: Date; resendAfter: Date },
): Promise<{ invitation: PortalInvitationRow; sent: boolean }> {
  const { rows } = await db.query<PortalInvitationRow & { sent: boolean }>(
    `WITH i AS (
       INSERT INTO portal_invitations AS i (tenant_id, email, role, language, token_hash, invited_by, created_at, sent_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8)
       ON CONFLICT (tenant_id, email) DO UPDATE SET
         role = EXCLUDED.role,
         language = EXCLUDED.language,
         invited_by = EXCLUDED.invited_by,
         token_hash = CASE WHEN i.sent_at > $9 THEN i.token_hash ELSE EXCLUDED.token_hash END,
         sent_at = CASE WHEN i.sent_at > $9 THEN i.sent_at ELSE EXCLUDED.sent_at END,
         expires_at = CASE WHEN i.sent_at > $9 THEN i.expires_at ELSE EXCLUDED.expires_at END
       RETURNING i.*
     )
     SELECT ${INVITATION_COLUMNS}, i.token_hash = $5 AS sent FROM i`,
    [scope.tenantId, row.email, row.role, row.language, row.tokenHash, row.invitedBy, row.now, row.expiresAt, row.resendAfter],
  );
  const { sent, ...invitation } = rows[0]!;
  return { invitation, sent };
}

/** A tenant's open invitations (expired ones included, until revoked or renewed), oldest first. */
export async function listInvitations(db: Queryable, scope: Scope): Promise<PortalInvitationRow[]> {
  const { rows } = await db.query<PortalInvitationRow>(
    `SELECT ${INVITATION_COLUMNS} FROM portal_invitations i WHERE i.tenant_id = $1 ORDER BY i.created_at, i.id`,
    [scope.tenantId],
  );
  return rows;
}

export async function deleteInvitation(db: Queryable, scope: Scope, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM portal_invitations WHERE tenant_id = $1 AND id = $2', [scope.tenantId, id]);
  return rowCount > 0;
}

export interface UsableInvitationRow {
  id: string;
  tenant_id: string;
  tenant_name: string;
  email: string;
  role: Role;
  language: string;
}

/** An invitation whose link can still be used. Unscoped: the token is the credential that names the tenant. */
export async function findUsableInvitation(db: Queryable, tokenHash: string, now: Date): Promise<UsableInvitationRow | undefined> {
  const { rows } = await db.query<UsableInvitationRow>(
    `SELECT i.id, i.tenant_id, t.name AS tenant_name, i.email, i.role, i.language
     FROM portal_invitations i JOIN tenants t ON t.id = i.tenant_id
     WHERE i.token_hash = $1 AND i.expires_at > $2`, // unscoped: see above
    [tokenHash, now],
  );
  return rows[0];
}

/** Takes an invitation to accept it: true for exactly one caller, however many use the link at once. */
export async function takeInvitation(db: Queryable, scope: Scope, id: string, tokenHash: string, now: Date): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM portal_invitations WHERE tenant_id = $1 AND id = $2 AND token_hash = $3 AND expires_at > $4', [
    scope.tenantId,
    id,
    tokenHash,
    now,
  ]);
  return rowCount > 0;
}
