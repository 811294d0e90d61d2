import type { EmbeddingEncoder } from '../db/embeddings.js';
import type { Scope } from '../shared/scope.js';
import type { Queryable } from '../db/database.js';
import type { ChunkKeywords } from '../search/chunk-keywords.js';
import { keywordIndexColumns } from '../search/search-sql.js';
import type { JobRow } from '../jobs/job.repository.js';
import type { PlanId } from '../plans.js';
import type { CreateCorpusInput, RecordMetadata, UpdateCorpusInput } from './corpus.schema.js';

export interface CorpusRow {
  id: string;
  slug: string;
  name: string;
  license_info: string;
  requires_dua: boolean;
  plans: PlanId[];
  dimensions: number;
  chunk_count: number;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, slug, name, license_info, requires_dua, plans, dimensions, chunk_count, created_at, updated_at';

/** Inserts a corpus; undefined when the slug is taken. */
export async function insertCorpus(db: Queryable, input: CreateCorpusInput): Promise<CorpusRow | undefined> {
  const { rows } = await db.query<CorpusRow>(
    `INSERT INTO corpora (slug, name, license_info, requires_dua, plans, dimensions) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (slug) DO NOTHING RETURNING ${COLUMNS}`,
    [input.slug, input.name, input.license_info, input.requires_dua, input.plans, input.dimensions],
  );
  return rows[0];
}

export async function findCorpus(db: Queryable, slug: string): Promise<CorpusRow | undefined> {
  const { rows } = await db.query<CorpusRow>(`SELECT ${COLUMNS} FROM corpora WHERE slug = $1`, [slug]);
  return rows[0];
}

export async function findCorpusById(db: Queryable, id: string): Promise<CorpusRow | undefined> {
  const { rows } = await db.query<CorpusRow>(`SELECT ${COLUMNS} FROM corpora WHERE id = $1`, [id]);
  return rows[0];
}

export async function listCorpora(db: Queryable): Promise<CorpusRow[]> {
  const { rows } = await db.query<CorpusRow>(`SELECT ${COLUMNS} FROM corpora ORDER BY slug`);
  return rows;
}

export async function updateCorpus(db: Queryable, slug: string, patch: UpdateCorpusInput): Promise<CorpusRow | undefined> {
  const sets: string[] = [];
  const params: Array<string | boolean | string[]> = [slug];
  for (const column of ['name', 'license_info', 'requires_dua', 'plans'] as const) {
    const value = patch[column];
    if (value === undefined) continue;
    params.push(value);
    sets.push(`${column} = $${params.length}`);
  }
  const { rows } = await db.query<CorpusRow>(
    `UPDATE corpora SET ${sets.join(', ')}, updated_at = now() WHERE slug = $1 RETURNING ${COLUMNS}`,
    params,
  );
  return rows[0];
}

/** Deletes a corpus with its records, chunks and acceptances (foreign keys cascade) and its jobs. */
export async function deleteCorpus(db: Queryable, slug: string): Promise<string | undefined> {
  const { rows } = await db.query<{ id: string }>('DELETE FROM corpora WHERE slug = $1 RETURNING id', [slug]);
  const id = rows[0]?.id;
  if (!id) return undefined;
  // A job still running for it loses its lease at its next heartbeat and stops. Corpus jobs belong
  // to the instance, not to a tenant (tenant_id is null): unscoped.
  await db.query("DELETE FROM jobs WHERE job_type = 'corpus_ingestion' AND payload ->> 'corpus_id' = $1", [id]);
  return id;
}

export async function recordCounts(db: Queryable, corpusId: string): Promise<{ pending: number; ready: number; failed: number }> {
  const { rows } = await db.query<{ status: 'pending' | 'ready' | 'failed'; n: number }>(
    'SELECT status, count(*)::int AS n FROM corpus_records WHERE corpus_id = $1 GROUP BY status',
    [corpusId],
  );
  const counts = { pending: 0, ready: 0, failed: 0 };
  for (const r of rows) counts[r.status] = r.n;
  return counts;
}

export interface RecordToStore {
  sourceRecordId: string;
  content: string;
  contentBytes: number;
  metadata: RecordMetadata;
  chunkCount: number;
}

/**
 * Stores records for `jobId` to index: new ones are added, existing ones (same source_record_id)
 * get the new content and metadata and move to the new job. A replaced record's previous chunks stay
 * searchable until the job swaps in the new ones.
 */
export async function upsertRecords(db: Queryable, corpusId: string, jobId: string, records: RecordToStore[]): Promise<void> {
  await db.query(
    `INSERT INTO corpus_records (corpus_id, source_record_id, content, content_bytes, metadata, chunk_count, job_id)
     SELECT $1, t.id, t.content, t.bytes, t.meta::jsonb, t.chunks, $2
     FROM unnest($3::text[], $4::text[], $5::bigint[], $6::text[], $7::int[]) AS t(id, content, bytes, meta, chunks)
     ON CONFLICT (corpus_id, source_record_id) DO UPDATE SET
       content = EXCLUDED.content, content_bytes = EXCLUDED.content_bytes, metadata = EXCLUDED.metadata,
       chunk_count = EXCLUDED.chunk_count, job_id = EXCLUDED.job_id, status = 'pending', error = NULL, updated_at = now()`,
    [
      corpusId,
      jobId,
      records.map((r) => r.sourceRecordId),
      records.map((r) => r.content),
      records.map((r) => r.contentBytes),
      records.map((r) => JSON.stringify(r.metadata)),
      records.map((r) => r.chunkCount),
    ],
  );
}

export interface CorpusRecordRow {
  source_record_id: string;
  status: 'pending' | 'ready' | 'failed';
  content_bytes: number;
  chunk_count: number;
  metadata: RecordMetadata;
  error: string | null;
  created_at: Date;
  updated_at: Date;
}

export async function findRecord(db: Queryable, corpusId: string, sourceRecordId: string): Promise<CorpusRecordRow | undefined> {
  const { rows } = await db.query<CorpusRecordRow>(
    `SELECT source_record_id, status, content_bytes::float8 AS content_bytes, chunk_count, metadata, error, created_at, updated_at
     FROM corpus_records WHERE corpus_id = $1 AND source_record_id = $2`,
    [corpusId, sourceRecordId],
  );
  return rows[0];
}

/** Deletes a record and its chunks; false when there is no such record. */
export async function deleteRecord(db: Queryable, corpusId: string, sourceRecordId: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM corpus_records WHERE corpus_id = $1 AND source_record_id = $2', [
    corpusId,
    sourceRecordId,
  ]);
  if (!rowCount) return false;
  await removeChunks(db, corpusId, [sourceRecordId]);
  return true;
}

