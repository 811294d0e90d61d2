import type { Database } from '../db/database.js';
import { composeMail } from '../portal/emails.js';
import type { PortalAccountService } from '../portal/portal-account.service.js';
import { listPortalAdmins } from '../portal/portal.repository.js';
import { tenantScope } from '../shared/scope.js';
import { findKeyByHash, recordLeak } from './api-key.repository.js';
import type { ApiKeyService } from './api-key.service.js';

/** One match a code host's secret scanning found: the token, its type, and where. */
export interface LeakReport {
  token: string;
  type: string;
  url?: string;
  source?: string;
}

/** The answer for one match, in the partner program's format (no tenant, no key id). */
export interface LeakVerdict {
  token_raw: string;
  token_type: string;
  label: 'true_positive' | 'false_positive';
}

/**
 * Leaked-key protection (spec §5): a key found in public is revoked at once, where it was found is
 * recorded, and the tenant's admins are e-mailed. A report is answered `true_positive` for every
 * Lore key (live or revoked before) and `false_positive` for anything else; a report received again
 * changes nothing and sends nothing. OAuth client secrets are out of scope (the spec covers API keys).
 */
export class LeakedKeyService {
  constructor(
    private readonly db: Database,
    private readonly keys: Pick<ApiKeyService, 'digestOf'>,
    private readonly portal: Pick<PortalAccountService, 'deliver' | 'baseUrl'>,
  ) {}

  async report(reports: LeakReport[]): Promise<LeakVerdict[]> {
    const verdicts: LeakVerdict[] = [];
    for (const report of reports) {
      const digest = this.keys.digestOf(report.token);
      const key = digest ? await findKeyByHash(this.db, digest) : undefined;
      verdicts.push({ token_raw: report.token, token_type: report.type, label: key ? 'true_positive' : 'false_positive' });
      if (!key) continue;
      const scope = tenantScope(key.tenant_id);
      const where = { url: report.url?.slice(0, 2000) ?? null, source: report.source?.slice(0, 200) ?? null };
      const { revoked } = await recordLeak(this.db, scope, key.id, where);
      if (!revoked) continue;
      const admins = await listPortalAdmins(this.db, scope);
      const recipients = admins.length ? admins : key.tenant_email ? [{ email: key.tenant_email, language: 'en' }] : [];
      for (const admin of recipients) {
        const values = {
          key: key.name,
          hint: key.key_hint,
          tenant: key.tenant_name,
          where: where.url ?? where.source ?? 'a public source',
          link: `${this.portal.baseUrl}/portal/keys`,
        };
        await this.portal.deliver(composeMail('leaked_key', admin.language, admin.email, values), key.tenant_id);
      }
    }
    return verdicts;
  }
}
