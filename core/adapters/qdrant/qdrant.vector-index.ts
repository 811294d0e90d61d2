import { QdrantClient } from '@qdrant/js-client-rest';
import type { Logger } from 'pino';
import type { Queryable } from '../../db/database.js';
import type { ChunkFilter, CorpusChunkFilter } from '../../search/chunk-filter.js';
import { escapeLike } from '../../shared/sql-params.js';
import type {
  DocumentIndexed,
  KnownVectors,
  ReconcileReport,
  VectorHit,
  VectorIndex,
  VectorIndexStatus,
  VectorTarget,
} from '../../ports/vector-index.js';
import { type PointSource, QdrantSources, documentPayload, expectedDocuments, expectedRecords } from './qdrant-sources.js';

export interface QdrantOptions {
  url: string;
  apiKey: string | undefined;
  /** Collection names start with this (several Lore instances can share one Qdrant). */
  prefix: string;
  /** HNSW search breadth; higher finds more of the exact neighbours, more slowly. */
  efSearch: number;
  /** HNSW graph degree and build breadth of new collections. */
  m: number;
  efConstruct: number;
  /** `scalar`: int8 vectors in memory (4× smaller; originals on disk rescore the top hits); `none`: float32. */
  quantization: 'none' | 'scalar';
  /** Points per upsert request. */
  batchSize: number;
}

type Condition = Record<string, unknown>;

interface Filter {
  must: Condition[];
  must_not?: Condition[];
}

/** The payload indexes a tenant collection's searches filter on (keyword: exact match; integer: ranges). */
const TENANT_INDEXES: Array<[string, 'keyword' | 'integer']> = [
  ['knowledge_base_id', 'keyword'],
  ['sub_tenant_id', 'keyword'],
  ['document_id', 'keyword'],
  ['embedder', 'keyword'],
  ['created_at', 'integer'],
];
const CORPUS_INDEXES: Array<[string, 'keyword']> = [
  ['corpus_id', 'keyword'],
  ['source_record_id', 'keyword'],
  ['embedder', 'keyword'],
];

const RETRIES = 3;

/**
 * The VectorIndex port over Qdrant (`VECTOR_INDEX=qdrant`): a collection per tenant and dimension
 * count (`<prefix>t_<tenant>_<dimensions>`, created on first use, or ahead of time by the operator),
 * and one per dimension count for platform corpora (`<prefix>corpora_<dimensions>`). Points are keyed
 * by chunk id and carry what every ChunkFilter condition reads, with payload indexes on them, so
 * filters apply inside the HNSW search and a filtered search still returns `limit` hits. The chunk
 * tables stay the source of truth: the change notifications keep the collections current, and
 * `reconcile` repairs them after an outage or a restore.
 */
export class QdrantVectorIndex implements VectorIndex {
  readonly kind = 'qdrant';
  readonly loaded = Promise.resolve();
  private readonly client: QdrantClient;
  private readonly sources: QdrantSources;
  /** Collections known to exist (created or seen), so most calls skip the existence check. */
  private readonly known = new Set<string>();

  constructor(
    private readonly db: Queryable,
    private readonly embedderId: string,
    private readonly options: QdrantOptions,
    private readonly log: Logger,
    client?: QdrantClient,
  ) {
    this.client = client ?? new QdrantClient({ url: options.url, apiKey: options.apiKey, checkCompatibility: false });
    this.sources = new QdrantSources(db, embedderId);
  }

  tenantCollection(tenantId: string, dimensions: number): string {
    return `${this.options.prefix}t_${tenantId}_${dimensions}`;
  }

  corpusCollection(dimensions: number): string {
    return `${this.options.prefix}corpora_${dimensions}`;
  }

  async start(): Promise<void> {
    // Reachable or not, start-up goes on: searches and notifications fail (and retry) until it is.
    await this.client.getCollections().catch((err: unknown) => this.log.error({ err }, 'Qdrant cannot be reached'));
  }

  async close(): Promise<void> {}

  async status(): Promise<VectorIndexStatus> {
    try {
      await this.client.getCollections();
      return { tenant: 'ok', corpus: 'ok' };
    } catch {
      return { tenant: 'missing', corpus: 'missing' };
    }
  }

  async ensureDimensions(dimensions: number, target: VectorTarget = 'tenant'): Promise<void> {
    // Tenant collections are per tenant: created when the first document of a tenant is indexed.
    if (target === 'corpus') await this.ensureCollection(this.corpusCollection(dimensions), dimensions, CORPUS_INDEXES);
  }