/** Deletes the chunks of these records and keeps the corpus's chunk count; returns how many went. */
export async function removeChunks(db: Queryable, corpusId: string, sourceRecordIds: string[]): Promise<number> {
  if (!sourceRecordIds.length) return 0;
  const { rowCount } = await db.query('DELETE FROM platform_chunks WHERE corpus_id = $1 AND source_record_id = ANY($2::text[])', [
    corpusId,
    sourceRecordIds,
  ]);
  if (rowCount) await db.query('UPDATE corpora SET chunk_count = chunk_count - $2 WHERE id = $1', [corpusId, rowCount]);
  return rowCount;
}

export interface PendingRecord {
  source_record_id: string;
  content: string;
  metadata: RecordMetadata;
}

/** The records a job still has to index, in id order after `after` (pages keep memory bounded). */
export async function pendingRecordsOfJob(db: Queryable, jobId: string, after: string | null, limit: number): Promise<PendingRecord[]> {
  const { rows } = await db.query<PendingRecord>(
    `SELECT source_record_id, content, metadata FROM corpus_records
     WHERE job_id = $1 AND status = 'pending' AND ($2::text IS NULL OR source_record_id > $2)
     ORDER BY source_record_id LIMIT ${Math.trunc(limit)}`,
    [jobId, after],
  );
  return rows;
}

