import { z } from 'zod';
import { MAX_CONTENT_BYTES } from '../documents/document.schema.js';
import { DEFAULT_DIMENSIONS } from '../knowledge-bases/knowledge-base.schema.js';
import { PLAN_IDS } from '../plans.js';

/** `tenant` is the `source` of a tenant's own results, so it can never name a corpus. */
export const RESERVED_SLUGS = ['tenant'] as const;
export const MAX_METADATA_KEYS = 64;
export const MAX_METADATA_KEY_CHARS = 64;
export const MAX_METADATA_VALUE_CHARS = 2000;
export const MAX_SOURCE_RECORD_ID_CHARS = 500;
/** Records per load request (one corpus_ingestion job); the CLI splits bigger loads. */
export const MAX_RECORDS_PER_LOAD = 10_000;
export const MAX_LICENSE_INFO_CHARS = 10_000;

export const corpusSlugSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'lower-case letters, digits and hyphens, 1-63 characters, not starting with a hyphen')
  .refine((s) => !(RESERVED_SLUGS as readonly string[]).includes(s), { message: '"tenant" is reserved' });

const name = z.string().trim().min(1).max(200);
const licenseInfo = z.string().max(MAX_LICENSE_INFO_CHARS);
const plans = z
  .array(z.enum(PLAN_IDS))
  .max(PLAN_IDS.length)
  .refine((p) => new Set(p).size === p.length, { message: 'each plan at most once' })
  .meta({ description: 'The plans whose tenants may search the corpus; [] keeps it from everyone.' });

/** Body of POST /internal/v1/corpora. */
export const createCorpusSchema = z.strictObject({
  slug: corpusSlugSchema,
  name,
  license_info: licenseInfo.default(''),
  requires_dua: z.boolean().default(false),
  plans,
  dimensions: z.number().int().min(1).max(4096).default(DEFAULT_DIMENSIONS),
});
export type CreateCorpusInput = z.infer<typeof createCorpusSchema>;

/** Body of PATCH /internal/v1/corpora/{slug}; `slug` and `dimensions` are immutable (422). */
export const updateCorpusSchema = z
  .strictObject({
    name: name.optional(),
    license_info: licenseInfo.optional(),
    requires_dua: z.boolean().optional(),
    plans: plans.optional(),
  })
  .refine((v) => Object.values(v).some((x) => x !== undefined), { message: 'at least one field is required' });
export type UpdateCorpusInput = z.infer<typeof updateCorpusSchema>;

/**
 * A record's metadata: flat, with string, number or boolean values. It is returned with every result
 * of the record and filtered on by `metadata_filter` (values compared as text).
 */
export const recordMetadataSchema = z
  .record(
    z.string().min(1).max(MAX_METADATA_KEY_CHARS),
    z.union([z.string().max(MAX_METADATA_VALUE_CHARS), z.number(), z.boolean()]),
  )
  .refine((m) => Object.keys(m).length <= MAX_METADATA_KEYS, { message: `at most ${MAX_METADATA_KEYS} keys` });
export type RecordMetadata = z.infer<typeof recordMetadataSchema>;

export const corpusRecordSchema = z.strictObject({
  source_record_id: z.string().min(1).max(MAX_SOURCE_RECORD_ID_CHARS),
  content: z
    .string()
    .refine((s) => s.trim().length > 0, { message: 'content must contain text' })
    .refine((s) => Buffer.byteLength(s, 'utf8') <= MAX_CONTENT_BYTES, { message: 'content is larger than 10 MB' }),
  metadata: recordMetadataSchema.default({}),
});
export type CorpusRecordInput = z.infer<typeof corpusRecordSchema>;

/** Body of POST /internal/v1/corpora/{slug}/records: records replace those with the same id. */
export const loadRecordsSchema = z.strictObject({
  records: z
    .array(corpusRecordSchema)
    .min(1)
    .max(MAX_RECORDS_PER_LOAD)
    .superRefine((records, ctx) => {
      const seen = new Set<string>();
      records.forEach((r, i) => {
        if (seen.has(r.source_record_id)) ctx.addIssue({ code: 'custom', path: [i, 'source_record_id'], message: 'duplicate source_record_id' });
        seen.add(r.source_record_id);
      });
    }),
});
export type LoadRecordsInput = z.infer<typeof loadRecordsSchema>;

/** A corpus as tenants see it (GET /v1/corpora). */
export const corpusSchema = z
  .object({
    slug: z.string(),
    name: z.string(),
    license_info: z.string(),
    requires_dua: z.boolean(),
    accepted: z.boolean().meta({ description: "Whether the tenant accepted the corpus's data-use agreement." }),
    accessible: z.boolean().meta({ description: "Whether the tenant's plan gives access to the corpus." }),
  })
  .meta({ id: 'Corpus' });
export type CorpusView = z.infer<typeof corpusSchema>;

/** A corpus as the instance operator sees it (internal admin API). */
export interface CorpusAdminView {
  id: string;
  slug: string;
  name: string;
  license_info: string;
  requires_dua: boolean;
  plans: string[];
  dimensions: number;
  records: { pending: number; ready: number; failed: number };
  chunk_count: number;
  created_at: string;
  updated_at: string;
}

export interface CorpusRecordView {
  source_record_id: string;
  status: 'pending' | 'ready' | 'failed';
  content_bytes: number;
  chunk_count: number;
  metadata: RecordMetadata;
  error: string | null;
  created_at: string;
  updated_at: string;
}

export interface CorpusJobView {
  id: string;
  job_type: 'corpus_ingestion';
  corpus: string;
  status: string;
  error: string | null;
  records: number;
  total_chunks: number;
  processed_chunks: number;
  attempts: number;
  created_at: string;
  completed_at: string | null;
}
