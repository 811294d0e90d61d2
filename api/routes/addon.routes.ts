import { z } from 'zod';
import { addonHealthSchema, addonJobAcceptedSchema, generateReportSchema, jobResultSchema, transcribeParts } from '../../core/addons/addon.schema.js';
import { scopeOf } from '../../core/shared/scope.js';
import type { Services } from '../../runtime/services.js';
import { parseMultipart } from '../multipart.js';
import { type RouteSpec, route } from '../route.js';
import { uuidParam } from '../schemas.js';

/** Spec §8: a transcribe request is at most 25 MB. */
export const MAX_TRANSCRIBE_REQUEST_BYTES = 25 * 1024 * 1024;

const accepted = { description: 'Accepted: the job runs asynchronously; poll GET /v1/jobs/{job_id} or wait for the callback.', schema: addonJobAcceptedSchema };

/** The transcription and report add-ons of spec §4, and their jobs' results. */
export function addonRoutes(services: Pick<Services, 'addons'>): RouteSpec[] {
  const { addons } = services;
  return [
    route({
      method: 'post',
      path: '/v1/transcribe',
      operationId: 'transcribe',
      summary: 'Transcribe audio (add-on; max request 25 MB)',
      tag: 'Add-ons',
      access: 'write',
      multipart: transcribeParts,
      example: { language: 'en' },
      status: 202,
      response: accepted,
      errors: [400, 401, 403, 413, 415, 422, 503],
      handler: async ({ ctx, req }) => {
        const { fields, file } = await parseMultipart(req, { maxRequestBytes: MAX_TRANSCRIBE_REQUEST_BYTES, fileField: 'audio', maxFieldBytes: 8 * 1024 });
        const { jobId } = await addons.transcribe(ctx, {
          audio: file,
          language: fields.language,
          callbackUrl: fields.callback_url,
          callbackSecret: fields.callback_secret,
        });
        return { job_id: jobId };
      },
    }),
    route({
      method: 'post',
      path: '/v1/reports/generate',
      operationId: 'generateReport',
      summary: 'Generate a structured report from a transcript (add-on)',
      tag: 'Add-ons',
      access: 'write',
      body: generateReportSchema,
      example: {
        transcript:
          'Anna: Welcome, everyone. Today we decide on the new leave policy.\nBen: I propose 25 days of paid leave a year, with five days carried over.\nAnna: Agreed. Ben drafts the policy by Friday.',
      },
      status: 202,
      response: accepted,
      errors: [400, 401, 403, 422, 503],
      handler: async ({ ctx, body }) => ({ job_id: (await addons.generateReport(ctx, body)).jobId }),
    }),
    route({
      method: 'get',
      path: '/v1/jobs/{id}/result',
      operationId: 'getJobResult',
      summary: "A transcription or report job's result, kept for ADDON_RESULT_TTL_HOURS (default 7 days)",
      tag: 'Add-ons',
      access: 'any',
      params: z.object({ id: uuidParam }),
      status: 200,
      response: { description: 'The transcript or the report', schema: jobResultSchema },
      errors: [401, 404, 409, 410],
      handler: async ({ ctx, params }) => {
        const { job, result } = await addons.result(scopeOf(ctx), params.id);
        return { job_id: job.id, job_type: job.job_type, result };
      },
    }),
    route({
      method: 'get',
      path: '/v1/addons/health',
      operationId: 'getAddonHealth',
      summary: 'Status of the transcription and report engines',
      tag: 'Add-ons',
      access: 'read',
      status: 200,
      response: { description: 'Each engine: healthy, unavailable (its program or server does not answer) or disabled', schema: addonHealthSchema },
      errors: [401, 403],
      handler: () => addons.status(),
    }),
  ];
}