/** Chunks of the job's records already indexed (a resumed job continues from there). */
export async function indexedChunksOfJob(db: Queryable, jobId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    "SELECT COALESCE(sum(chunk_count), 0)::int AS n FROM corpus_records WHERE job_id = $1 AND status = 'ready'",
    [jobId],
  );
  return rows[0]?.n ?? 0;
}

/** Locks the records of `ids` that still wait for this job (a record loaded again meanwhile belongs to a newer job). */
export async function lockPendingRecords(db: Queryable, corpusId: string, jobId: string, ids: string[]): Promise<Set<string>> {
  const { rows } = await db.query<{ source_record_id: string }>(
    `SELECT source_record_id FROM corpus_records
     WHERE corpus_id = $1 AND source_record_id = ANY($2::text[]) AND job_id = $3 AND status = 'pending'
     ORDER BY source_record_id FOR UPDATE`,
    [corpusId, ids, jobId],
  );
  return new Set(rows.map((r) => r.source_record_id));
}

export interface ChunkToStore {
  sourceRecordId: string;
  chunkIndex: number;
  content: string;
  /** What its keyword index is built from: the content as keyword search analyses it. */
  keywords: ChunkKeywords;
  metadata: RecordMetadata;
  language: string | null;
  vector: Float32Array;
}

