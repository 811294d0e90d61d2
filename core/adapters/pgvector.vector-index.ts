import type { Logger } from 'pino';
import type { Database, Queryable } from '../db/database.js';
import { type VectorHit, type VectorIndex, type VectorIndexStatus, type VectorTarget, compareHits } from '../ports/vector-index.js';
import { type ChunkFilter, type CorpusChunkFilter, chunkFilterSql, corpusChunkFilterSql } from '../search/chunk-filter.js';
import { SqlParams, toRealArrayLiteral, toVectorLiteral } from '../shared/sql-params.js';

/** pgvector's HNSW supports `vector` up to 2,000 dimensions and `halfvec` up to 4,000. */
const MAX_VECTOR_HNSW_DIMENSIONS = 2000;
const MAX_HALFVEC_HNSW_DIMENSIONS = 4000;
/** pgvector's upper bound for hnsw.ef_search. */
const MAX_EF_SEARCH = 1000;
/** The dimension the migration indexes as `idx_chunks_embedding` and `idx_platform_chunks_embedding`. */
const MIGRATED_DIMENSIONS = 1024;

/** Where each target's vectors live, and the name its HNSW indexes start with. */
const TABLES: Record<VectorTarget, { table: string; index: string }> = {
  tenant: { table: 'chunks', index: 'idx_chunks_embedding' },
  corpus: { table: 'platform_chunks', index: 'idx_platform_chunks_embedding' },
};

interface NearestQuery {
  target: VectorTarget;
  dimensions: number;
  vector: Float32Array;
  limit: number;
  /** The target's filter as SQL over alias `c`. */
  where: (params: SqlParams) => string;
  /** How many chunks the filter could match at most (decides exact scan or HNSW). */
  candidates: (tx: Queryable) => Promise<number>;
}

export interface PgVectorIndexOptions {
  /**
   * At or below this many candidate chunks a search scans them exactly (recall 1.0, bounded cost)
   * instead of walking the shared HNSW graph, where a small tenant's chunks are rare.
   */
  exactScanThreshold: number;
  /** HNSW candidate list size: higher is slower and more accurate. */
  efSearch: number;
  /** How many index tuples an iterative (filtered) scan may visit before giving up. */
  maxScanTuples: number;
  /**
   * Whether this adapter keeps HNSW indexes (builds them at start-up for the dimensions in use) and
   * searches through them. Off, every search scans exactly and no index is created (the flat
   * index's fallback while it loads).
   */
  graphs: boolean;
}

/**
 * Measured by bench/retrieval-scale.bench.ts with the lexical embedder (PGlite, 1024 dimensions):
 * recall@10 at 10k chunks is 0.83 / 0.90 / 0.95 at ef_search 100 / 200 / 400 (filtered to 10%: 0.78 /
 * 0.84 / 0.93) for 5 / 6 / 9 ms; an exact scan costs ~2.5 µs per candidate chunk, so up to ~4,000
 * candidates it is no slower than the graph and always exact.
 */
export const DEFAULT_PGVECTOR_OPTIONS: PgVectorIndexOptions = {
  exactScanThreshold: 4_000,
  efSearch: 400,
  maxScanTuples: 100_000,
  graphs: true,
};

/**
 * How a dimension is searched: with pgvector, through its distance operator, over an HNSW index
 * when the dimension has one (`index`) or exactly; without pgvector, as real[] dot products.
 */
type Mode = { kind: 'pgvector'; index: 'vector' | 'halfvec' | null } | { kind: 'array' };

/**
 * Vector search in the database itself. Embeddings live in `chunks.embedding` (tenants) and
 * `platform_chunks.embedding` (corpora), in pgvector's `vector` type where pgvector exists and as
 * real[] elsewhere (migration 0007); partial HNSW indexes over a cast of that column serve each
 * dimension in use (`vector` ≤ 2,000 dimensions, `halfvec` ≤ 4,000; above
 * that, or without pgvector, searches scan exactly). Filters go into the scan's WHERE clause and
 * iterative index scans keep going until `limit` matching rows are found, so filtering never
 * shortens a result list.
 */
export class PgVectorIndex implements VectorIndex {
  readonly kind = 'postgres';
  readonly loaded: Promise<void> = Promise.resolve();
  private readonly ensured = new Set<string>();
  private readonly options: PgVectorIndexOptions;
  /** Whether the database has pgvector, looked up on first use (the database may start later than Lore). */
  private pgvector: Promise<boolean> | undefined;

  constructor(
    private readonly db: Database,
    options: Partial<PgVectorIndexOptions> = {},
    private readonly log?: Logger,
  ) {
    this.options = { ...DEFAULT_PGVECTOR_OPTIONS, ...options };
  }

