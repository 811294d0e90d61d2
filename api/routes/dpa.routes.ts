import { z } from 'zod';
import { DPA_HEADER, MAX_ACCEPTED_BY_CHARS } from '../../core/dpa/dpa.service.js';
import { ValidationError } from '../../core/errors.js';
import { scopeOf } from '../../core/shared/scope.js';
import type { Services } from '../../runtime/services.js';
import { type RouteSpec, route } from '../route.js';
import { headerText } from '../text-input.js';

export function dpaRoutes(services: Pick<Services, 'dpa'>): RouteSpec[] {
  const { dpa } = services;
  return [
    route({
      method: 'get',
      path: '/v1/dpa/status',
      operationId: 'getDpaStatus',
      summary: 'Whether the tenant has accepted the current data-processing agreement',
      tag: 'Data processing agreement',
      access: 'any',
      status: 200,
      response: {
        description: 'Status',
        schema: z.object({ compliant: z.boolean(), current_version: z.number().int(), accepted_version: z.number().int().nullable() }),
      },
      errors: [401],
      handler: ({ ctx }) => dpa.status(scopeOf(ctx)),
    }),
    route({
      method: 'post',
      path: '/v1/dpa/accept',
      operationId: 'acceptDpa',
      summary: 'Accept the current version of the data-processing agreement',
      tag: 'Data processing agreement',
      access: 'admin',
      body: z.strictObject({ version: z.number().int().min(1) }),
      example: { version: dpa.currentVersion },
      headers: z.object({ 'x-accepted-by': z.string().max(MAX_ACCEPTED_BY_CHARS).optional().meta({ description: 'Who accepted (recorded).' }) }),
      status: 200,
      response: { description: 'Accepted', schema: z.object({ status: z.literal('accepted'), dpa_version: z.number().int() }) },
      errors: [401, 403, 422],
      handler: async ({ ctx, body, req, res }) => {
        const by = headerText(req.get('x-accepted-by'), 'x-accepted-by');
        if (by !== undefined && by.length > MAX_ACCEPTED_BY_CHARS) {
          throw new ValidationError([{ field: 'header.x-accepted-by', message: `at most ${MAX_ACCEPTED_BY_CHARS} characters` }]);
        }
        // A person in the portal is recorded by their address, whatever the header says.
        const result = await dpa.accept(ctx, body.version, ctx.principal.email ?? (by?.trim() || null));
        res.removeHeader(DPA_HEADER);
        return result;
      },
    }),
  ];
}
