/**
 * LanceDB as a peer: `@lancedb/lancedb` 0.31.0, in process, one table in a temporary directory.
 *
 * Version: 0.31.0 is the newest that `npm ci` can install on Node 20 from this project's registry.
 * 0.38 and 0.39 declare `engines: { node: '>= 22' }` and a peer `@types/node >= 22`, which this
 * repository's `@types/node` 20 turns into an ERESOLVE (0.39 does run on Node 20 in a quick test,
 * with an unsupported engine). 0.33 to 0.37 declare Node ≥ 18, but their darwin-arm64,
 * linux-arm64 and win32 binary packages are not on the registry this project reaches, so npm
 * leaves them out of package-lock.json and `npm ci` then rejects the lock ("Missing:
 * @lancedb/lancedb-darwin-arm64@ from lock file"). 0.31.0 has all seven.
 *
 * Set up as LanceDB's docs tell a user to, for 20,000 × 384 chunks ranked by cosine (what the
 * embedders produce and what the other peers rank by):
 * - Vector index IVF_HNSW_SQ with the documented defaults: one partition ("works well for most
 *   tables"), m 20, efConstruction 300, 8-bit scalar quantisation; search ef 40. Measured against
 *   IVF_PQ with check-peers.ts, it is clearly better at this size: its vector index builds in a
 *   fraction of the time (4–7 s against 28–38 s, on a shared 2-core machine), and at settings that
 *   give recall@10 ≥ 0.95 for plain, 10 % and 1 % filtered queries alike it answers in a third to
 *   half the p50 latency (1.1–1.5 ms against 3.5–7 ms unfiltered), with no refine step. ef 40 is the
 *   smallest swept value reaching that (the default 1.5 × k = 15 gives 0.86, 20 gives 0.91, 40
 *   gives 0.99; filtered queries are at 0.997 from the default up).
 * - IVF_PQ stays selectable (`index: 'ivf_pq'`), with the documented defaults spelled out:
 *   numPartitions = sqrt(rows) (141), numSubVectors = dimensions / 16 (24, the SIMD-friendly
 *   16 dimensions a sub-vector), 8 bits; search nprobes 40 and refineFactor 5. PQ distances alone
 *   reach recall 0.60 whatever nprobes is; the docs' advice is to re-rank limit × refineFactor
 *   candidates on the full vectors, and 5 gives 0.99. nprobes 20 (the default) is enough without
 *   a filter and for the 10 % tag, but with the 1 % tag only 0.85 of the true top 10 lie in the
 *   20 nearest partitions; 40 gives 0.98.
 * - A full-text index (`Index.fts()`, defaults: simple tokenizer, lower-case, English stemming
 *   and stop words, ASCII folding; no token positions, although the typings say positions are on
 *   by default, so no phrase queries) on `text`, and a bitmap index on `tag` (the docs' choice for a
 *   low-cardinality column), so `.where("tag = '…'")` is a pre-filter answered from the index (the
 *   default; `postfilter()` is not used).
 * - Hybrid: `nearestTo(vector).fullTextSearch(text)` with no reranker given, i.e. LanceDB's
 *   default RRF (k 60) over the top `k` of each side.
 *
 * LanceDB logs a deprecation warning on every hybrid query that selects only `id` (its sub-queries
 * cannot both select `_distance` and `_score`), so the module is loaded lazily with
 * LANCEDB_LOG=error unless the caller set LANCEDB_LOG (the native logger reads it once, at load).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Field, FixedSizeList, Float32, Schema, Utf8 } from 'apache-arrow';
import type * as LanceDbModule from '@lancedb/lancedb';
import type { Connection, Table, VectorQuery } from '@lancedb/lancedb';
import type { PeerChunk, PeerHit, VectorPeer } from './peer.js';

export interface LanceDbPeerOptions {
  index: 'ivf_pq' | 'ivf_hnsw_sq';
  /** IVF partitions probed per query (IVF_PQ; IVF_HNSW_SQ has one partition). */
  nprobes: number;
  /** IVF_PQ: re-rank limit × refineFactor candidates on full vectors; 0 = no refine step. */
  refineFactor: number;
  /** IVF_HNSW_SQ: candidate list size per query; 0 = LanceDB's default (1.5 × limit). */
  ef: number;
}

const DEFAULTS: LanceDbPeerOptions = { index: 'ivf_hnsw_sq', nprobes: 40, refineFactor: 5, ef: 40 };

