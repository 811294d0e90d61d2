import { z } from 'zod';
import { documentSchema, ingestDocumentSchema } from '../../core/documents/document.schema.js';
import { presentDocument, presentStoredDocument } from '../../core/documents/document.presenter.js';
import { UPLOAD_FILE_TYPES, extensionOf } from '../../core/documents/file-types.js';
import { jobSchema } from '../../core/jobs/job.schema.js';
import { presentJob } from '../../core/jobs/job.presenter.js';
import { BURST_LIMITS } from '../../core/plans.js';
import { scopeOf } from '../../core/shared/scope.js';
import { perKeyLimit } from '../middleware/rate-limit.js';
import { parseMultipart } from '../multipart.js';
import type { Services } from '../../runtime/services.js';
import { type RouteSpec, route } from '../route.js';
import { EXAMPLE_KNOWLEDGE_BASE_ID, uuidParam } from '../schemas.js';

/** Spec §8: an upload request is at most 55 MB. */
export const MAX_UPLOAD_REQUEST_BYTES = 55 * 1024 * 1024;

const idParams = z.object({ id: uuidParam });
export const documentAcceptedSchema = z.object({ job_id: z.uuid(), document_id: z.uuid() });
const accepted = { description: 'Accepted: indexing runs asynchronously; poll GET /v1/jobs/{job_id}.', schema: documentAcceptedSchema };

const UPLOAD_METADATA_EXAMPLE = JSON.stringify({ knowledge_base_id: EXAMPLE_KNOWLEDGE_BASE_ID, title: 'Travel policy', tags: { team: 'hr' } });

const uploadParts = z.object({
  file: z.string().meta({
    format: 'binary',
    description:
      `${UPLOAD_FILE_TYPES.map((t) => `${t.type} (${t.extensions.join(', ')})`).join(', ')}. ` +
      'Its part\'s Content-Type says which; when that is application/octet-stream or missing, the file name\'s extension, else the content, decides. ' +
      'Markdown and HTML are indexed as their text, without markup.',
  }),
  metadata: z.string().meta({
    description: 'JSON: {"knowledge_base_id": "…", "title"?: "…", "tags"?: {…}, "anonymize"?: bool}. Title defaults to the file name.',
    example: UPLOAD_METADATA_EXAMPLE,
  }),
});

export function documentRoutes(services: Pick<Services, 'documents' | 'jobs' | 'adapters' | 'addons'>): RouteSpec[] {
  const { documents, jobs, addons } = services;
  // Spec §8: 10 requests per second per API key on /v1/documents (ingest and upload together).
  const burst = perKeyLimit(services.adapters, 'documents', BURST_LIMITS.documentsPerKeyPerSecond);
  return [
    route({
      method: 'post',
      path: '/v1/documents',
      operationId: 'ingestDocument',
      summary: 'Ingest a text document into a knowledge base',
      tag: 'Documents',
      access: 'write',
      body: ingestDocumentSchema,
      example: {
        knowledge_base_id: EXAMPLE_KNOWLEDGE_BASE_ID,
        title: 'Holidays',
        content: 'Staff get 25 days of paid leave a year.\n\nUp to five unused days carry over to the next year.',
        tags: { team: 'hr' },
      },
      status: 202,
      response: accepted,
      errors: [400, 401, 402, 403, 404, 413, 429],
      beforeAuth: [burst],
      handler: async ({ ctx, body }) => presentStoredDocument(await documents.ingest(scopeOf(ctx), body)),
    }),
    route({
      method: 'post',
      path: '/v1/documents/upload',
      operationId: 'uploadDocument',
      summary: 'Upload a text, Markdown, HTML or PDF file (max request 55 MB)',
      tag: 'Documents',
      access: 'write',
      multipart: uploadParts,
      example: { metadata: UPLOAD_METADATA_EXAMPLE },
      status: 202,
      response: accepted,
      errors: [400, 401, 402, 403, 404, 413, 415, 422, 429],
      beforeAuth: [burst],
      handler: async ({ ctx, req }) => {
        const { fields, file } = await parseMultipart(req, {
          maxRequestBytes: MAX_UPLOAD_REQUEST_BYTES,
          fileField: 'file',
          maxFieldBytes: 64 * 1024,
        });
        return presentStoredDocument(await documents.upload(scopeOf(ctx), fields.metadata, file));
      },
    }),
    route({
      method: 'get',
      path: '/v1/documents/{id}',
      operationId: 'getDocument',
      summary: 'Get a document with its content',
      tag: 'Documents',
      access: 'any',
      params: idParams,
      status: 200,
      response: { description: 'The document', schema: documentSchema },
      errors: [401, 404],
      handler: async ({ ctx, params }) => presentDocument(await documents.get(scopeOf(ctx), params.id)),
    }),
    route({
      method: 'get',
      path: '/v1/documents/{id}/download',
      operationId: 'downloadDocument',
      summary: 'Download the stored original file of an upload',
      tag: 'Documents',
      access: 'any',
      params: idParams,
      status: 200,
      response: { description: 'The file: application/pdf or application/octet-stream', contentType: 'application/octet-stream', schema: z.string().meta({ format: 'binary' }) },
      errors: [401, 404],
      handler: async ({ ctx, params, res }) => {
        const file = await documents.download(scopeOf(ctx), params.id);
        const type = file.contentType === 'application/pdf' ? 'application/pdf' : 'application/octet-stream';
        const name = (file.fileName ?? `${params.id}${extensionOf(file.contentType)}`).replace(/["\\\r\n]/g, '_');
        res.status(200);
        res.setHeader('Content-Type', type);
        res.setHeader('Content-Length', String(file.data.length));
        res.setHeader('Content-Disposition', `attachment; filename="${name.replace(/[^\x20-\x7e]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`);
        res.end(file.data);
      },
    }),
    route({
      method: 'delete',
      path: '/v1/documents/{id}',
      operationId: 'deleteDocument',
      summary: 'Delete a document, its chunks and stored file (frees its quota)',
      tag: 'Documents',
      access: 'write',
      params: idParams,
      status: 204,
      errors: [401, 403, 404],
      handler: async ({ ctx, params }) => {
        await documents.delete(scopeOf(ctx), params.id);
      },
    }),
    route({
      method: 'get',
      path: '/v1/jobs/{id}',
      operationId: 'getJob',
      summary: 'Get a job (poll for ingestion, transcription or report progress)',
      tag: 'Documents',
      access: 'any',
      params: idParams,
      status: 200,
      response: { description: 'The job', schema: jobSchema },
      errors: [401, 404],
      handler: async ({ ctx, params }) => {
        const job = await jobs.get(scopeOf(ctx), params.id);
        return presentJob(job, (await addons.requestsOf(scopeOf(ctx), [job.id])).get(job.id));
      },
    }),
  ];
}