  async ensureTenant(tenantId: string, dimensions: number): Promise<boolean> {
    const name = this.tenantCollection(tenantId, dimensions);
    // The operator repairs drift (a collection deleted outside Lore): ask the server, not the cache.
    this.known.delete(name);
    if (await this.exists(name)) return false;
    await this.ensureCollection(name, dimensions, TENANT_INDEXES);
    return true;
  }

  private async ensureCollection(name: string, dimensions: number, indexes: ReadonlyArray<[string, 'keyword' | 'integer']>): Promise<void> {
    if (await this.exists(name)) return;
    await this.retry(() =>
      this.client
        .createCollection(name, {
          vectors: { size: dimensions, distance: 'Cosine', on_disk: this.options.quantization === 'scalar' },
          hnsw_config: { m: this.options.m, ef_construct: this.options.efConstruct },
          ...(this.options.quantization === 'scalar' ? { quantization_config: { scalar: { type: 'int8', always_ram: true } } } : {}),
        })
        .catch(async (err: unknown) => {
          // Another process created it in the meantime: fine.
          if (!(await this.client.collectionExists(name)).exists) throw err;
          return true;
        }),
    );
    for (const [field, schema] of indexes) {
      await this.retry(() => this.client.createPayloadIndex(name, { field_name: field, field_schema: schema, wait: true }));
    }
    this.known.add(name);
  }

  private async exists(name: string): Promise<boolean> {
    if (this.known.has(name)) return true;
    const { exists } = await this.retry(() => this.client.collectionExists(name));
    if (exists) this.known.add(name);
    return exists;
  }

  async search(params: { filter: ChunkFilter; dimensions: number; vector: Float32Array; limit: number }): Promise<VectorHit[]> {
    const { filter } = params;
    const collection = this.tenantCollection(filter.scope.tenantId, params.dimensions);
    if (!filter.knowledgeBaseIds.length || !(await this.exists(collection))) return [];
    const must: Condition[] = [{ key: 'knowledge_base_id', match: { any: filter.knowledgeBaseIds } }];
    if (filter.scope.subTenantId) must.push({ key: 'sub_tenant_id', match: { value: filter.scope.subTenantId } });
    for (const [key, value] of Object.entries(filter.tags)) must.push({ key: `tags.${key}`, match: { value } });
    if (filter.createdAfter || filter.createdBefore) {
      must.push({ key: 'created_at', range: { ...(filter.createdAfter ? { gt: filter.createdAfter.getTime() } : {}), ...(filter.createdBefore ? { lt: filter.createdBefore.getTime() } : {}) } });
    }
    if (filter.embedder) must.push({ key: 'embedder', match: { value: filter.embedder } });
    if (filter.titleContains) {
      const ids = await this.sources.documentsTitled(filter.scope.tenantId, filter.knowledgeBaseIds, `%${escapeLike(filter.titleContains)}%`);
      if (!ids.length) return [];
      must.push({ key: 'document_id', match: { any: ids } });
    }
    return this.nearest(collection, params.vector, { must }, params.limit);
  }

  async searchCorpora(params: { filter: CorpusChunkFilter; dimensions: number; vector: Float32Array; limit: number }): Promise<VectorHit[]> {
    const { filter } = params;
    const collection = this.corpusCollection(params.dimensions);
    if (!filter.corpusIds.length || !(await this.exists(collection))) return [];
    const must: Condition[] = [{ key: 'corpus_id', match: { any: filter.corpusIds } }];
    for (const [key, value] of Object.entries(filter.metadata)) must.push({ key: `metadata.${key}`, match: { value } });
    if (filter.embedder) must.push({ key: 'embedder', match: { value: filter.embedder } });
    return this.nearest(collection, params.vector, { must }, params.limit);
  }

  private async nearest(collection: string, vector: Float32Array, filter: Filter, limit: number): Promise<VectorHit[]> {
    const { points } = await this.retry(() =>
      this.client.query(collection, {
        query: Array.from(vector),
        filter,
        limit,
        with_payload: false,
        params: { hnsw_ef: Math.max(this.options.efSearch, limit), ...(this.options.quantization === 'scalar' ? { quantization: { rescore: true, oversampling: 2 } } : {}) },
      }),
    );
    return points.map((h) => ({ chunkId: String(h.id), similarity: h.score }));
  }

