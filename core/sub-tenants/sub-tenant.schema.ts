import { z } from 'zod';
import { PG_INTEGER_MAX } from '../shared/input.js';
import { translationConfigSchema } from '../translation/translation.schema.js';

const limit = (min = 0) => z.number().int().min(min).nullable().optional();
/** A limit kept in an `integer` column (the chunk, byte and query-count limits are `bigint`). */
const intLimit = (min = 0) => z.number().int().min(min).max(PG_INTEGER_MAX).nullable().optional();

/** The limit fields of spec §2 (all optional; null clears one), plus the per-user query rate limit. */
export const subTenantLimitsShape = {
  max_total_chunks: limit(),
  max_knowledge_bases: intLimit(),
  max_documents: intLimit(),
  max_document_size_bytes: limit(),
  query_rate_limit_per_min: intLimit(1),
  included_queries_per_period: limit(),
  storage_quota_bytes: limit(),
  per_user_rate_limit_per_min: intLimit(1),
};

export const LIMIT_FIELDS = Object.keys(subTenantLimitsShape) as Array<keyof typeof subTenantLimitsShape>;

export const createSubTenantSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    external_id: z.string().trim().min(1).max(200).optional(),
    ...subTenantLimitsShape,
    translation_config: translationConfigSchema.optional(),
  })
  .meta({ id: 'CreateSubTenantRequest' });
export type CreateSubTenantInput = z.infer<typeof createSubTenantSchema>;

export const updateSubTenantSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(200).optional(),
    ...subTenantLimitsShape,
    translation_config: translationConfigSchema.optional().meta({ description: 'Replaces the stored object.' }),
  })
  .refine((v) => Object.keys(v).length > 0, { message: 'at least one field is required' })
  .meta({ id: 'UpdateSubTenantRequest' });
export type UpdateSubTenantInput = z.infer<typeof updateSubTenantSchema>;

const nullableInt = z.number().int().nullable();

export const subTenantUsageSchema = z
  .object({
    chunks: z.object({ used: z.number().int(), limit: nullableInt }),
    documents: z.object({ used: z.number().int(), limit: nullableInt }),
    queries_this_period: z.object({ used: z.number().int(), limit: nullableInt }),
    storage_bytes: z.object({ used: z.number().int(), limit: nullableInt }),
    active_users: z.number().int().meta({ description: 'Distinct X-User-Id values seen this calendar month (UTC).' }),
  })
  .meta({ id: 'SubTenantUsage' });

export const subTenantSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    external_id: z.string().nullable(),
    max_total_chunks: nullableInt,
    max_knowledge_bases: nullableInt,
    max_documents: nullableInt,
    max_document_size_bytes: nullableInt,
    query_rate_limit_per_min: nullableInt,
    included_queries_per_period: nullableInt,
    storage_quota_bytes: nullableInt,
    per_user_rate_limit_per_min: nullableInt,
    translation_config: translationConfigSchema,
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    usage: subTenantUsageSchema.extend({ knowledge_bases: z.number().int() }),
  })
  .meta({ id: 'SubTenant', description: 'Limits are null when only the parent tenant’s limit applies.' });
export type SubTenantView = z.infer<typeof subTenantSchema>;

export const createSubTenantKeySchema = z
  .strictObject({
    role: z.enum(['read', 'write']),
    name: z.string().trim().min(1).max(200).optional(),
  })
  .meta({ id: 'CreateSubTenantKeyRequest' });

export const userPreferencesSchema = z.strictObject({ translation_config: translationConfigSchema }).meta({ id: 'UserPreferences' });

export const MAX_USER_ID_CHARS = 256;
