import { z } from 'zod';
import type { HealthService } from '../../core/health/health.service.js';
import { type RouteSpec, route } from '../route.js';

const indexStatus = z.enum(['ok', 'missing']);

export function healthRoutes(health: HealthService): RouteSpec[] {
  return [
    route({
      method: 'get',
      path: '/health/live',
      operationId: 'getLiveness',
      summary: 'The process is alive',
      tag: 'Health',
      access: 'public',
      status: 200,
      response: { description: 'Alive', schema: z.object({ status: z.literal('ok') }) },
      handler: () => Promise.resolve({ status: 'ok' }),
    }),
    route({
      method: 'get',
      path: '/health/ready',
      operationId: 'getReadiness',
      summary: 'The database is reachable',
      tag: 'Health',
      access: 'public',
      status: 200,
      response: { description: 'Ready', schema: z.object({ status: z.enum(['ok', 'unavailable']) }) },
      errors: [503],
      handler: async ({ res }) => {
        const ok = await health.ready();
        if (!ok) res.status(503).json({ status: 'unavailable' });
        return { status: 'ok' };
      },
    }),
    route({
      method: 'get',
      path: '/health/index',
      operationId: 'getIndexHealth',
      summary: 'The vector indexes exist',
      tag: 'Health',
      access: 'public',
      status: 200,
      response: {
        description: 'Status of each vector index; 503 when any is missing',
        schema: z.object({ idx_chunks_embedding: indexStatus, idx_platform_chunks_embedding: indexStatus }),
      },
      errors: [503],
      handler: async ({ res }) => {
        const status = await health.vectorIndexes();
        if (Object.values(status).includes('missing')) res.status(503).json(status);
        return status;
      },
    }),
  ];
}