  // Change notifications

  async documentsIndexed(documents: DocumentIndexed[]): Promise<void> {
    for (const { id, written: w } of documents) {
      if (!w) continue;
      const payload = documentPayload({ ...w, documentId: id, embedder: this.embedderId });
      await this.upsert(
        this.tenantCollection(w.tenantId, w.dimensions),
        w.dimensions,
        TENANT_INDEXES,
        w.chunks.map((c) => ({ id: c.id, vector: c.vector, payload })),
      );
    }
    const readBack = documents.filter((d) => !d.written).map((d) => d.id);
    for (const group of await this.sources.documents(readBack)) {
      await this.upsert(this.tenantCollection(group.tenantId, group.dimensions), group.dimensions, TENANT_INDEXES, group.points);
    }
  }

  async documentsRemoved(documentIds: string[]): Promise<void> {
    if (!documentIds.length) return;
    // The notification names documents only; each tenant collection is asked to drop their points.
    for (const name of await this.collections(`${this.options.prefix}t_`)) {
      await this.retry(() => this.client.delete(name, { wait: true, filter: { must: [{ key: 'document_id', match: { any: documentIds } }] } }));
    }
  }

  async tenantRemoved(owner: { tenantId: string; subTenantId?: string | null }): Promise<void> {
    for (const name of await this.collections(`${this.options.prefix}t_${owner.tenantId}_`)) {
      if (owner.subTenantId) {
        await this.retry(() => this.client.delete(name, { wait: true, filter: { must: [{ key: 'sub_tenant_id', match: { value: owner.subTenantId } }] } }));
      } else {
        await this.retry(() => this.client.deleteCollection(name));
        this.known.delete(name);
      }
    }
  }

  async corpusRecordsIndexed(corpusId: string, recordIds: string[], known?: KnownVectors): Promise<void> {
    // A reloaded record's previous chunks are gone from the tables: drop them here too, then add the new.
    await this.corpusRecordsRemoved(corpusId, recordIds);
    for (const group of await this.sources.records(corpusId, recordIds, known)) {
      await this.upsert(this.corpusCollection(group.dimensions), group.dimensions, CORPUS_INDEXES, group.points);
    }
  }

  async corpusRecordsRemoved(corpusId: string, recordIds: string[] | null): Promise<void> {
    if (recordIds && !recordIds.length) return;
    const must: Condition[] = [{ key: 'corpus_id', match: { value: corpusId } }];
    if (recordIds) must.push({ key: 'source_record_id', match: { any: recordIds } });
    for (const name of await this.collections(`${this.options.prefix}corpora_`)) {
      await this.retry(() => this.client.delete(name, { wait: true, filter: { must } }));
    }
  }

  private async upsert(collection: string, dimensions: number, indexes: ReadonlyArray<[string, 'keyword' | 'integer']>, points: PointSource[]): Promise<void> {
    if (!points.length) return;
    await this.ensureCollection(collection, dimensions, indexes);
    for (let i = 0; i < points.length; i += this.options.batchSize) {
      const batch = points.slice(i, i + this.options.batchSize).map((p) => ({ id: p.id, vector: Array.from(p.vector), payload: p.payload }));
      await this.retry(() => this.client.upsert(collection, { wait: true, points: batch }));
    }
  }

