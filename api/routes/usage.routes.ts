import { z } from 'zod';
import { scopeOf } from '../../core/shared/scope.js';
import type { Services } from '../../runtime/services.js';
import { type RouteSpec, route } from '../route.js';

const quota = z.object({ used: z.number().int(), limit: z.number().int().nullable(), percent: z.number().nullable() });

export const usageSchema = z
  .object({
    chunks: quota,
    documents: quota,
    storage_bytes: quota,
    queries_this_period: quota,
    knowledge_bases: z.object({ used: z.number().int(), limit: z.number().int().nullable() }),
    query_rate_limit_per_min: z.number().int(),
  })
  .meta({ id: 'Usage', description: '`limit: null` means unlimited; `percent` is null when no limit applies.' });

export function usageRoutes(services: Pick<Services, 'usage'>): RouteSpec[] {
  return [
    route({
      method: 'get',
      path: '/v1/usage',
      operationId: 'getUsage',
      summary: 'Current usage against the plan limits (a sub-tenant key: that sub-tenant against its limits)',
      tag: 'Usage and billing',
      access: 'any',
      status: 200,
      response: { description: 'Usage', schema: usageSchema },
      errors: [401],
      handler: ({ ctx }) => services.usage.usage(scopeOf(ctx)),
    }),
  ];
}
