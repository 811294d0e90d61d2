import { z } from 'zod';
import { PLAN_IDS } from '../core/plans.js';
import { ADDONS } from '../core/tenants/tenant.schema.js';
import { translationConfigSchema } from '../core/translation/translation.schema.js';

/**
 * The custom resources the operator reconciles, defined once: the CRDs in `crds/` are generated from
 * these schemas (`npm run crds:generate`, a test fails when they differ) and the operator's types
 * are inferred from them, so the two cannot drift.
 */
export const GROUP = 'lore.dev';
export const VERSION = 'v1alpha1';

const name = z.string().min(1).max(200);
const count = z.number().int().min(0);

/** Every limit of the plan table (spec §8) a platform team may override for one tenant. */
const tenantLimits = z.strictObject({
  maxKnowledgeBases: count.nullable().optional().meta({ description: 'null: unlimited' }),
  maxDocuments: count.optional(),
  maxDocumentSizeBytes: count.optional(),
  storageBytes: count.optional(),
  maxChunks: count.optional(),
  queryRateLimitPerMin: z.number().int().min(1).optional(),
});

/** The sub-tenant limits of spec §2 (all optional: unset means the tenant's own limit applies). */
const subTenantLimits = z.strictObject({
  maxTotalChunks: count.optional(),
  maxKnowledgeBases: count.optional(),
  maxDocuments: count.optional(),
  maxDocumentSizeBytes: count.optional(),
  queryRateLimitPerMin: z.number().int().min(1).optional(),
  includedQueriesPerPeriod: count.optional(),
  storageQuotaBytes: count.optional(),
  perUserRateLimitPerMin: z.number().int().min(1).optional(),
});

export const CONDITION_TYPES = ['Ready', 'TenantSynced', 'VectorCollectionsReady', 'IdentityClientReady', 'QuotasApplied'] as const;

const condition = z.strictObject({
  type: z.string().min(1).max(64).meta({ description: `One of ${CONDITION_TYPES.join(', ')}` }),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string().max(128).optional(),
  message: z.string().max(4096).optional(),
  lastTransitionTime: z.iso.datetime().optional(),
  observedGeneration: z.number().int().min(0).optional(),
});

const secretRef = z.strictObject({ name: z.string().min(1).max(253), key: z.string().min(1).max(253) });

const status = {
  phase: z.enum(['Pending', 'Ready', 'Failed', 'Deleting']).optional(),
  conditions: z.array(condition).optional(),
  observedGeneration: z.number().int().min(0).optional(),
};

export const tenantSpecSchema = z.strictObject({
  displayName: name,
  plan: z.enum(PLAN_IDS),
  email: z.email().optional(),
  addons: z.array(z.enum(ADDONS)).optional(),
  limitOverrides: tenantLimits.optional(),
  translation: translationConfigSchema.optional(),
  anonymizeByDefault: z.boolean().optional(),
  suspended: z.boolean().optional(),
});

export const tenantStatusSchema = z.strictObject({
  ...status,
  tenantId: z.uuid().optional(),
  /** The Secrets the operator wrote: the first admin API key, and the MCP OAuth client's credentials. */
  apiKeySecretRef: secretRef.optional(),
  oauthClientSecretRef: secretRef.optional(),
  /** The Lore id of the key in the API key Secret: revoked when the operator has to replace it. */
  apiKeyId: z.uuid().optional(),
});

export const subTenantSpecSchema = z.strictObject({
  tenantRef: z.strictObject({ name: z.string().min(1).max(253) }),
  name,
  externalId: z.string().min(1).max(200).optional(),
  limits: subTenantLimits.optional(),
});

export const subTenantStatusSchema = z.strictObject({
  ...status,
  /** The Lore tenant it belongs to, kept so deletion works after the parent Tenant is gone. */
  tenantId: z.uuid().optional(),
  subTenantId: z.uuid().optional(),
  apiKeySecretRef: secretRef.optional(),
  apiKeyId: z.uuid().optional(),
});

export type TenantSpec = z.infer<typeof tenantSpecSchema>;
export type TenantStatus = z.infer<typeof tenantStatusSchema>;
export type SubTenantSpec = z.infer<typeof subTenantSpecSchema>;
export type SubTenantStatus = z.infer<typeof subTenantStatusSchema>;

/** What the CRDs add beyond the schemas: names, printer columns, and rules the API server checks (CEL). */
export interface ResourceDefinition {
  kind: string;
  plural: string;
  shortNames: string[];
  spec: z.ZodType;
  status: z.ZodType;
  /** CEL rules on `spec` (immutable fields), checked by the API server on update. */
  specRules: Array<{ rule: string; message: string }>;
  printerColumns: Array<{ name: string; type: string; jsonPath: string }>;
}

export const RESOURCES: ResourceDefinition[] = [
  {
    kind: 'Tenant',
    plural: 'tenants',
    shortNames: ['lt'],
    spec: tenantSpecSchema,
    status: tenantStatusSchema,
    specRules: [
      { rule: '!has(oldSelf.email) || has(self.email)', message: 'email cannot be removed once set (it is the first portal user)' },
    ],
    printerColumns: [
      { name: 'Plan', type: 'string', jsonPath: '.spec.plan' },
      { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
  },
  {
    kind: 'SubTenant',
    plural: 'subtenants',
    shortNames: ['lst'],
    spec: subTenantSpecSchema,
    status: subTenantStatusSchema,
    specRules: [
      { rule: 'self.tenantRef == oldSelf.tenantRef', message: 'tenantRef is immutable: a sub-tenant cannot move to another tenant' },
      { rule: '!has(oldSelf.externalId) || (has(self.externalId) && self.externalId == oldSelf.externalId)', message: 'externalId is immutable once set' },
    ],
    printerColumns: [
      { name: 'Tenant', type: 'string', jsonPath: '.spec.tenantRef.name' },
      { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
  },
];
