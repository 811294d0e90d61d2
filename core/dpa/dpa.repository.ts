import type { Queryable } from '../db/database.js';
import type { Scope } from '../shared/scope.js';

export interface DpaAcceptanceRow {
  version: number;
  accepted_by: string | null;
  api_key_id: string | null;
  accepted_at: Date;
}

/** The DPA version the tenant accepted last (null: none); undefined when the tenant does not exist. */
export async function findAcceptedDpaVersion(db: Queryable, scope: Scope): Promise<number | null | undefined> {
  const { rows } = await db.query<{ dpa_accepted_version: number | null }>('SELECT dpa_accepted_version FROM tenants WHERE id = $1', [scope.tenantId]);
  return rows[0]?.dpa_accepted_version;
}

/** Records an acceptance (who, with which key) and makes it the tenant's accepted version. */
export async function insertDpaAcceptance(
  tx: Queryable,
  scope: Scope,
  acceptance: { version: number; acceptedBy: string | null; apiKeyId: string | null },
): Promise<void> {
  await tx.query('UPDATE tenants SET dpa_accepted_version = $2, updated_at = now() WHERE id = $1', [scope.tenantId, acceptance.version]);
  await tx.query('INSERT INTO dpa_acceptances (tenant_id, version, accepted_by, api_key_id) VALUES ($1, $2, $3, $4)', [
    scope.tenantId,
    acceptance.version,
    acceptance.acceptedBy,
    acceptance.apiKeyId,
  ]);
}

export async function listDpaAcceptances(db: Queryable, scope: Scope): Promise<DpaAcceptanceRow[]> {
  const { rows } = await db.query<DpaAcceptanceRow>(
    'SELECT version, accepted_by, api_key_id, accepted_at FROM dpa_acceptances WHERE tenant_id = $1 ORDER BY accepted_at',
    [scope.tenantId],
  );
  return rows;
}
