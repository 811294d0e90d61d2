import { z } from 'zod';
import { presentCorpus, presentCorpusJob, presentCorpusLoad, presentCorpusRecord, presentTenantCorpus } from '../../core/corpora/corpus.presenter.js';
import { corpusSchema, createCorpusSchema, loadRecordsSchema, updateCorpusSchema } from '../../core/corpora/corpus.schema.js';
import { MAX_ACCEPTED_BY_CHARS } from '../../core/dpa/dpa.service.js';
import { ValidationError } from '../../core/errors.js';
import type { Services } from '../../runtime/services.js';
import { type RouteSpec, route } from '../route.js';
import { uuidParam } from '../schemas.js';
import { headerText } from '../text-input.js';

/** Slugs that are not a corpus's are answered 404 like a missing corpus, so the parameter is a plain string. */
const slugParams = z.object({ slug: z.string() });

/** Platform corpora as tenants see them: the list, and accepting a corpus's data-use agreement. */
export function corpusRoutes(services: Pick<Services, 'corpora'>): RouteSpec[] {
  const { corpora } = services;
  const tag = 'Platform corpora';
  return [
    route({
      method: 'get',
      path: '/v1/corpora',
      operationId: 'listCorpora',
      summary: "The platform corpora, with whether the tenant's plan gives access and whether it accepted each data-use agreement",
      tag,
      access: 'any',
      status: 200,
      response: { description: 'Corpora, by slug', schema: z.object({ corpora: z.array(corpusSchema) }) },
      errors: [401],
      handler: async ({ ctx }) => ({ corpora: (await corpora.listForTenant(ctx)).map(presentTenantCorpus) }),
    }),
    route({
      method: 'post',
      path: '/v1/corpora/{slug}/accept-dua',
      operationId: 'acceptCorpusDua',
      summary: "Accept a corpus's data-use agreement for the tenant and all its sub-tenants",
      tag,
      access: 'admin',
      params: slugParams,
      headers: z.object({ 'x-accepted-by': z.string().max(MAX_ACCEPTED_BY_CHARS).optional().meta({ description: 'Who accepted (recorded).' }) }),
      status: 200,
      response: { description: 'Accepted', schema: z.object({ status: z.literal('ok') }) },
      errors: [401, 403, 404, 422],
      handler: ({ ctx, params, req }) => {
        const by = headerText(req.get('x-accepted-by'), 'x-accepted-by');
        if (by !== undefined && by.length > MAX_ACCEPTED_BY_CHARS) {
          throw new ValidationError([{ field: 'header.x-accepted-by', message: `at most ${MAX_ACCEPTED_BY_CHARS} characters` }]);
        }
        return corpora.acceptDua(ctx, params.slug, by?.trim() || null);
      },
    }),
  ];
}

/** The instance operator's side (ADMIN_TOKEN; not in the OpenAPI document): corpora, their records and jobs. */
export function corpusInternalRoutes(services: Pick<Services, 'corpora'>): RouteSpec[] {
  const { corpora } = services;
  const common = { tag: 'Internal', access: 'operator', internal: true } as const;
  const recordParams = z.object({ slug: z.string(), source_record_id: z.string() });
  return [
    route({
      ...common,
      method: 'post',
      path: '/internal/v1/corpora',
      operationId: 'internalCreateCorpus',
      summary: 'Create a platform corpus',
      body: createCorpusSchema,
      status: 201,
      handler: async ({ body }) => presentCorpus(await corpora.create(body)),
    }),
    route({
      ...common,
      method: 'get',
      path: '/internal/v1/corpora',
      operationId: 'internalListCorpora',
      summary: 'List the platform corpora',
      status: 200,
      handler: async () => ({ corpora: (await corpora.list()).map(presentCorpus) }),
    }),
    route({
      ...common,
      method: 'get',
      path: '/internal/v1/corpora/{slug}',
      operationId: 'internalGetCorpus',
      summary: 'Get a platform corpus',
      params: slugParams,
      status: 200,
      handler: async ({ params }) => presentCorpus(await corpora.get(params.slug)),
    }),
    route({
      ...common,
      method: 'patch',
      path: '/internal/v1/corpora/{slug}',
      operationId: 'internalUpdateCorpus',
      summary: 'Change the name, license, DUA requirement or plans of a corpus',
      params: slugParams,
      body: updateCorpusSchema,
      status: 200,
      handler: async ({ params, body }) => presentCorpus(await corpora.update(params.slug, body)),
    }),
    route({
      ...common,
      method: 'delete',
      path: '/internal/v1/corpora/{slug}',
      operationId: 'internalDeleteCorpus',
      summary: 'Delete a corpus with its records, chunks, jobs and DUA acceptances',
      params: slugParams,
      status: 204,
      handler: async ({ params }) => {
        await corpora.delete(params.slug);
      },
    }),
    route({
      ...common,
      method: 'post',
      path: '/internal/v1/corpora/{slug}/records',
      operationId: 'internalLoadCorpusRecords',
      summary: 'Load records (replacing those with the same source_record_id) and queue their indexing',
      params: slugParams,
      body: loadRecordsSchema,
      status: 202,
      handler: async ({ params, body }) => presentCorpusLoad(await corpora.loadRecords(params.slug, body)),
    }),
    route({
      ...common,
      method: 'get',
      path: '/internal/v1/corpora/{slug}/records/{source_record_id}',
      operationId: 'internalGetCorpusRecord',
      summary: "A record's indexing status and metadata",
      params: recordParams,
      status: 200,
      handler: async ({ params }) => presentCorpusRecord(await corpora.getRecord(params.slug, params.source_record_id)),
    }),
    route({
      ...common,
      method: 'delete',
      path: '/internal/v1/corpora/{slug}/records/{source_record_id}',
      operationId: 'internalDeleteCorpusRecord',
      summary: 'Delete a record and its chunks',
      params: recordParams,
      status: 204,
      handler: async ({ params }) => {
        await corpora.deleteRecord(params.slug, params.source_record_id);
      },
    }),
    route({
      ...common,
      method: 'get',
      path: '/internal/v1/corpora/{slug}/jobs',
      operationId: 'internalListCorpusJobs',
      summary: "A corpus's ingestion jobs, newest first",
      params: slugParams,
      status: 200,
      handler: async ({ params }) => ({ jobs: (await corpora.jobs(params.slug)).map(presentCorpusJob) }),
    }),
    route({
      ...common,
      method: 'get',
      path: '/internal/v1/corpora/{slug}/jobs/{job_id}',
      operationId: 'internalGetCorpusJob',
      summary: 'One ingestion job of a corpus',
      params: z.object({ slug: z.string(), job_id: uuidParam }),
      status: 200,
      handler: async ({ params }) => presentCorpusJob(await corpora.job(params.slug, params.job_id)),
    }),
  ];
}