  private hasPgvector(): Promise<boolean> {
    this.pgvector ??= this.db
      .query("SELECT 1 FROM pg_extension WHERE extname = 'vector'")
      .then((r) => r.rows.length > 0)
      .catch((err: unknown) => {
        this.pgvector = undefined;
        throw err;
      });
    return this.pgvector;
  }

  private async mode(dimensions: number): Promise<Mode> {
    if (!(await this.hasPgvector())) return { kind: 'array' };
    if (!this.options.graphs || dimensions > MAX_HALFVEC_HNSW_DIMENSIONS) return { kind: 'pgvector', index: null };
    return { kind: 'pgvector', index: dimensions <= MAX_VECTOR_HNSW_DIMENSIONS ? 'vector' : 'halfvec' };
  }

  /**
   * Builds any missing HNSW index for the dimensions knowledge bases and corpora use (after the
   * flat index was in use, which drops them, this rebuilds them: minutes for 100k chunks).
   */
  async start(): Promise<void> {
    if (!this.options.graphs) return;
    if (!(await this.hasPgvector())) {
      this.log?.warn(
        'PostgreSQL has no pgvector: vector searches scan every chunk they may match (fine for thousands of chunks a search, slow for ' +
          'hundreds of thousands); install pgvector on the server, or use VECTOR_INDEX=flat (one API process) or qdrant',
      );
      return;
    }
    const { rows } = await this.db.query<{ target: VectorTarget; dimensions: number }>(
      `SELECT 'tenant' AS target, dimensions FROM knowledge_bases UNION SELECT 'corpus', dimensions FROM corpora
       UNION SELECT 'tenant', ${MIGRATED_DIMENSIONS} UNION SELECT 'corpus', ${MIGRATED_DIMENSIONS}`,
    );
    for (const r of rows) await this.ensureDimensions(r.dimensions, r.target);
  }

  async close(): Promise<void> {}

  /**
   * Whether each target can serve searches: with pgvector, whether the default dimension's HNSW
   * index exists; without pgvector there is no index to build, and exact scans serve (`ok`).
   */
  async status(): Promise<VectorIndexStatus> {
    if (!(await this.hasPgvector())) return { tenant: 'ok', corpus: 'ok' };
    const { rows } = await this.db.query<{ indexname: string }>(
      `SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND indexname = ANY($1::text[])`,
      [[TABLES.tenant.index, TABLES.corpus.index]],
    );
    const present = new Set(rows.map((r) => r.indexname));
    return {
      tenant: present.has(TABLES.tenant.index) ? 'ok' : 'missing',
      corpus: present.has(TABLES.corpus.index) ? 'ok' : 'missing',
    };
  }

  async ensureDimensions(dimensions: number, target: VectorTarget = 'tenant'): Promise<void> {
    const key = `${target}:${dimensions}`;
    if (this.ensured.has(key)) return;
    const mode = await this.mode(dimensions);
    if (mode.kind === 'pgvector' && mode.index) {
      // Data-dependent DDL: one partial index per dimension that knowledge bases or corpora actually use
      // (the default dimension's under the name the first migration gave it).
      const d = Math.trunc(dimensions);
      const { table, index } = TABLES[target];
      await this.db.exec(
        `CREATE INDEX IF NOT EXISTS ${d === MIGRATED_DIMENSIONS ? index : `${index}_d${d}`} ON ${table} USING hnsw ` +
          `((embedding::${mode.index}(${d})) ${mode.index}_cosine_ops) WHERE dimensions = ${d}`,
      );
    }
    this.ensured.add(key);
  }

  // Searches read the chunk tables themselves: there is no copy to keep current.
  async documentsIndexed(): Promise<void> {}
  async documentsRemoved(): Promise<void> {}
  async tenantRemoved(): Promise<void> {}
  async corpusRecordsIndexed(): Promise<void> {}
  async corpusRecordsRemoved(): Promise<void> {}

  async search(params: { filter: ChunkFilter; dimensions: number; vector: Float32Array; limit: number }): Promise<VectorHit[]> {
    const { filter } = params;
    if (!filter.knowledgeBaseIds.length) return [];
    return this.nearest({
      ...params,
      target: 'tenant',
      where: (p) => chunkFilterSql(filter, p),
      candidates: (tx) => this.candidateCount(tx, filter),
    });
  }

