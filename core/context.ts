import type { Logger } from 'pino';
import type { PlanId } from './plans.js';
import type { TranslationConfig } from './translation/translation.schema.js';

export const ROLES = ['read', 'write', 'admin'] as const;
export type Role = (typeof ROLES)[number];

const ROLE_RANK: Record<Role, number> = { read: 1, write: 2, admin: 3 };

/** read < write < admin: a key may do what its role and every lower role may do. */
export function roleAtLeast(role: Role, required: Role): boolean {
  return ROLE_RANK[role] >= ROLE_RANK[required];
}

/**
 * Who is calling: an API key (REST), a person signed in to the portal (REST with the session cookie)
 * or an OAuth client (MCP), always on behalf of one tenant.
 */
export interface Principal {
  kind: 'api_key' | 'portal_user' | 'oauth_client';
  id: string;
  role: Role;
  /** A portal user's e-mail address (recorded as who accepted the DPA, for one). */
  email?: string;
}

/** The tenant as the authentication step loaded it, so later steps need no second lookup. */
export interface TenantSnapshot {
  id: string;
  plan: PlanId;
  status: 'active' | 'suspended';
  dpaAcceptedVersion: number | null;
  /** The tenant's query rate limit per minute (plan, or support's override). */
  queryRateLimitPerMin: number;
  /** Queries per minute allowed to one end user (X-User-Id) of the tenant's own keys. */
  perUserRateLimitPerMin: number;
  /** The tenant's translation settings (query translation reads them). */
  translationConfig: TranslationConfig;
  /** The billing period as authentication read it (a query is counted in it unless it has ended since). */
  period: { start: Date; end: Date; includedQueries: number };
}

/** The limits of the sub-tenant a key is scoped to, as authentication loaded them. */
export interface SubTenantSnapshot {
  id: string;
  queryRateLimitPerMin: number | null;
  perUserRateLimitPerMin: number | null;
  /** Past this many queries in a period the sub-tenant's queries get 402 quota_exhausted. */
  includedQueriesPerPeriod: number | null;
  /** The sub-tenant's translation settings. */
  translationConfig: TranslationConfig;
}

export interface RequestContext {
  principal: Principal;
  tenant: TenantSnapshot;
  tenantId: string;
  /** Set when the key is scoped to a sub-tenant: the caller sees only that sub-tenant's data. */
  subTenantId: string | null;
  subTenant: SubTenantSnapshot | null;
  /** End user named by X-User-Id, if any. */
  userId: string | null;
  requestId: string;
  log: Logger;
}
