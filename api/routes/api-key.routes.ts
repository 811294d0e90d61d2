import { z } from 'zod';
import { apiKeySchema, createApiKeySchema, createdApiKeySchema } from '../../core/keys/api-key.schema.js';
import { presentApiKey, presentCreatedKey } from '../../core/keys/api-key.presenter.js';
import { scopeOf } from '../../core/shared/scope.js';
import type { Services } from '../../runtime/services.js';
import { type RouteSpec, route } from '../route.js';
import { uuidParam } from '../schemas.js';

export function apiKeyRoutes(services: Pick<Services, 'keys'>): RouteSpec[] {
  const { keys } = services;
  return [
    route({
      method: 'post',
      path: '/v1/auth/keys',
      operationId: 'createApiKey',
      summary: 'Create an API key (the key is shown only in this response)',
      tag: 'API keys',
      access: 'admin',
      body: createApiKeySchema,
      example: { name: 'Search frontend', role: 'read' },
      status: 201,
      response: { description: 'Created', schema: createdApiKeySchema },
      errors: [401, 403, 422],
      handler: async ({ ctx, body }) => presentCreatedKey(await keys.create(scopeOf(ctx), body)),
    }),
    route({
      method: 'get',
      path: '/v1/auth/keys',
      operationId: 'listApiKeys',
      summary: 'List active API keys (never the keys themselves)',
      tag: 'API keys',
      access: 'admin',
      status: 200,
      response: { description: 'Active keys, oldest first', schema: z.array(apiKeySchema) },
      errors: [401, 403],
      handler: async ({ ctx }) => (await keys.list(scopeOf(ctx))).map(presentApiKey),
    }),
    route({
      method: 'delete',
      path: '/v1/auth/keys/{id}',
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key; it stops working at once',
      tag: 'API keys',
      access: 'admin',
      params: z.object({ id: uuidParam }),
      status: 204,
      errors: [401, 403, 404],
      handler: async ({ ctx, params }) => {
        await keys.revoke(scopeOf(ctx), params.id);
      },
    }),
  ];
}
