import { z } from 'zod';
import { ValidationError } from '../../core/errors.js';
import { queryRequestSchema, queryResponseSchema } from '../../core/search/search.schema.js';
import { BURST_LIMITS } from '../../core/plans.js';
import type { Services } from '../../runtime/services.js';
import { MAX_USER_ID_CHARS } from '../../core/sub-tenants/sub-tenant.schema.js';
import type { RequestContext } from '../../core/context.js';
import { perKeyLimit, perTenantQueryLimit, subTenantAndUserQueryLimits } from '../middleware/rate-limit.js';
import { type RouteSpec, route } from '../route.js';
import type { NextFunction, Request, Response } from 'express';
import { headerText } from '../text-input.js';

/** X-User-Id (1-256 characters) names the end user a query is made for; it joins the context. */
function attachEndUser(req: Request, res: Response, next: NextFunction): void {
  const userId = headerText(req.get('x-user-id'), 'x-user-id');
  if (userId !== undefined && (userId.length === 0 || userId.length > MAX_USER_ID_CHARS)) {
    throw new ValidationError([{ field: 'header.x-user-id', message: `must be 1-${MAX_USER_ID_CHARS} characters` }]);
  }
  res.locals.ctx = { ...(res.locals.ctx as RequestContext), userId: userId ?? null };
  next();
}

export function queryRoutes(services: Pick<Services, 'queries' | 'adapters'>): RouteSpec[] {
  const limits = services.adapters;
  return [
    route({
      method: 'post',
      path: '/v1/query',
      operationId: 'query',
      summary: 'Search the knowledge bases the key can see',
      tag: 'Query',
      access: 'read',
      body: queryRequestSchema,
      example: { query: 'How many days of paid leave do I get?', top_k: 5, filters: { 'tags.team': 'hr' } },
      headers: z.object({
        'x-user-id': z.string().max(MAX_USER_ID_CHARS).optional().meta({ description: 'End user the query is made for (max 256 chars).' }),
      }),
      status: 200,
      response: { description: 'Results, best first', schema: queryResponseSchema },
      errors: [400, 401, 402, 403, 404, 422, 429, 503],
      beforeAuth: [perKeyLimit(limits, 'query', BURST_LIMITS.queryPerKeyPerSecond)],
      before: [attachEndUser, perTenantQueryLimit(limits), subTenantAndUserQueryLimits(limits)],
      handler: ({ ctx, body }) => services.queries.run(ctx, body),
    }),
  ];
}
