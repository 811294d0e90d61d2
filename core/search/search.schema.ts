import { z } from 'zod';
import { MAX_METADATA_KEYS, MAX_METADATA_KEY_CHARS, MAX_METADATA_VALUE_CHARS } from '../corpora/corpus.schema.js';

export const FILTER_KEYS_DOC =
  '`tags.<key>` (exact value), `created_after` and `created_before` (ISO 8601, exclusive), `document_title` (case-insensitive substring)';

export const queryRequestSchema = z
  .strictObject({
    query: z
      .string()
      .min(1)
      .max(4096)
      .refine((q) => q.trim().length > 0, { message: 'query must contain text' }),
    top_k: z.number().int().min(1).max(100).default(10),
    knowledge_base_ids: z
      .array(z.string().meta({ format: 'uuid' }))
      .min(1)
      .max(100)
      .optional()
      .meta({ description: 'Restrict the search to these knowledge bases (default: all the key can see).' }),
    filters: z
      .record(z.string(), z.string())
      .optional()
      .meta({ description: `Keys: ${FILTER_KEYS_DOC}. String values; all must hold.` }),
    metadata_filter: z
      .record(z.string().min(1).max(MAX_METADATA_KEY_CHARS), z.string().max(MAX_METADATA_VALUE_CHARS))
      .refine((f) => Object.keys(f).length <= MAX_METADATA_KEYS, { message: `at most ${MAX_METADATA_KEYS} keys` })
      .optional()
      .meta({
        description:
          'Filters platform corpus results by record metadata: `{<key>: <value>}`, string values, exact match (numbers and booleans ' +
          'compare as their JSON text, e.g. "2019", "true"); all must hold. Does not affect results from your own documents.',
      }),
    corpora: z
      .array(z.string().min(1).max(63))
      .max(100)
      .optional()
      .meta({
        description:
          'Search only these platform corpora (slugs); [] searches none. Default: every corpus your plan gives access to and ' +
          'whose data-use agreement you accepted where one is required. Unknown: 404; not on your plan or not accepted: 403.',
      }),
    source_language: z
      .string()
      .default('auto')
      .meta({ description: '`auto` (detect) or one of en, nl, fr, de, es, it, bg, ro; anything else is 400 unsupported_language.' }),
    translate_response: z.boolean().optional(),
  })
  .meta({ id: 'QueryRequest' });
export type QueryRequest = z.infer<typeof queryRequestSchema>;

/** Why response translation passed a result through untranslated. */
export const UNTRANSLATED_REASONS = ['unsupported_pair', 'translation_unavailable', 'translation_failed'] as const;
export type UntranslatedReason = (typeof UNTRANSLATED_REASONS)[number];

export const queryResultItemSchema = z
  .object({
    content: z.string(),
    score: z.number().meta({ description: 'Fused relevance: higher is better (reciprocal-rank fusion of vector and keyword ranks).' }),
    source: z.string().meta({ description: '`tenant` for own documents; the corpus slug for platform corpus results.' }),
    document_id: z.uuid().optional(),
    chunk_id: z.uuid().optional(),
    knowledge_base_id: z.uuid().optional(),
    document_title: z.string().optional(),
    chunk_index: z.number().int().optional(),
    document_tags: z.record(z.string(), z.string()).optional(),
    source_record_id: z.string().optional().meta({ description: "Platform results: the record's id in its corpus." }),
    metadata: z.record(z.string(), z.unknown()).optional().meta({ description: "Platform results: the record's metadata." }),
    content_original: z.string().optional(),
    untranslated: z
      .object({
        language: z.string().meta({ description: 'The language the content is in.' }),
        reason: z.enum(UNTRANSLATED_REASONS).meta({
          description:
            '`unsupported_pair`: no translation engine of this instance translates that language into the query’s; ' +
            '`translation_unavailable`: the engine could not be reached; `translation_failed`: it could not translate this text.',
        }),
      })
      .optional()
      .meta({
        description:
          'Present on a result that response translation applied to but could not translate (fallback_behaviour `passthrough`): ' +
          '`content` is the original text, in `language`.',
      }),
  })
  .meta({ id: 'QueryResultItem' });
export type QueryResultItem = z.infer<typeof queryResultItemSchema>;

export const queryResponseSchema = z
  .object({
    results: z.array(queryResultItemSchema),
    metadata: z
      .object({ translation_config_source: z.string(), translation_latency_ms: z.number() })
      .optional(),
  })
  .meta({ id: 'QueryResponse' });