  /**
   * Compares the chunk tables (the source of truth) with the collections and repairs every
   * difference: documents and corpus records whose points are missing or incomplete are indexed
   * again, points of deleted documents and records are removed, and the collections of deleted
   * tenants are dropped. Run after an outage of Qdrant, or after restoring either side.
   */
  async reconcile(): Promise<ReconcileReport> {
    const report: ReconcileReport = { documentsIndexed: 0, documentsRemoved: 0, collectionsDropped: 0, recordsIndexed: 0, recordsRemoved: 0 };
    const expected = await expectedDocuments(this.db, this.embedderId);
    const tenantPrefix = `${this.options.prefix}t_`;
    const present = new Set<string>();
    for (const name of await this.collections(tenantPrefix)) {
      const key = name.slice(tenantPrefix.length);
      present.add(key);
      const tenantId = key.slice(0, key.lastIndexOf('_'));
      if (!expected.tenantIds.has(tenantId)) {
        await this.retry(() => this.client.deleteCollection(name));
        this.known.delete(name);
        report.collectionsDropped++;
        continue;
      }
      const want = expected.documents.get(key) ?? new Map<string, number>();
      const have = await this.countBy(name, 'document_id');
      const stale = [...have.keys()].filter((id) => !want.has(id) || want.get(id) !== have.get(id));
      if (stale.length) {
        await this.retry(() => this.client.delete(name, { wait: true, filter: { must: [{ key: 'document_id', match: { any: stale } }] } }));
        report.documentsRemoved += stale.filter((id) => !want.has(id)).length;
      }
      const missing = [...want.keys()].filter((id) => have.get(id) !== want.get(id));
      if (missing.length) await this.documentsIndexed(missing.map((id) => ({ id })));
      report.documentsIndexed += missing.length;
    }
    // Tenants with documents but no collection yet.
    for (const [key, want] of expected.documents) {
      if (present.has(key)) continue;
      await this.documentsIndexed([...want.keys()].map((id) => ({ id })));
      report.documentsIndexed += want.size;
    }
    const records = await expectedRecords(this.db, this.embedderId);
    const corpusPrefix = `${this.options.prefix}corpora_`;
    const dimensionsPresent = new Set<number>();
    for (const name of await this.collections(corpusPrefix)) {
      const dimensions = Number(name.slice(corpusPrefix.length));
      dimensionsPresent.add(dimensions);
      const want = records.get(dimensions) ?? new Map<string, number>();
      const have = await this.countBy(name, 'corpus_id', 'source_record_id');
      report.recordsRemoved += await this.repairRecords(name, want, have, (n) => (report.recordsIndexed += n));
    }
    for (const [dimensions, want] of records) {
      if (!dimensionsPresent.has(dimensions)) report.recordsRemoved += await this.repairRecords(this.corpusCollection(dimensions), want, new Map(), (n) => (report.recordsIndexed += n));
    }
    return report;
  }

  /** Re-indexes the records whose points differ from the tables and removes those the tables no longer hold; answers the removed. */
  private async repairRecords(name: string, want: Map<string, number>, have: Map<string, number>, indexed: (n: number) => void): Promise<number> {
    const byCorpus = new Map<string, string[]>();
    const add = (key: string) => {
      const corpusId = key.slice(0, key.indexOf('/'));
      byCorpus.set(corpusId, [...(byCorpus.get(corpusId) ?? []), key.slice(key.indexOf('/') + 1)]);
    };
    let removed = 0;
    for (const key of have.keys()) {
      if (want.has(key)) continue;
      const corpusId = key.slice(0, key.indexOf('/'));
      await this.retry(() =>
        this.client.delete(name, {
          wait: true,
          filter: { must: [{ key: 'corpus_id', match: { value: corpusId } }, { key: 'source_record_id', match: { value: key.slice(key.indexOf('/') + 1) } }] },
        }),
      );
      removed++;
    }
    for (const [key, n] of want) if (have.get(key) !== n) add(key);
    for (const [corpusId, recordIds] of byCorpus) {
      await this.corpusRecordsIndexed(corpusId, recordIds);
      indexed(recordIds.length);
    }
    return removed;
  }

  /** Points per value of a payload field (or of two, joined by '/'), scrolled through the whole collection. */
  private async countBy(name: string, field: string, second?: string): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    let offset: string | number | undefined;
    for (;;) {
      const page = await this.retry(() =>
        this.client.scroll(name, { limit: 1000, with_payload: second ? [field, second] : [field], with_vector: false, ...(offset !== undefined ? { offset } : {}) }),
      );
      for (const point of page.points) {
        const payload = point.payload ?? {};
        const key = second ? `${String(payload[field])}/${String(payload[second])}` : String(payload[field]);
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      const next = page.next_page_offset;
      if (next === null || next === undefined || typeof next === 'object') break;
      offset = next;
    }
    return counts;
  }

  /** The collections whose names start with `prefix`. */
  async collections(prefix: string): Promise<string[]> {
    const { collections } = await this.retry(() => this.client.getCollections());
    return collections.map((c) => c.name).filter((name) => name.startsWith(prefix));
  }

  /** Calls Qdrant, again after a short wait when it fails for a reason worth another try (network, 5xx, 429). */
  private async retry<T>(call: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (err) {
        const status = (err as { status?: number }).status;
        const transient = status === undefined || status === 429 || status >= 500;
        if (!transient || attempt >= RETRIES) throw err;
        await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
      }
    }
  }
}
