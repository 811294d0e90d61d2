import { scopeOf } from '../shared/scope.js';
import type { RequestContext } from '../context.js';
import type { Database } from '../db/database.js';
import { errors } from '../errors.js';
import { findTenant, updateTenant } from '../tenants/tenant.repository.js';
import type { TranslationConfig } from './translation.schema.js';

/** The Free plan has no response translation; `always` would promise it on every query. */
export function assertTranslationConfigAllowed(plan: string, config: TranslationConfig): void {
  if (plan === 'free' && config.response_translation === 'always') {
    throw errors.forbidden('free_tier_restriction', 'Response translation is not available on the Free plan, so it cannot be set to always.');
  }
}

/** GET/PATCH /v1/tenant/settings: the tenant's own translation settings (a tenant-level admin key). */
export class TranslationSettingsService {
  constructor(private readonly db: Database) {}

  async get(ctx: RequestContext): Promise<{ translation_config: TranslationConfig }> {
    const tenant = await findTenant(this.db, scopeOf(ctx));
    if (!tenant) throw errors.notFound('tenant');
    return { translation_config: tenant.translation_config };
  }

  /** Replaces the tenant's translation config as a whole (fields left out are unset; {} clears it). */
  async update(ctx: RequestContext, input: { translation_config: TranslationConfig }): Promise<{ translation_config: TranslationConfig }> {
    assertTranslationConfigAllowed(ctx.tenant.plan, input.translation_config);
    const tenant = await updateTenant(this.db, scopeOf(ctx), { translation_config: input.translation_config });
    if (!tenant) throw errors.notFound('tenant');
    return { translation_config: tenant.translation_config };
  }
}
