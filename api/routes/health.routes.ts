import { z } from 'zod';
import type { Services } from '../../runtime/services.js';
import { type RouteSpec, route } from '../route.js';

const indexStatus = z.enum(['ok', 'missing']);
const indexHealth = z.object({ idx_chunks_embedding: indexStatus, idx_platform_chunks_embedding: indexStatus });

export function healthRoutes(services: Pick<Services, 'health'>): RouteSpec[] {
  const { health } = services;
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
      response: { description: 'Ready', schema: z.object({ status: z.literal('ok') }) },
      otherResponses: { 503: { description: 'The database is unreachable', schema: z.object({ status: z.literal('unavailable') }) } },
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
      response: { description: 'Both vector indexes exist', schema: indexHealth },
      otherResponses: { 503: { description: 'A vector index is missing (spec §4: the same body)', schema: indexHealth } },
      handler: async ({ res }) => {
        const status = await health.vectorIndexes();
        if (Object.values(status).includes('missing')) res.status(503).json(status);
        return status;
      },
    }),
  ];
}
