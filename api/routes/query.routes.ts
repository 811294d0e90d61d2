import { z } from 'zod';
import { ValidationError } from '../../core/errors.js';
import { queryRequestSchema, queryResponseSchema } from '../../core/search/search.schema.js';
import { BURST_LIMITS } from '../../core/plans.js';
import type { Services } from '../../core/services.js';
import { perKeyLimit, perTenantQueryLimit } from '../middleware/rate-limit.js';
import { type RouteSpec, route } from '../route.js';

export const MAX_USER_ID_CHARS = 256;

export function queryRoutes(services: Pick<Services, 'queries' | 'adapters'>): RouteSpec[] {
  const store = services.adapters.rateLimits;
  return [
    route({
      method: 'post',
      path: '/v1/query',
      operationId: 'query',
      summary: 'Search the knowledge bases the key can see',
      tag: 'Query',
      access: 'read',
      body: queryRequestSchema,
      headers: z.object({
        'x-user-id': z.string().max(MAX_USER_ID_CHARS).optional().meta({ description: 'End user the query is made for (max 256 chars).' }),
      }),
      status: 200,
      response: { description: 'Results, best first', schema: queryResponseSchema },
      errors: [400, 401, 402, 403, 404, 422, 429, 503],
      beforeAuth: [perKeyLimit(store, 'query', BURST_LIMITS.queryPerKeyPerSecond)],
      before: [perTenantQueryLimit(store)],
      handler: ({ ctx, body, req }) => {
        const userId = req.get('x-user-id');
        if (userId !== undefined && (userId.length === 0 || userId.length > MAX_USER_ID_CHARS)) {
          throw new ValidationError([{ field: 'header.x-user-id', message: `must be 1-${MAX_USER_ID_CHARS} characters` }]);
        }
        return services.queries.run({ ...ctx, userId: userId ?? null }, body);
      },
    }),
  ];
}
