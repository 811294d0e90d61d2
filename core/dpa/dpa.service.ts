import type { RequestContext } from '../context.js';
import type { Database } from '../db/database.js';
import { errors } from '../errors.js';

export const DPA_HEADER = 'X-DPA-Action-Required';
export const DPA_HEADER_VALUE = 'DPA re-acceptance required';
export const MAX_ACCEPTED_BY_CHARS = 200;

export interface DpaStatus {
  compliant: boolean;
  current_version: number;
  accepted_version: number | null;
}

/** The data-processing agreement: the instance's current version and each tenant's acceptance. */
export class DpaService {
  constructor(
    private readonly db: Database,
    readonly currentVersion: number,
  ) {}

  isCompliant(acceptedVersion: number | null): boolean {
    return acceptedVersion === this.currentVersion;
  }

  async status(tenantId: string): Promise<DpaStatus> {
    const { rows } = await this.db.query<{ dpa_accepted_version: number | null }>(
      'SELECT dpa_accepted_version FROM tenants WHERE id = $1',
      [tenantId],
    );
    const accepted = rows[0]?.dpa_accepted_version ?? null;
    return { compliant: this.isCompliant(accepted), current_version: this.currentVersion, accepted_version: accepted };
  }

  /** Accepts the current version; records who (X-Accepted-By), when, and with which key. */
  async accept(ctx: RequestContext, version: number, acceptedBy: string | null): Promise<{ status: 'accepted'; dpa_version: number }> {
    if (version !== this.currentVersion) {
      const field = { field: 'body.version', message: `must be the current version, ${this.currentVersion}` };
      throw errors.unprocessable('dpa_version_mismatch', `Only the current version (${this.currentVersion}) can be accepted.`, [field], {
        current_version: this.currentVersion,
      });
    }
    await this.db.transaction(async (tx) => {
      await tx.query('UPDATE tenants SET dpa_accepted_version = $2, updated_at = now() WHERE id = $1', [ctx.tenantId, version]);
      await tx.query('INSERT INTO dpa_acceptances (tenant_id, version, accepted_by, api_key_id) VALUES ($1, $2, $3, $4)', [
        ctx.tenantId,
        version,
        acceptedBy,
        ctx.principal.kind === 'api_key' ? ctx.principal.id : null,
      ]);
    });
    return { status: 'accepted', dpa_version: version };
  }

  async acceptances(tenantId: string) {
    const { rows } = await this.db.query<{ version: number; accepted_by: string | null; api_key_id: string | null; accepted_at: Date }>(
      'SELECT version, accepted_by, api_key_id, accepted_at FROM dpa_acceptances WHERE tenant_id = $1 ORDER BY accepted_at',
      [tenantId],
    );
    return rows.map((r) => ({ ...r, accepted_at: r.accepted_at.toISOString() }));
  }
}
