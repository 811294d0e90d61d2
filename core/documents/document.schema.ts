import { z } from 'zod';

export const documentSummarySchema = z
  .object({
    id: z.uuid(),
    knowledge_base_id: z.uuid(),
    sub_tenant_id: z.uuid().nullable(),
    title: z.string(),
    tags: z.record(z.string(), z.string()),
    status: z.enum(['processing', 'ready', 'failed']),
    content_bytes: z.number().int(),
    anonymized: z.boolean(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'DocumentSummary' });
export type DocumentSummary = z.infer<typeof documentSummarySchema>;