/** Writes corpus chunks, their vectors and keyword index, and counts them on the corpus. */
export async function insertCorpusChunks(
  db: Queryable,
  corpus: { id: string; dimensions: number },
  embedder: string,
  chunks: ChunkToStore[],
  encoder: EmbeddingEncoder,
): Promise<string[]> {
  if (!chunks.length) return [];
  const embeddings = encoder.encode(chunks.map((c) => c.vector));
  const keywords = keywordIndexColumns(chunks.map((c) => c.keywords), false);
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO platform_chunks (corpus_id, source_record_id, chunk_index, content, metadata, language, dimensions, embedding,
                                  embedder, tsv)
     SELECT $1, t.rid, t.idx, t.content, t.meta::jsonb, t.lang, $2, ${embeddings.element('t.emb')}, $3, ${keywords.tsvector}
     FROM unnest($4::text[], $5::int[], $6::text[], $7::text[], $8::text[], $9::${embeddings.type}, ${keywords.placeholders(10)})
       AS t(rid, idx, content, meta, lang, emb, ${keywords.names})
     RETURNING id`,
    [
      corpus.id,
      corpus.dimensions,
      embedder,
      chunks.map((c) => c.sourceRecordId),
      chunks.map((c) => c.chunkIndex),
      chunks.map((c) => c.content),
      chunks.map((c) => JSON.stringify(c.metadata)),
      chunks.map((c) => c.language),
      embeddings.value,
      ...keywords.values,
    ],
  );
  await db.query('UPDATE corpora SET chunk_count = chunk_count + $2 WHERE id = $1', [corpus.id, chunks.length]);
  // INSERT … SELECT FROM unnest returns rows in the order unnest produced them.
  return rows.map((r) => r.id);
}

export async function markRecordsReady(db: Queryable, corpusId: string, chunkCounts: Map<string, number>): Promise<void> {
  await db.query(
    `UPDATE corpus_records r SET status = 'ready', chunk_count = t.n, error = NULL, updated_at = now()
     FROM unnest($2::text[], $3::int[]) AS t(id, n)
     WHERE r.corpus_id = $1 AND r.source_record_id = t.id`,
    [corpusId, [...chunkCounts.keys()], [...chunkCounts.values()]],
  );
}

/** Marks the records a failed job did not index as failed; returns them (their chunks must go). */
export async function failPendingRecords(db: Queryable, jobId: string, error: string): Promise<Array<{ corpus_id: string; source_record_id: string }>> {
  const { rows } = await db.query<{ corpus_id: string; source_record_id: string }>(
    `UPDATE corpus_records SET status = 'failed', error = $2, updated_at = now()
     WHERE job_id = $1 AND status = 'pending' RETURNING corpus_id, source_record_id`,
    [jobId, error],
  );
  return rows;
}

/** Every corpus with what it means for one tenant: `accessible` on its plan, `accepted` its DUA. */
export interface TenantCorpusRow {
  id: string;
  slug: string;
  name: string;
  license_info: string;
  requires_dua: boolean;
  dimensions: number;
  chunk_count: number;
  accessible: boolean;
  accepted: boolean;
}

export async function corporaOfTenant(db: Queryable, scope: Scope, plan: PlanId): Promise<TenantCorpusRow[]> {
  const { rows } = await db.query<TenantCorpusRow>(
    `SELECT c.id, c.slug, c.name, c.license_info, c.requires_dua, c.dimensions, c.chunk_count,
            $2 = ANY(c.plans) AS accessible,
            EXISTS (SELECT 1 FROM corpus_dua_acceptances a WHERE a.tenant_id = $1 AND a.corpus_id = c.id) AS accepted
     FROM corpora c ORDER BY c.slug`,
    [scope.tenantId, plan],
  );
  return rows;
}

/** Records a tenant's acceptance; the first one stands (accepting again changes nothing). */
export async function insertDuaAcceptance(
  db: Queryable,
  scope: Scope,
  acceptance: { corpusId: string; acceptedBy: string | null; apiKeyId: string | null },
): Promise<void> {
  await db.query(
    `INSERT INTO corpus_dua_acceptances (tenant_id, corpus_id, accepted_by, api_key_id) VALUES ($1, $2, $3, $4)
     ON CONFLICT (tenant_id, corpus_id) DO NOTHING`,
    [scope.tenantId, acceptance.corpusId, acceptance.acceptedBy, acceptance.apiKeyId],
  );
}

export interface DuaAcceptanceRow {
  corpus: string;
  accepted_by: string | null;
  api_key_id: string | null;
  accepted_at: Date;
}

export async function duaAcceptancesOfTenant(db: Queryable, scope: Scope): Promise<DuaAcceptanceRow[]> {
  const { rows } = await db.query<DuaAcceptanceRow>(
    `SELECT c.slug AS corpus, a.accepted_by, a.api_key_id, a.accepted_at
     FROM corpus_dua_acceptances a JOIN corpora c ON c.id = a.corpus_id
     WHERE a.tenant_id = $1 ORDER BY a.accepted_at, c.slug`,
    [scope.tenantId],
  );
  return rows;
}

const JOB_COLUMNS = `id, tenant_id, sub_tenant_id, document_id, knowledge_base_id, job_type, status, payload, error,
  total_chunks, processed_chunks, attempts, max_attempts, run_at, lease_owner, created_at, started_at, completed_at`;

/** A corpus's jobs (instance jobs, for the operator: unscoped). */
export async function corpusJobs(db: Queryable, corpusId: string): Promise<JobRow[]> {
  const { rows } = await db.query<JobRow>(
    `SELECT ${JOB_COLUMNS} FROM jobs WHERE job_type = 'corpus_ingestion' AND payload ->> 'corpus_id' = $1
     ORDER BY created_at DESC, id`,
    [corpusId],
  );
  return rows;
}

/** One job of a corpus (an instance job, for the operator: unscoped). */
export async function findCorpusJob(db: Queryable, corpusId: string, jobId: string): Promise<JobRow | undefined> {
  const { rows } = await db.query<JobRow>(
    `SELECT ${JOB_COLUMNS} FROM jobs WHERE id = $2 AND job_type = 'corpus_ingestion' AND payload ->> 'corpus_id' = $1`,
    [corpusId, jobId],
  );
  return rows[0];
}
