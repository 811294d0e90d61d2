import type { RequestContext } from '../context.js';
import type { Database } from '../db/database.js';
import { errors } from '../errors.js';
import { type Scope, scopeOf } from '../shared/scope.js';
import { type DpaAcceptanceRow, findAcceptedDpaVersion, insertDpaAcceptance, listDpaAcceptances } from './dpa.repository.js';

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

  async status(scope: Scope): Promise<DpaStatus> {
    const accepted = (await findAcceptedDpaVersion(this.db, scope)) ?? null;
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
    const apiKeyId = ctx.principal.kind === 'api_key' ? ctx.principal.id : null;
    await this.db.transaction((tx) => insertDpaAcceptance(tx, scopeOf(ctx), { version, acceptedBy, apiKeyId }));
    return { status: 'accepted', dpa_version: version };
  }

  acceptances(scope: Scope): Promise<DpaAcceptanceRow[]> {
    return listDpaAcceptances(this.db, scope);
  }
}
