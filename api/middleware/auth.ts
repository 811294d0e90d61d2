import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import type { Principal, RequestContext } from '../../core/context.js';
import type { PortalAccountService } from '../../core/portal/portal-account.service.js';
import { CSRF_HEADER, SESSION_COOKIE, readCookie } from '../portal/cookies.js';
import { errors } from '../../core/errors.js';
import { DPA_HEADER, DPA_HEADER_VALUE, type DpaService } from '../../core/dpa/dpa.service.js';
import type { CredentialTenantRow } from '../../core/tenants/tenant.repository.js';
import type { ApiKeyService } from '../../core/keys/api-key.service.js';
import { DEFAULT_PER_USER_RATE_LIMIT_PER_MIN, limitsFor } from '../../core/plans.js';

function bearerToken(req: Request): string {
  const header = req.get('authorization');
  if (!header) throw errors.unauthorized('The Authorization header is missing; send "Authorization: Bearer <API_KEY>".');
  const match = /^Bearer +(\S+)$/i.exec(header.trim());
  if (!match?.[1]) throw errors.unauthorized('The Authorization header must be "Bearer <API_KEY>".');
  return match[1];
}

/**
 * Authenticates an API key (the Authorization header) or, without one, a portal session (its cookie;
 * a state-changing request must also carry the session's CSRF token in X-CSRF-Token), and stores the
 * request context in `res.locals.ctx`. Responses to a tenant that has not accepted the current DPA
 * carry the X-DPA-Action-Required header.
 */
export function apiKeyGuard(keys: ApiKeyService, dpa: DpaService, portal: Pick<PortalAccountService, 'session'>) {
  return async (req: Request, res: Response): Promise<RequestContext> => {
    const sessionId = req.get('authorization') === undefined ? readCookie(req, SESSION_COOKIE) : undefined;
    let principal: Principal;
    let row: CredentialTenantRow;
    if (sessionId !== undefined) {
      const session = await portal.session(sessionId);
      if (!session) throw errors.unauthorized('The portal session has ended; sign in again.');
      if (!SAFE_METHODS.has(req.method) && !sameSecret(req.get(CSRF_HEADER), session.csrf_token)) {
        throw errors.forbidden('csrf_token_invalid', 'A request made with the portal session must carry its CSRF token in X-CSRF-Token.');
      }
      principal = { kind: 'portal_user', id: session.user_id, role: session.role, email: session.email };
      row = session;
    } else {
      const key = await keys.authenticate(bearerToken(req));
      if (!key) throw errors.unauthorized('The API key is unknown or has been revoked.');
      principal = { kind: 'api_key', id: key.id, role: key.role };
      row = key;
    }
    const log = (res.locals.log as Logger).child({ tenantId: row.tenant_id });
    res.locals.log = log;
    if (!dpa.isCompliant(row.dpa_accepted_version)) res.setHeader(DPA_HEADER, DPA_HEADER_VALUE);
    const ctx: RequestContext = { principal, ...tenantContext(row), userId: null, requestId: res.locals.requestId as string, log };
    res.locals.ctx = ctx;
    return ctx;
  };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Compares a presented secret with the expected one in constant time. */
export function sameSecret(presented: string | undefined, expected: string): boolean {
  return presented !== undefined && timingSafeEqual(digest(presented), digest(expected));
}

/** The tenant part of a request context, shared by the API-key guard and the MCP endpoint. */
export function tenantContext(row: CredentialTenantRow): Pick<RequestContext, 'tenant' | 'subTenant' | 'tenantId' | 'subTenantId'> {
  return {
    tenant: {
      id: row.tenant_id,
      plan: row.plan,
      status: row.status,
      dpaAcceptedVersion: row.dpa_accepted_version,
      queryRateLimitPerMin: limitsFor(row.plan, row.limit_overrides).queryRateLimitPerMin,
      perUserRateLimitPerMin: row.per_user_rate_limit_per_min ?? DEFAULT_PER_USER_RATE_LIMIT_PER_MIN,
      translationConfig: row.translation_config,
      period: { start: row.period_start, end: row.period_end, includedQueries: row.period_included_queries },
    },
    subTenant: row.sub_tenant_id
      ? {
          id: row.sub_tenant_id,
          queryRateLimitPerMin: row.sub_query_rate_limit_per_min,
          perUserRateLimitPerMin: row.sub_per_user_rate_limit_per_min,
          includedQueriesPerPeriod: row.sub_included_queries_per_period === null ? null : Number(row.sub_included_queries_per_period),
          translationConfig: row.sub_translation_config ?? {},
        }
      : null,
    tenantId: row.tenant_id,
    subTenantId: row.sub_tenant_id,
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** Checks the instance operator's ADMIN_TOKEN in constant time. */
export function operatorGuard(adminToken: string | undefined) {
  const expected = adminToken ? digest(adminToken) : undefined;
  return (req: Request): void => {
    if (!expected) throw errors.unauthorized('The internal admin API is disabled: ADMIN_TOKEN is not configured.');
    if (!timingSafeEqual(digest(bearerToken(req)), expected)) throw errors.unauthorized('The admin token is not valid.');
  };
}
