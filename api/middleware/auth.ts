import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import type { RequestContext } from '../../core/context.js';
import { errors } from '../../core/errors.js';
import type { ApiKeyService } from '../../core/keys/api-key.service.js';

function bearerToken(req: Request): string {
  const header = req.get('authorization');
  if (!header) throw errors.unauthorized('The Authorization header is missing; send "Authorization: Bearer <API_KEY>".');
  const match = /^Bearer +(\S+)$/i.exec(header.trim());
  if (!match?.[1]) throw errors.unauthorized('The Authorization header must be "Bearer <API_KEY>".');
  return match[1];
}

/** Authenticates an API key and stores the request context in `res.locals.ctx`. */
export function apiKeyGuard(keys: ApiKeyService) {
  return async (req: Request, res: Response): Promise<RequestContext> => {
    const key = await keys.authenticate(bearerToken(req));
    if (!key) throw errors.unauthorized('The API key is unknown or has been revoked.');
    const log = (res.locals.log as Logger).child({ tenantId: key.tenant_id });
    res.locals.log = log;
    const ctx: RequestContext = {
      principal: { kind: 'api_key', id: key.id, role: key.role },
      tenant: { id: key.tenant_id, plan: key.plan, status: key.status },
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
