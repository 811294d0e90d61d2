import { z } from 'zod';

/** Spec §8: ingest `content` is at most 10 MB (and at most the plan's max document size). */
export const MAX_CONTENT_BYTES = 10 * 1024 * 1024;
export const MAX_TAGS = 32;
export const MAX_TAG_KEY_CHARS = 64;
export const MAX_TAG_VALUE_CHARS = 512;

export const tagsSchema = z
  .record(z.string().min(1).max(MAX_TAG_KEY_CHARS), z.string().max(MAX_TAG_VALUE_CHARS))
  .refine((t) => Object.keys(t).length <= MAX_TAGS, { message: `at most ${MAX_TAGS} tags` })
  .meta({ description: `Up to ${MAX_TAGS} string tags; keys 1-${MAX_TAG_KEY_CHARS} chars, values up to ${MAX_TAG_VALUE_CHARS}.` });

const title = z.string().trim().min(1).max(500);

/** Body of POST /v1/documents. `knowledge_base_id` is checked by the service (400 when not a UUID). */
export const ingestDocumentSchema = z
  .strictObject({
    knowledge_base_id: z.string().meta({ format: 'uuid' }),
    title,
    content: z.string().refine((s) => s.trim().length > 0, { message: 'content must contain text' }),
    anonymize: z.boolean().optional().meta({ description: "Defaults to the tenant's anonymization setting." }),
    tags: tagsSchema.optional(),
  })
  .meta({ id: 'IngestDocumentRequest' });
export type IngestDocumentInput = z.infer<typeof ingestDocumentSchema>;

/** The `metadata` part of POST /v1/documents/upload (a JSON string). */
export const uploadMetadataSchema = z.strictObject({
  knowledge_base_id: z.string(),
  title: title.optional(),
  anonymize: z.boolean().optional(),
  tags: tagsSchema.optional(),
});
export type UploadMetadata = z.infer<typeof uploadMetadataSchema>;

export const DOCUMENT_STATUSES = ['processing', 'ready', 'failed'] as const;

export const documentSummarySchema = z
  .object({
    id: z.uuid(),
    knowledge_base_id: z.uuid(),
    sub_tenant_id: z.uuid().nullable(),
    title: z.string(),
    tags: z.record(z.string(), z.string()),
    status: z.enum(DOCUMENT_STATUSES).meta({ description: 'processing until indexed; ready when searchable.' }),
    language: z.string().nullable(),
    anonymized: z.boolean(),
    source: z.enum(['text', 'upload']),
    content_bytes: z.number().int(),
    chunk_count: z.number().int(),
    file: z
      .object({ content_type: z.string(), file_name: z.string().nullable(), size_bytes: z.number().int() })
      .nullable()
      .meta({ description: 'The stored original file of an upload, served by /download.' }),
    error: z.string().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'DocumentSummary' });
export type DocumentSummary = z.infer<typeof documentSummarySchema>;

export const documentSchema = documentSummarySchema
  .extend({ content: z.string().meta({ description: 'The stored text (anonymized when requested).' }) })
  .meta({ id: 'Document' });
export type DocumentView = z.infer<typeof documentSchema>;
