import { pipeline } from 'node:stream/promises';
import type { Request } from 'express';
import { z } from 'zod';
import { DELETE_CONFIRMATION, EXPORT_LINK_SECONDS } from '../../core/accounts/account.service.js';
import type { Services } from '../../runtime/services.js';
import { type RouteSpec, route } from '../route.js';
import { uuidParam } from '../schemas.js';

export function accountRoutes(services: Pick<Services, 'accounts'>, publicBaseUrl: string | undefined): RouteSpec[] {
  const { accounts } = services;
  const baseUrl = (req: Request) => publicBaseUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;
  return [
    route({
      method: 'post',
      path: '/v1/account/export',
      operationId: 'exportAccount',
      summary: 'Export the account: a summary, and a signed link to a ZIP of all its data',
      tag: 'Account',
      access: 'admin',
      status: 200,
      response: {
        description: 'The export',
        schema: z.object({
          download_url: z.url().meta({ description: `Works without an API key for ${EXPORT_LINK_SECONDS} seconds.` }),
          expires_in_seconds: z.literal(EXPORT_LINK_SECONDS),
          account: z.record(z.string(), z.unknown()),
          knowledge_bases: z.array(z.unknown()),
          documents: z.array(z.unknown()),
          usage_history: z.array(z.object({ month: z.string(), event_type: z.string(), quantity: z.number(), cost_microcents: z.number() })),
        }),
      },
      errors: [401, 403],
      handler: ({ ctx, req }) => accounts.export(ctx, baseUrl(req)),
    }),
    route({
      method: 'get',
      path: '/v1/account/exports/{id}',
      operationId: 'downloadAccountExport',
      summary: 'Download an export archive through its signed link (no API key)',
      tag: 'Account',
      access: 'public',
      params: z.object({ id: uuidParam }),
      query: z.object({ expires: z.string(), signature: z.string() }),
      status: 200,
      response: { description: 'A ZIP archive', contentType: 'application/zip', schema: z.string().meta({ format: 'binary' }) },
      errors: [403, 404, 410],
      handler: async ({ params, query, res }) => {
        const { fileName, stream } = await accounts.openDownload(params.id, query.expires, query.signature);
        res.status(200);
        res.setHeader('Content-Type', 'application/zip');
        res.setHeader('Content-Disposition', `attachment; filename="${fileName}"`);
        res.setHeader('Cache-Control', 'no-store');
        try {
          await pipeline(stream, res);
        } catch (err) {
          // The client went away: the archive is dropped with it; that is not a server error.
          if ((err as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE') return;
          throw err;
        }
      },
    }),
    route({
      method: 'delete',
      path: '/v1/account',
      operationId: 'deleteAccount',
      summary: 'Delete the account and all its data (requires X-Confirm-Delete)',
      tag: 'Account',
      access: 'admin',
      headers: z.object({ 'x-confirm-delete': z.literal(DELETE_CONFIRMATION) }),
      status: 202,
      response: { description: 'Deleted', schema: z.object({ status: z.literal('deleted') }) },
      errors: [400, 401, 403],
      handler: ({ ctx, req }) => accounts.delete(ctx, req.get('x-confirm-delete')),
    }),
  ];
}
