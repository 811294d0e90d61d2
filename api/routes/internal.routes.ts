import { z } from 'zod';
import { createInitialAccessTokenSchema, createOAuthClientSchema } from '../../core/oauth/oauth.schema.js';
import { createTenantSchema, updateTenantSchema } from '../../core/tenants/tenant.schema.js';
import { presentCreatedKey } from '../../core/keys/api-key.presenter.js';
import { tenantScope } from '../../core/shared/scope.js';
import { presentInvitation, presentTenant } from '../../core/tenants/tenant.presenter.js';
import type { Services } from '../../runtime/services.js';
import { type RouteSpec, route } from '../route.js';
import { uuidParam } from '../schemas.js';

const tenantParams = z.object({ id: uuidParam });

/** The instance operator's API under /internal/v1 (ADMIN_TOKEN; not in the OpenAPI document). */
export function internalRoutes(services: Pick<Services, 'tenants'>): RouteSpec[] {
  const { tenants } = services;
  const common = { tag: 'Internal', access: 'operator', internal: true } as const;
  return [
    route({
      ...common,
      method: 'post',
      path: '/internal/v1/tenants',
      operationId: 'internalCreateTenant',
      summary: 'Create a tenant and its first admin key',
      body: createTenantSchema,
      status: 201,
      handler: async ({ body }) => {
        const { tenant, apiKey, invitation } = await tenants.create(body);
        return { id: tenant.id, api_key: apiKey, portal_invitation: presentInvitation(invitation) };
      },
    }),
    route({
      ...common,
      method: 'get',
      path: '/internal/v1/tenants',
      operationId: 'internalListTenants',
      summary: 'List every tenant, oldest first',
      status: 200,
      handler: async () => ({ tenants: (await tenants.list()).map(presentTenant) }),
    }),
    route({
      ...common,
      method: 'get',
      path: '/internal/v1/tenants/{id}',
      operationId: 'internalGetTenant',
      summary: 'Get a tenant',
      params: tenantParams,
      status: 200,
      handler: async ({ params }) => presentTenant(await tenants.get(tenantScope(params.id))),
    }),
    route({
      ...common,
      method: 'patch',
      path: '/internal/v1/tenants/{id}',
      operationId: 'internalUpdateTenant',
      summary: 'Support actions: status, plan, add-ons, limit overrides',
      params: tenantParams,
      body: updateTenantSchema,
      status: 200,
      handler: async ({ params, body }) => presentTenant(await tenants.update(tenantScope(params.id), body)),
    }),
    route({
      ...common,
      method: 'post',
      path: '/internal/v1/tenants/{id}/api-keys',
      operationId: 'internalIssueAdminKey',
      summary: 'Issue a new admin key to a tenant that lost access',
      params: tenantParams,
      body: z.strictObject({ name: z.string().trim().min(1).max(200).optional() }),
      status: 201,
      handler: async ({ params, body }) => presentCreatedKey(await tenants.issueAdminKey(tenantScope(params.id), body.name)),
    }),
  ];
}

/**
 * Support's side of OAuth for the MCP endpoint (spec §5): register an application (the secret is
 * shown once), list and revoke a tenant's applications, and issue a single-use initial access token
 * with which an application registers itself at /oauth/register (RFC 7591).
 */
export function oauthClientInternalRoutes(services: Pick<Services, 'oauthClients'>): RouteSpec[] {
  const { oauthClients } = services;
  const common = { tag: 'Internal', access: 'operator', internal: true } as const;
  return [
    route({
      ...common,
      method: 'post',
      path: '/internal/v1/oauth-clients',
      operationId: 'internalCreateOAuthClient',
      summary: 'Register an OAuth application of a tenant (or sub-tenant); the client_secret is shown once',
      body: createOAuthClientSchema,
      status: 201,
      handler: ({ body }) => oauthClients.register(body),
    }),
    route({
      ...common,
      method: 'get',
      path: '/internal/v1/tenants/{id}/oauth-clients',
      operationId: 'internalListOAuthClients',
      summary: "List a tenant's active OAuth applications",
      params: tenantParams,
      status: 200,
      handler: ({ params }) => oauthClients.list(tenantScope(params.id)),
    }),
    route({
      ...common,
      method: 'delete',
      path: '/internal/v1/oauth-clients/{client_id}',
      operationId: 'internalRevokeOAuthClient',
      summary: 'Revoke an OAuth application and every token it holds, at once',
      params: z.object({ client_id: uuidParam }),
      status: 204,
      handler: async ({ params }) => {
        await oauthClients.revoke(params.client_id);
      },
    }),
    route({
      ...common,
      method: 'post',
      path: '/internal/v1/oauth-initial-access-tokens',
      operationId: 'internalCreateInitialAccessToken',
      summary: 'Issue a single-use initial access token for /oauth/register',
      body: createInitialAccessTokenSchema,
      status: 201,
      handler: ({ body }) => oauthClients.issueInitialAccessToken(body),
    }),
  ];
}
