import { z } from 'zod';
import { presentApiKey, presentSubTenantKey } from '../../core/keys/api-key.presenter.js';
import { apiKeySchema } from '../../core/keys/api-key.schema.js';
import { scopeOf } from '../../core/shared/scope.js';
import { presentSubTenant, presentSubTenantUsage, presentUsageBreakdown } from '../../core/sub-tenants/sub-tenant.presenter.js';
import type { Services } from '../../runtime/services.js';
import {
  MAX_USER_ID_CHARS,
  createSubTenantKeySchema,
  createSubTenantSchema,
  subTenantSchema,
  subTenantUsageSchema,
  updateSubTenantSchema,
  userPreferencesSchema,
} from '../../core/sub-tenants/sub-tenant.schema.js';
import { type RouteSpec, route } from '../route.js';
import { uuidParam } from '../schemas.js';

const idParams = z.object({ id: uuidParam });

export function subTenantRoutes(services: Pick<Services, 'subTenants'>): RouteSpec[] {
  const { subTenants } = services;
  // Enterprise plan and a tenant-level key first (their 403s take precedence), then the admin role.
  const common = {
    tag: 'Sub-tenants',
    access: 'admin',
    guard: (ctx: Parameters<typeof subTenants.assertManager>[0]) => subTenants.assertManager(ctx),
  } as const;
  const errors = [401, 403, 404];
  return [
    route({
      ...common,
      method: 'post',
      path: '/v1/sub-tenants',
      operationId: 'createSubTenant',
      summary: 'Create a sub-tenant (200 with the existing one when external_id is taken)',
      body: createSubTenantSchema,
      example: { name: 'Acme Retail', external_id: 'acme-retail', max_documents: 1000, storage_quota_bytes: 1073741824 },
      status: 201,
      response: { description: 'Created (or, with status 200, the existing record of that external_id)', schema: subTenantSchema },
      errors: [401, 403, 422],
      handler: async ({ ctx, body, res }) => {
        const { created, subTenant } = await subTenants.create(scopeOf(ctx), body);
        res.status(created ? 201 : 200).json(presentSubTenant(subTenant));
      },
    }),
    route({
      ...common,
      method: 'get',
      path: '/v1/sub-tenants',
      operationId: 'listSubTenants',
      summary: 'List sub-tenants',
      status: 200,
      response: { description: 'Sub-tenants, oldest first', schema: z.array(subTenantSchema) },
      errors: [401, 403],
      handler: async ({ ctx }) => (await subTenants.list(scopeOf(ctx))).map(presentSubTenant),
    }),
    route({
      ...common,
      method: 'get',
      path: '/v1/sub-tenants/{id}',
      operationId: 'getSubTenant',
      summary: 'Get a sub-tenant',
      params: idParams,
      status: 200,
      response: { description: 'The sub-tenant', schema: subTenantSchema },
      errors,
      handler: async ({ ctx, params }) => presentSubTenant(await subTenants.view(scopeOf(ctx), params.id)),
    }),
    route({
      ...common,
      method: 'patch',
      path: '/v1/sub-tenants/{id}',
      operationId: 'updateSubTenant',
      summary: 'Rename a sub-tenant or change its limits (null clears a limit)',
      params: idParams,
      body: updateSubTenantSchema,
      example: { max_documents: 2000, query_rate_limit_per_min: 60 },
      status: 200,
      response: { description: 'The updated sub-tenant', schema: subTenantSchema },
      errors: [...errors, 422],
      handler: async ({ ctx, params, body }) => presentSubTenant(await subTenants.update(scopeOf(ctx), params.id, body)),
    }),
    route({
      ...common,
      method: 'delete',
      path: '/v1/sub-tenants/{id}',
      operationId: 'deleteSubTenant',
      summary: 'Delete a sub-tenant with all its data (frees the parent’s quotas)',
      params: idParams,
      status: 204,
      errors,
      handler: ({ ctx, params }) => subTenants.delete(scopeOf(ctx), params.id),
    }),
    route({
      ...common,
      method: 'post',
      path: '/v1/sub-tenants/{id}/api-keys',
      operationId: 'createSubTenantKey',
      summary: 'Create a key that sees only this sub-tenant',
      params: idParams,
      body: createSubTenantKeySchema,
      example: { role: 'read', name: 'Acme Retail search' },
      status: 201,
      response: {
        description: 'Created; the key is shown only here',
        schema: z.object({ key: z.string(), id: z.uuid(), role: z.enum(['read', 'write']), sub_tenant_id: z.uuid() }),
      },
      errors: [...errors, 422],
      handler: async ({ ctx, params, body }) => presentSubTenantKey(await subTenants.createKey(scopeOf(ctx), params.id, body)),
    }),
    route({
      ...common,
      method: 'get',
      path: '/v1/sub-tenants/{id}/api-keys',
      operationId: 'listSubTenantKeys',
      summary: 'List the active keys of a sub-tenant',
      params: idParams,
      status: 200,
      response: { description: 'Keys (never the keys themselves)', schema: z.array(apiKeySchema) },
      errors,
      handler: async ({ ctx, params }) => (await subTenants.listKeys(scopeOf(ctx), params.id)).map(presentApiKey),
    }),
    route({
      ...common,
      method: 'delete',
      path: '/v1/sub-tenants/{id}/api-keys/{key_id}',
      operationId: 'revokeSubTenantKey',
      summary: 'Revoke a key of a sub-tenant',
      params: z.object({ id: uuidParam, key_id: uuidParam }),
      status: 204,
      errors,
      handler: ({ ctx, params }) => subTenants.revokeKey(scopeOf(ctx), params.id, params.key_id),
    }),
    route({
      ...common,
      method: 'get',
      path: '/v1/sub-tenants/{id}/usage',
      operationId: 'getSubTenantUsage',
      summary: 'Usage of a sub-tenant against its own limits',
      params: idParams,
      status: 200,
      response: { description: 'Usage (limit null: only the parent’s applies)', schema: subTenantUsageSchema },
      errors,
      handler: async ({ ctx, params }) => presentSubTenantUsage(await subTenants.view(scopeOf(ctx), params.id)),
    }),
    route({
      ...common,
      method: 'get',
      path: '/v1/usage/breakdown',
      operationId: 'getUsageBreakdown',
      summary: 'Usage per sub-tenant, and the tenant’s total chunks',
      status: 200,
      response: {
        description: 'Breakdown',
        schema: z.object({
          sub_tenants: z.array(
            z.object({
              sub_tenant_id: z.uuid(),
              name: z.string(),
              chunks: z.number().int(),
              queries_this_period: z.number().int(),
              active_users: z.number().int(),
            }),
          ),
          total_chunks: z.number().int().meta({ description: 'All chunks of the tenant, its own included.' }),
        }),
      },
      errors: [401, 403],
      handler: async ({ ctx }) => presentUsageBreakdown(await subTenants.breakdown(scopeOf(ctx))),
    }),
    route({
      ...common,
      method: 'get',
      path: '/v1/usage/users',
      operationId: 'getActiveUsers',
      summary: 'Active end users of the current month (UTC) per sub-tenant',
      status: 200,
      response: {
        description: 'One entry per sub-tenant',
        schema: z.array(z.object({ sub_tenant_id: z.uuid(), name: z.string(), active_users: z.number().int() })),
      },
      errors: [401, 403],
      handler: async ({ ctx }) =>
        (await subTenants.activeUsers(scopeOf(ctx))).map(({ subTenant, activeUsers }) => ({ sub_tenant_id: subTenant.id, name: subTenant.name, active_users: activeUsers })),
    }),
    route({
      method: 'patch',
      path: '/v1/sub-tenants/{id}/users/{user_id}/preferences',
      operationId: 'setUserPreferences',
      summary: 'Store an end user’s translation preferences (Enterprise only)',
      tag: 'Sub-tenants',
      access: 'admin',
      params: z.object({ id: uuidParam, user_id: z.string().min(1).max(MAX_USER_ID_CHARS) }),
      body: userPreferencesSchema,
      example: { translation_config: { preferred_language: 'nl', response_translation: 'on_request' } },
      status: 200,
      response: {
        description: 'The stored preferences',
        schema: z.object({ sub_tenant_id: z.uuid(), user_id: z.string(), translation_config: userPreferencesSchema.shape.translation_config }),
      },
      errors: [...errors, 422],
      handler: ({ ctx, params, body }) => subTenants.setUserPreferences(ctx, params.id, params.user_id, body.translation_config),
    }),
  ];
}
