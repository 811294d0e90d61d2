import assert from 'node:assert/strict';
import { GB, MB, PLANS, limitsFor } from '../../core/plans.js';

describe('plans', () => {
  it('match the plan table of spec §8', () => {
    assert.deepEqual(
      Object.values(PLANS).map((p) => [
        p.id,
        p.monthlyFeeMicrocents / 100_000_000,
        p.includedQueriesPerMonth,
        p.maxKnowledgeBases,
        p.maxDocuments,
        p.maxDocumentSizeBytes / MB,
        p.storageBytes === null ? null : p.storageBytes / MB,
        p.maxChunks,
        p.queryRateLimitPerMin,
        p.overagePerQueryMicrocents === null ? null : p.overagePerQueryMicrocents / 100_000_000,
        p.ingestionPerChunkMicrocents / 100_000_000,
      ]),
      [
        ['free', 0, 1000, 1, 50, 5, 50, 5000, 10, null, 0],
        ['payg', 0, 0, 5, 1000, 25, 50, 100_000, 100, 0.004, 0.001],
        ['standard', 49, 50_000, 20, 1000, 25, 1024, 100_000, 100, 0.002, 0],
        ['enterprise', 199, 500_000, null, 10_000, 100, null, 1_000_000, 500, 0.001, 0],
      ],
    );
  });

  it('apply per-tenant overrides on top of the plan', () => {
    const limits = limitsFor('enterprise', { storage_bytes: 5 * GB, max_knowledge_bases: 3 });
    assert.equal(limits.storageBytes, 5 * GB);
    assert.equal(limits.maxKnowledgeBases, 3);
    assert.equal(limits.maxDocuments, 10_000);
    assert.equal(limitsFor('enterprise').maxKnowledgeBases, null);
    assert.equal(limitsFor('free', { max_knowledge_bases: null }).maxKnowledgeBases, null);
  });
});
