/**
 * The plan table of spec §8, as data. Money is in integer microcents (1 EUR = 100 cents =
 * 100,000,000 microcents), so no floating-point arithmetic ever touches it. Sizes are binary:
 * 1 MB = 1,048,576 bytes, 1 GB = 1,073,741,824 bytes.
 */
export const PLAN_IDS = ['free', 'payg', 'standard', 'enterprise'] as const;
export type PlanId = (typeof PLAN_IDS)[number];

export const MB = 1024 * 1024;
export const GB = 1024 * MB;
export const MICROCENTS_PER_EUR = 100_000_000;

export interface Plan {
  id: PlanId;
  monthlyFeeMicrocents: number;
  includedQueriesPerMonth: number;
  /** null: unlimited. */
  maxKnowledgeBases: number | null;
  maxDocuments: number;
  maxDocumentSizeBytes: number;
  /** null: "custom", set per tenant through the internal admin API (see `limitsFor`). */
  storageBytes: number | null;
  maxChunks: number;
  queryRateLimitPerMin: number;
  /** null: no overage (hard cap). */
  overagePerQueryMicrocents: number | null;
  ingestionPerChunkMicrocents: number;
  /** Free: queries beyond the included amount fail with 402 quota_exhausted. */
  hardQueryCap: boolean;
}

export const PLANS: Readonly<Record<PlanId, Plan>> = {
  free: {
    id: 'free',
    monthlyFeeMicrocents: 0,
    includedQueriesPerMonth: 1_000,
    maxKnowledgeBases: 1,
    maxDocuments: 50,
    maxDocumentSizeBytes: 5 * MB,
    storageBytes: 50 * MB,
    maxChunks: 5_000,
    queryRateLimitPerMin: 10,
    overagePerQueryMicrocents: null,
    ingestionPerChunkMicrocents: 0,
    hardQueryCap: true,
  },
  payg: {
    id: 'payg',
    monthlyFeeMicrocents: 0,
    includedQueriesPerMonth: 0,
    maxKnowledgeBases: 5,
    maxDocuments: 1_000,
    maxDocumentSizeBytes: 25 * MB,
    storageBytes: 50 * MB,
    maxChunks: 100_000,
    queryRateLimitPerMin: 100,
    overagePerQueryMicrocents: 400_000, // 0.004 EUR
    ingestionPerChunkMicrocents: 100_000, // 0.001 EUR
    hardQueryCap: false,
  },
  standard: {
    id: 'standard',
    monthlyFeeMicrocents: 49 * MICROCENTS_PER_EUR,
    includedQueriesPerMonth: 50_000,
    maxKnowledgeBases: 20,
    maxDocuments: 1_000,
    maxDocumentSizeBytes: 25 * MB,
    storageBytes: GB,
    maxChunks: 100_000,
    queryRateLimitPerMin: 100,
    overagePerQueryMicrocents: 200_000, // 0.002 EUR
    ingestionPerChunkMicrocents: 0,
    hardQueryCap: false,
  },
  enterprise: {
    id: 'enterprise',
    monthlyFeeMicrocents: 199 * MICROCENTS_PER_EUR,
    includedQueriesPerMonth: 500_000,
    maxKnowledgeBases: null,
    maxDocuments: 10_000,
    maxDocumentSizeBytes: 100 * MB,
    storageBytes: null,
    maxChunks: 1_000_000,
    queryRateLimitPerMin: 500,
    overagePerQueryMicrocents: 100_000, // 0.001 EUR
    ingestionPerChunkMicrocents: 0,
    hardQueryCap: false,
  },
};

/** Storage of an Enterprise tenant until support sets its contracted ("custom") amount. */
export const DEFAULT_CUSTOM_STORAGE_BYTES = 10 * GB;

export function isPlanId(value: string): value is PlanId {
  return (PLAN_IDS as readonly string[]).includes(value);
}

/** Per-tenant overrides of plan limits, set by support through the internal admin API. */
export interface LimitOverrides {
  max_knowledge_bases?: number | null;
  max_documents?: number;
  max_document_size_bytes?: number;
  storage_bytes?: number;
  max_chunks?: number;
  query_rate_limit_per_min?: number;
}

export interface EffectiveLimits {
  maxKnowledgeBases: number | null;
  maxDocuments: number;
  maxDocumentSizeBytes: number;
  storageBytes: number;
  maxChunks: number;
  queryRateLimitPerMin: number;
  includedQueriesPerMonth: number;
}

/** The limits in force for a tenant: its plan's, with support's overrides on top. */
export function limitsFor(planId: PlanId, overrides: LimitOverrides = {}): EffectiveLimits {
  const plan = PLANS[planId];
  return {
    maxKnowledgeBases:
      overrides.max_knowledge_bases !== undefined ? overrides.max_knowledge_bases : plan.maxKnowledgeBases,
    maxDocuments: overrides.max_documents ?? plan.maxDocuments,
    maxDocumentSizeBytes: overrides.max_document_size_bytes ?? plan.maxDocumentSizeBytes,
    storageBytes: overrides.storage_bytes ?? plan.storageBytes ?? DEFAULT_CUSTOM_STORAGE_BYTES,
    maxChunks: overrides.max_chunks ?? plan.maxChunks,
    queryRateLimitPerMin: overrides.query_rate_limit_per_min ?? plan.queryRateLimitPerMin,
    includedQueriesPerMonth: plan.includedQueriesPerMonth,
  };
}

/** Queries per minute one end user (X-User-Id) may make unless the tenant or sub-tenant sets another limit. */
export const DEFAULT_PER_USER_RATE_LIMIT_PER_MIN = 60;

/** Spec §8 "Rate limiting": request bursts per API key and per client IP, per second. */
export const BURST_LIMITS = {
  queryPerKeyPerSecond: 20,
  documentsPerKeyPerSecond: 10,
  perIpPerSecond: 100,
} as const;
