import { z } from 'zod';
import { billingDetailsSchema } from '../billing/billing.schema.js';
import { PLAN_IDS } from '../plans.js';
import { PG_INTEGER_MAX } from '../shared/input.js';
import { translationConfigSchema } from '../translation/translation.schema.js';

export const ADDONS = ['transcription', 'report_generation'] as const;
export type Addon = (typeof ADDONS)[number];

export const TENANT_STATUSES = ['active', 'suspended'] as const;

const nonNegativeInt = z.number().int().min(0);

export const limitOverridesSchema = z.strictObject({
  max_knowledge_bases: nonNegativeInt.nullable().optional(),
  max_documents: nonNegativeInt.optional(),
  max_document_size_bytes: nonNegativeInt.optional(),
  storage_bytes: nonNegativeInt.optional(),
  max_chunks: nonNegativeInt.optional(),
  query_rate_limit_per_min: z.number().int().min(1).optional(),
});

export const createTenantSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  plan: z.enum(PLAN_IDS),
  email: z.email().optional(),
});
export type CreateTenantInput = z.infer<typeof createTenantSchema>;

/** Support actions on a tenant (internal admin API and CLI). */
export const updateTenantSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(200).optional(),
    email: z.email().nullable().optional(),
    plan: z.enum(PLAN_IDS).optional(),
    status: z.enum(TENANT_STATUSES).optional(),
    addons: z.array(z.enum(ADDONS)).optional(),
    anonymize_default: z.boolean().optional(),
    translation_config: translationConfigSchema.optional(),
    limit_overrides: limitOverridesSchema.optional(),
    billing_details: billingDetailsSchema.nullable().optional(),
    per_user_rate_limit_per_min: z.number().int().min(1).max(PG_INTEGER_MAX).nullable().optional(),
  })
  .refine((v) => Object.keys(v).length > 0, { message: 'at least one field is required' });
export type UpdateTenantInput = z.infer<typeof updateTenantSchema>;

export interface TenantRecord {
  id: string;
  name: string;
  email: string | null;
  plan: (typeof PLAN_IDS)[number];
  status: (typeof TENANT_STATUSES)[number];
  addons: Addon[];
  anonymize_default: boolean;
  translation_config: z.infer<typeof translationConfigSchema>;
  limit_overrides: z.infer<typeof limitOverridesSchema>;
  per_user_rate_limit_per_min: number | null;
  created_at: Date;
  updated_at: Date;
}
