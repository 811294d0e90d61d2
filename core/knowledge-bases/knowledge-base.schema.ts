import { z } from 'zod';
import { translationConfigSchema } from '../translation/translation.schema.js';

export const DEFAULT_DIMENSIONS = 1024;

const name = z.string().trim().min(1).max(200);

export const createKnowledgeBaseSchema = z
  .strictObject({
    name,
    dimensions: z.number().int().min(1).max(4096).default(DEFAULT_DIMENSIONS),
    translation_config: translationConfigSchema.optional(),
  })
  .meta({ id: 'CreateKnowledgeBaseRequest' });
export type CreateKnowledgeBaseInput = z.infer<typeof createKnowledgeBaseSchema>;

export const updateKnowledgeBaseSchema = z
  .strictObject({
    name: name.optional(),
    translation_config: translationConfigSchema.optional(),
  })
  .refine((v) => v.name !== undefined || v.translation_config !== undefined, {
    message: 'name or translation_config is required',
  })
  .meta({ id: 'UpdateKnowledgeBaseRequest', description: '`dimensions` is immutable and refused with 422.' });
export type UpdateKnowledgeBaseInput = z.infer<typeof updateKnowledgeBaseSchema>;

export const knowledgeBaseSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    dimensions: z.number().int(),
    translation_config: translationConfigSchema,
    sub_tenant_id: z.uuid().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'KnowledgeBase' });
export type KnowledgeBaseView = z.infer<typeof knowledgeBaseSchema>;