  async searchCorpora(params: { filter: CorpusChunkFilter; dimensions: number; vector: Float32Array; limit: number }): Promise<VectorHit[]> {
    const { filter } = params;
    if (!filter.corpusIds.length) return [];
    return this.nearest({
      ...params,
      target: 'corpus',
      where: (p) => corpusChunkFilterSql(filter, p),
      candidates: (tx) => this.corpusCandidateCount(tx, filter),
    });
  }

  /** One statement for both targets: exact scan or HNSW iterative scan, the filter inside either. */
  private async nearest(query: NearestQuery): Promise<VectorHit[]> {
    const { target, dimensions: d, vector, limit } = query;
    if (limit < 1) return [];
    await this.ensureDimensions(d, target);
    const mode = await this.mode(d);
    const { table } = TABLES[target];
    return this.db.transaction(async (tx) => {
      const p = new SqlParams();
      const where = `${query.where(p)} AND c.dimensions = ${Math.trunc(d)}`;
      let sql: string;
      if (mode.kind === 'array') {
        // Unit vectors: cosine similarity is the dot product. Works on any PostgreSQL.
        const q = p.add(toRealArrayLiteral(vector));
        sql = `SELECT c.id AS chunk_id,
                 (SELECT sum(a * b) FROM unnest(c.embedding, ${q}::real[]) AS t(a, b)) AS similarity
               FROM ${table} c WHERE ${where} ORDER BY similarity DESC, c.id LIMIT ${Math.trunc(limit)}`;
      } else {
        const cast = `${mode.index ?? 'vector'}(${Math.trunc(d)})`;
        const q = p.add(toVectorLiteral(vector));
        const distance = `(c.embedding::${cast} <=> ${q}::${cast})`;
        if (!mode.index || (await query.candidates(tx)) <= this.options.exactScanThreshold) {
          // "+ 0" keeps the planner off the HNSW index: few candidates are cheaper to scan exactly.
          sql = `SELECT c.id AS chunk_id, 1 - ${distance} AS similarity FROM ${table} c
                 WHERE ${where} ORDER BY ${distance} + 0, c.id LIMIT ${Math.trunc(limit)}`;
        } else {
          const ef = Math.min(MAX_EF_SEARCH, Math.max(this.options.efSearch, Math.trunc(limit)));
          // The planner's costs favour scanning the tenant's chunks and sorting them, which reads every
          // candidate vector (seconds at 100k). Inside this transaction only, the plans that do not
          // walk the HNSW graph are disabled, so the index scan, which needs no sort, is chosen.
          await tx.exec(
            `SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL hnsw.ef_search = ${ef}; ` +
              `SET LOCAL hnsw.max_scan_tuples = ${Math.trunc(this.options.maxScanTuples)}; ` +
              'SET LOCAL enable_sort = off; SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off',
          );
          // relaxed_order may return neighbours slightly out of order; they are re-sorted below.
          sql = `SELECT c.id AS chunk_id, 1 - ${distance} AS similarity FROM ${table} c
                 WHERE ${where} ORDER BY ${distance} LIMIT ${Math.trunc(limit)}`;
        }
      }
      const { rows } = await tx.query<{ chunk_id: string; similarity: number }>(sql, p.values);
      return rows
        .map((r) => ({ chunkId: r.chunk_id, similarity: Number(r.similarity) }))
        .sort(compareHits);
    });
  }

  /**
   * Chunks the filter could match at most: the indexed chunks of the knowledge bases searched, exact
   * up to the exact-scan threshold. Every ready document has a chunk, so past threshold + 1 documents
   * the sum is past the threshold too and the rest are not read (summing 25,000 documents on every
   * query cost more than the HNSW search itself).
   */
  private async candidateCount(tx: Queryable, filter: ChunkFilter): Promise<number> {
    const { rows } = await tx.query<{ n: number }>(
      `SELECT COALESCE(sum(chunk_count), 0)::int AS n FROM (
         SELECT chunk_count FROM documents
         WHERE tenant_id = $1 AND knowledge_base_id = ANY($2::uuid[]) AND status = 'ready'
         LIMIT $3) d`,
      [filter.scope.tenantId, filter.knowledgeBaseIds, Math.min(Math.trunc(this.options.exactScanThreshold), 1_000_000_000) + 1],
    );
    return rows[0]?.n ?? 0;
  }

  /** Platform chunks the filter could match at most: the indexed chunks of the corpora searched. */
  private async corpusCandidateCount(tx: Queryable, filter: CorpusChunkFilter): Promise<number> {
    const { rows } = await tx.query<{ n: number }>(
      'SELECT COALESCE(sum(chunk_count), 0)::int AS n FROM corpora WHERE id = ANY($1::uuid[])',
      [filter.corpusIds],
    );
    return rows[0]?.n ?? 0;
  }
}