async function loadLanceDb(): Promise<typeof LanceDbModule> {
  process.env.LANCEDB_LOG ??= 'error';
  return import('@lancedb/lancedb');
}

/** A tag is an SQL string literal inside `where`: quotes doubled. */
function tagFilter(tag: string): string {
  return `tag = '${tag.replaceAll("'", "''")}'`;
}

export class LanceDbPeer implements VectorPeer {
  private options: LanceDbPeerOptions;
  private dir: string | undefined;
  private db: Connection | undefined;
  private table: Table | undefined;

  constructor(options: Partial<LanceDbPeerOptions> = {}) {
    this.options = { ...DEFAULTS, ...options };
  }

  get name(): string {
    const o = this.options;
    return o.index === 'ivf_pq'
      ? `LanceDB 0.31 (IVF_PQ nprobes ${o.nprobes} refine ${o.refineFactor} + FTS)`
      : `LanceDB 0.31 (IVF_HNSW_SQ ef ${o.ef || '1.5k'} + FTS)`;
  }

  /** Changes the search settings without rebuilding, for a bench that sweeps them. */
  tune(settings: Partial<Pick<LanceDbPeerOptions, 'nprobes' | 'refineFactor' | 'ef'>>): void {
    this.options = { ...this.options, ...settings };
  }

  async build(chunks: PeerChunk[], dimensions: number): Promise<void> {
    const lancedb = await loadLanceDb();
    this.dir = await fs.mkdtemp(path.join(os.tmpdir(), 'lore-peer-lancedb-'));
    this.db = await lancedb.connect(this.dir);
    const schema = new Schema([
      new Field('id', new Utf8(), false),
      new Field('text', new Utf8(), false),
      new Field('tag', new Utf8(), false),
      new Field('vector', new FixedSizeList(dimensions, new Field('item', new Float32(), true)), false),
    ]);
    const rows = chunks.map((c) => ({ id: c.id, text: c.text, tag: c.tag, vector: c.vector }));
    const table = await this.db.createTable('chunks', lancedb.makeArrowTable(rows, { schema }));
    this.table = table;
    const vectorIndex =
      this.options.index === 'ivf_pq'
        ? lancedb.Index.ivfPq({
            numPartitions: Math.max(1, Math.round(Math.sqrt(chunks.length))),
            numSubVectors: dimensions % 16 === 0 ? dimensions / 16 : dimensions / 8,
            numBits: 8,
            distanceType: 'cosine',
          })
        : lancedb.Index.hnswSq({ numPartitions: 1, m: 20, efConstruction: 300, distanceType: 'cosine' });
    await table.createIndex('vector', { config: vectorIndex });
    await table.createIndex('text', { config: lancedb.Index.fts() });
    await table.createIndex('tag', { config: lancedb.Index.bitmap() });
  }

  async vectorSearch(vector: Float32Array, k: number, tag?: string): Promise<PeerHit[]> {
    let query = this.tuned(this.open().query().nearestTo(vector));
    if (tag !== undefined) query = query.where(tagFilter(tag));
    const rows = (await query.select(['id', '_distance']).limit(k).toArray()) as { id: string; _distance: number }[];
    return rows.map((r) => ({ id: r.id, score: 1 - r._distance }));
  }

  async hybridSearch(text: string, vector: Float32Array, k: number, tag?: string): Promise<PeerHit[]> {
    let query = this.tuned(this.open().query().nearestTo(vector)).fullTextSearch(text);
    if (tag !== undefined) query = query.where(tagFilter(tag));
    const rows = (await query.select(['id']).limit(k).toArray()) as { id: string; _relevance_score: number }[];
    return rows.map((r) => ({ id: r.id, score: r._relevance_score }));
  }

  async close(): Promise<void> {
    this.table?.close();
    this.db?.close();
    this.table = undefined;
    this.db = undefined;
    if (this.dir) await fs.rm(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }

  private open(): Table {
    if (!this.table) throw new Error(`${this.name}: build() first`);
    return this.table;
  }

  /** The index's search settings; the distance type must match the one the index was trained with. */
  private tuned(query: VectorQuery): VectorQuery {
    const o = this.options;
    let q = query.distanceType('cosine');
    if (o.index === 'ivf_pq') {
      q = q.nprobes(o.nprobes);
      if (o.refineFactor > 0) q = q.refineFactor(o.refineFactor);
    } else if (o.ef > 0) {
      q = q.ef(o.ef);
    }
    return q;
  }
}
