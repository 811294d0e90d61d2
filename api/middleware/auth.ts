import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import type { RequestContext } from '../../core/context.js';
import { errors } from '../../core/errors.js';
import { DPA_HEADER, DPA_HEADER_VALUE, type DpaService } from '../../core/dpa/dpa.service.js';
import type { ApiKeyService } from '../../core/keys/api-key.service.js';
import { limitsFor } from '../../core/plans.js';

function bearerToken(req: Request): string {
  const header = req.get('authorization');
  if (!header) throw errors.unauthorized('The Authorization header is missing; send "Authorization: Bearer <API_KEY>".');
  const match = /^Bearer +(\S+)$/i.exec(header.trim());
  if (!match?.[1]) throw errors.unauthorized('The Authorization header must be "Bearer <API_KEY>".');
  return match[1];
}

/**
 * Authenticates an API key and stores the request context in `res.locals.ctx`. Responses to a
 * tenant that has not accepted the current DPA carry the X-DPA-Action-Required header.
 */
export function apiKeyGuard(keys: ApiKeyService, dpa: DpaService) {
  return async (req: Request, res: Response): Promise<RequestContext> => {
    const key = await keys.authenticate(bearerToken(req));
    if (!key) throw errors.unauthorized('The API key is unknown or has been revoked.');
    const log = (res.locals.log as Logger).child({ tenantId: key.tenant_id });
    res.locals.log = log;
    if (!dpa.isCompliant(key.dpa_accepted_version)) res.setHeader(DPA_HEADER, DPA_HEADER_VALUE);
    const ctx: RequestContext = {
      principal: { kind: 'api_key', id: key.id, role: key.role },
      tenant: {
        id: key.tenant_id,
        plan: key.plan,
        status: key.status,
        dpaAcceptedVersion: key.dpa_accepted_version,
        queryRateLimitPerMin: limitsFor(key.plan, key.limit_overrides).queryRateLimitPerMin,
      },
      tenantId: key.tenant_id,
      subTenantId: key.sub_tenant_id,
      userId: null,
      requestId: res.locals.requestId as string,
      log,
    };
    res.locals.ctx = ctx;
    return ctx;
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** Checks the platform operator's ADMIN_TOKEN in constant time. */
export function platformGuard(adminToken: string | undefined) {
  const expected = adminToken ? digest(adminToken) : undefined;
  return (req: Request): void => {
    if (!expected) throw errors.unauthorized('The internal admin API is disabled: ADMIN_TOKEN is not configured.');
    if (!timingSafeEqual(digest(bearerToken(req)), expected)) throw errors.unauthorized('The admin token is not valid.');
  };
}
