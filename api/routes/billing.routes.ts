import { z } from 'zod';
import { billingDetailsSchema } from '../../core/billing/billing.schema.js';
import { presentBillingStatus, presentBillingUsage, presentIntervalChange, presentPlanChange, presentRenewal } from '../../core/billing/billing.presenter.js';
import { PLAN_IDS } from '../../core/plans.js';
import { scopeOf } from '../../core/shared/scope.js';
import type { Services } from '../../runtime/services.js';
import { type RouteSpec, route } from '../route.js';

const billingUsageSchema = z
  .object({
    plan_type: z.enum(PLAN_IDS),
    included_queries: z.number().int(),
    total_requests: z.number().int(),
    total_input_tokens: z.number().int(),
    total_output_tokens: z.number().int(),
    total_cost_microcents: z.number().int(),
    query_count: z.number().int(),
    ingestion_chunks: z.number().int(),
    overage_queries: z.number().int(),
    overage_cost_microcents: z.number().int(),
  })
  .meta({ id: 'BillingUsage' });



// The plan is a string here so an unknown one is 422 invalid_plan (not a generic validation error).
const planBody = z.strictObject({ plan: z.string() });
const common = { tag: 'Usage and billing', access: 'admin' } as const;
const planErrors = [401, 403, 409, 422, 503];

export function billingRoutes(services: Pick<Services, 'billing' | 'planChanges'>): RouteSpec[] {
  const { billing, planChanges } = services;
  return [
    route({
      ...common,
      method: 'get',
      path: '/v1/billing/usage',
      operationId: 'getBillingUsage',
      summary: 'Billing usage: the last 30 days plus current-period counters',
      status: 200,
      response: { description: 'Billing usage', schema: billingUsageSchema },
      errors: [401, 403],
      handler: async ({ ctx }) => presentBillingUsage(await billing.usage(scopeOf(ctx))),
    }),
    route({
      ...common,
      method: 'get',
      path: '/v1/billing/events',
      operationId: 'listBillingEvents',
      summary: 'Billing events (currently always empty)',
      status: 200,
      response: { description: 'An empty list', schema: z.array(z.unknown()) },
      errors: [401, 403],
      handler: () => Promise.resolve([]),
    }),
    route({
      ...common,
      method: 'get',
      path: '/v1/billing',
      operationId: 'getBillingStatus',
      summary: 'Plan, billing interval, current period and scheduled changes',
      status: 200,
      errors: [401, 403],
      handler: async ({ ctx }) => presentBillingStatus(await billing.status(scopeOf(ctx))),
    }),
    route({
      ...common,
      method: 'put',
      path: '/v1/billing/details',
      operationId: 'setBillingDetails',
      summary: 'Set the billing details required for paid plans and annual billing',
      body: billingDetailsSchema,
      example: { company_name: 'Acme B.V.', email: 'billing@acme.example', address: 'Keizersgracht 1, 1015 CC Amsterdam', country: 'NL', vat_id: 'NL123456789B01', payment_method: 'sepa_debit' },
      status: 200,
      response: { description: 'The stored details', schema: billingDetailsSchema },
      errors: [401, 403, 422],
      handler: ({ ctx, body }) => planChanges.setDetails(scopeOf(ctx), body),
    }),
    route({
      ...common,
      method: 'post',
      path: '/v1/billing/upgrade',
      operationId: 'upgradePlan',
      summary: 'Upgrade at once; included queries are prorated for the rest of the period',
      body: planBody,
      example: { plan: 'enterprise' },
      status: 200,
      response: {
        description: 'Upgraded',
        schema: z.object({ status: z.literal('upgraded'), plan: z.enum(PLAN_IDS), prorated_queries: z.number().int() }),
      },
      errors: planErrors,
      handler: async ({ ctx, body }) => presentPlanChange(await planChanges.upgrade(scopeOf(ctx), body.plan)),
    }),
    route({
      ...common,
      method: 'post',
      path: '/v1/billing/downgrade',
      operationId: 'downgradePlan',
      summary: 'Schedule a downgrade for the end of the billing period',
      body: planBody,
      example: { plan: 'payg' },
      status: 200,
      response: {
        description: 'Scheduled',
        schema: z.object({ status: z.literal('scheduled'), plan: z.enum(PLAN_IDS), effective_at: z.iso.datetime() }),
      },
      errors: planErrors,
      handler: async ({ ctx, body }) => presentPlanChange(await planChanges.downgrade(scopeOf(ctx), body.plan)),
    }),
    route({
      ...common,
      method: 'post',
      path: '/v1/billing/cancel',
      operationId: 'cancelPlan',
      summary: 'Schedule a cancellation (to Free) for the end of the billing period',
      status: 200,
      response: { description: 'Scheduled', schema: z.object({ status: z.literal('cancellation_scheduled'), effective_at: z.iso.datetime() }) },
      errors: planErrors,
      handler: async ({ ctx }) => presentPlanChange(await planChanges.cancel(scopeOf(ctx))),
    }),
    route({
      ...common,
      method: 'delete',
      path: '/v1/billing/cancel',
      operationId: 'retractCancellation',
      summary: 'Retract a pending cancellation',
      status: 200,
      response: { description: 'Retracted', schema: z.object({ status: z.literal('cancellation_retracted') }) },
      errors: [401, 403, 404, 503],
      handler: async ({ ctx }) => presentPlanChange(await planChanges.retractCancellation(scopeOf(ctx))),
    }),
    route({
      ...common,
      method: 'post',
      path: '/v1/billing/interval',
      operationId: 'setBillingInterval',
      summary: 'Switch between monthly and annual billing (from the next period)',
      body: z.strictObject({ billing_interval: z.enum(['monthly', 'annual']) }),
      example: { billing_interval: 'annual' },
      status: 200,
      response: {
        description: 'Scheduled or unchanged',
        schema: z.object({
          status: z.enum(['scheduled', 'unchanged']),
          billing_interval: z.enum(['monthly', 'annual']),
          effective_at: z.iso.datetime().nullable(),
        }),
      },
      errors: planErrors,
      handler: async ({ ctx, body }) => presentIntervalChange(await planChanges.setInterval(scopeOf(ctx), body.billing_interval)),
    }),
    route({
      ...common,
      method: 'post',
      path: '/v1/billing/renew',
      operationId: 'renewAnnualPlan',
      summary: 'Renew an annual plan for another year',
      status: 200,
      response: {
        description: 'Renewed',
        schema: z.object({
          status: z.literal('renewed'),
          billing_interval: z.literal('annual'),
          current_period_end: z.iso.datetime(),
          renewed_until: z.iso.datetime(),
        }),
      },
      errors: [401, 403, 409, 503],
      handler: async ({ ctx }) => presentRenewal(await planChanges.renew(scopeOf(ctx))),
    }),
  ];
}
