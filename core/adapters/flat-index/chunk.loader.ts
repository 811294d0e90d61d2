import type { Queryable, SqlParam } from '../../db/database.js';
import { EmbeddingReader } from '../../db/embeddings.js';
import { rowVersionSql } from '../../db/row-version.js';
import { tsvectorOccurrences } from '../../db/tsvector.js';
import type { KnownVectors } from '../../ports/vector-index.js';
import { turnEventLoop } from '../../shared/event-loop.js';
import type { IndexedDocument, IndexedRecord, SegmentChunk } from './segment.js';

/** A document's version (see rowVersionSql). */
const DOCUMENT_VERSION = rowVersionSql('d.updated_at');

/** A ready document read from the tables: its knowledge base's segment, and itself as that segment's owner. */
export interface LoadedDocument {
  knowledgeBaseId: string;
  dimensions: number;
  tenantId: string;
  subTenantId: string | null;
  owner: IndexedDocument;
}

/** A corpus record read from the tables: its corpus's segment, and itself as that segment's owner. */
export interface LoadedRecord {
  corpusId: string;
  dimensions: number;
  owner: IndexedRecord;
}

export interface ChunkLoaderOptions {
  /** Whether to read the chunks' lexemes too (and the lexemes of other embedders' chunks). */
  keywords: boolean;
  /** Rows read back from the database per round trip. */
  pageSize: number;
}

interface ChunkRow {
  id: string;
  owner: string;
  chunk_index: number;
  /** The vector as the database sends it (see EmbeddingReader), or null when the notifier passed it in or none is read. */
  e: unknown;
  /** The tsvector as text, when the index keeps keywords. */
  t: string | null;
}

/**
 * Reads the flat index's chunks from the chunk tables, for its segments: all of them at start-up,
 * and those of the documents and corpus records a notification names but did not carry.
 */
export class ChunkLoader {
  constructor(
    private readonly db: Queryable,
    private readonly embedderId: string,
    private readonly options: ChunkLoaderOptions,
  ) {}

  /**
   * Reads ready documents (all, or these) with their chunks, handing each document to `put` with
   * its chunks of the embedder in use, then (with keywords) again with its other embedders'
   * chunks (a new owner each time); returns the chunks read.
   */
  async documents(documentIds: string[] | null, put: (document: LoadedDocument, chunks: SegmentChunk[], otherEmbedder: boolean) => void): Promise<number> {
    const { rows: docs } = await this.db.query<{
      id: string;
      tenant_id: string;
      sub_tenant_id: string | null;
      knowledge_base_id: string;
      tags: Record<string, string>;
      created_at: Date;
      title: string;
      dimensions: number;
      version: string;
    }>(
      `SELECT d.id, d.tenant_id, d.sub_tenant_id, d.knowledge_base_id, d.tags, d.created_at, d.title, kb.dimensions, ${DOCUMENT_VERSION} AS version
       FROM documents d JOIN knowledge_bases kb ON kb.id = d.knowledge_base_id
       WHERE d.status = 'ready'${documentIds ? ' AND d.id = ANY($1::uuid[])' : ''}`,
      documentIds ? [documentIds] : [],
    );
    if (!docs.length) return 0;
    const byId = new Map(docs.map((d) => [d.id, d]));
    let read = 0;
    // With keywords, the chunks of other embedders too (their lexemes only).
    for (const otherEmbedder of this.options.keywords ? [false, true] : [false]) {
      const chunks = await this.readChunks(
        { table: 'chunks', owner: 'document_id', where: documentIds === null ? null : { sql: 'document_id = ANY($5::uuid[])', params: [documentIds] } },
        undefined,
        (owner) => byId.has(owner),
        otherEmbedder,
      );
      for (const [docId, list] of chunks) {
        const d = byId.get(docId)!;
        put(
          {
            knowledgeBaseId: d.knowledge_base_id,
            dimensions: d.dimensions,
            tenantId: d.tenant_id,
            subTenantId: d.sub_tenant_id,
            owner: { key: d.id, rows: [], subTenantId: d.sub_tenant_id, tags: d.tags, createdAt: new Date(d.created_at), title: d.title, version: d.version },
          },
          list,
          otherEmbedder,
        );
        read += list.length;
      }
    }
    return read;
  }

  /** Every ready document's id and version (a restored snapshot compares its own with them). */
  async readyDocuments(): Promise<Array<{ id: string; version: string }>> {
    const { rows } = await this.db.query<{ id: string; version: string }>(
      `SELECT id, ${DOCUMENT_VERSION} AS version FROM documents d WHERE status = 'ready'`,
    );
    return rows;
  }

  /** Every corpus record with chunks of the embedder in use, and its version. */
  async corpusRecords(): Promise<Array<{ corpusId: string; recordId: string; version: string }>> {
    const { rows } = await this.db.query<{ corpus_id: string; source_record_id: string; version: string }>(
      `SELECT corpus_id, source_record_id, ${rowVersionSql('max(created_at)')} AS version FROM platform_chunks
       WHERE embedder = $1 GROUP BY corpus_id, source_record_id`,
      [this.embedderId],
    );
    return rows.map((r) => ({ corpusId: r.corpus_id, recordId: r.source_record_id, version: r.version }));
  }

  /**
   * Reads corpus chunks of the embedder in use (all, or those of these records of one corpus),
   * handing each record to `put` with its chunks; returns the chunks read.
   */
  async records(
    corpusId: string | null,
    recordIds: string[] | null,
    known: KnownVectors | undefined,
    put: (record: LoadedRecord, chunks: SegmentChunk[]) => void,
  ): Promise<number> {
    const records = new Map<string, { corpusId: string; recordId: string; dimensions: number; metadata: Record<string, unknown>; version: string }>();
    // One chunk's metadata stands for its record's (every chunk of a record carries the record's).
    const { rows } = await this.db.query<{ corpus_id: string; source_record_id: string; dimensions: number; metadata: Record<string, unknown>; version: string }>(
      `SELECT DISTINCT ON (corpus_id, source_record_id) corpus_id, source_record_id, dimensions, metadata,
         ${rowVersionSql('max(created_at) OVER (PARTITION BY corpus_id, source_record_id)')} AS version
       FROM platform_chunks
       WHERE embedder = $1${corpusId ? ' AND corpus_id = $2 AND source_record_id = ANY($3::text[])' : ''}`,
      corpusId ? [this.embedderId, corpusId, recordIds ?? []] : [this.embedderId],
    );
    for (const r of rows) {
      records.set(`${r.corpus_id}/${r.source_record_id}`, { corpusId: r.corpus_id, recordId: r.source_record_id, dimensions: r.dimensions, metadata: r.metadata, version: r.version });
    }
    if (!records.size) return 0;
    const chunks = await this.readChunks(
      {
        table: 'platform_chunks',
        owner: "corpus_id::text || '/' || source_record_id",
        where: corpusId === null ? null : { sql: 'corpus_id = $5 AND source_record_id = ANY($6::text[])', params: [corpusId, recordIds ?? []] },
      },
      known,
      (owner) => records.has(owner),
    );
    for (const [key, list] of chunks) {
      const r = records.get(key)!;
      put({ corpusId: r.corpusId, dimensions: r.dimensions, owner: { key: r.recordId, rows: [], metadata: r.metadata, version: r.version } }, list);
    }
    return [...chunks.values()].reduce((n, list) => n + list.length, 0);
  }

  /**
   * This embedder's chunks of a table by owner (all, or these owners), in chunk order, with their
   * vectors (those in `known` as given, the others parsed from the database) and, when the index
   * keeps keywords, their lexemes, a page at a time. `otherEmbedders`: the chunks of every other
   * embedder instead, with their lexemes only.
   */
  private async readChunks(
    source: { table: 'chunks' | 'platform_chunks'; owner: string; where: { sql: string; params: SqlParam[] } | null },
    known: KnownVectors | undefined,
    wanted: (owner: string) => boolean,
    otherEmbedders = false,
  ): Promise<Map<string, SegmentChunk[]>> {
    const out = new Map<string, Array<SegmentChunk & { index: number }>>();
    const knownIds = known ? [...known.keys()] : [];
    const reader = await EmbeddingReader.of(this.db);
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const { rows } = await this.db.query<ChunkRow>(
        `SELECT id, ${source.owner} AS owner, chunk_index,
                CASE WHEN id = ANY($3::uuid[]) THEN NULL ELSE ${otherEmbedders ? 'NULL' : reader.select('embedding')} END AS e,
                ${this.options.keywords ? 'tsv::text' : 'NULL'} AS t
         FROM ${source.table} WHERE embedder ${otherEmbedders ? '<>' : '='} $1 AND id > $2::uuid${source.where ? ` AND ${source.where.sql}` : ''}
         ORDER BY id LIMIT $4`,
        [this.embedderId, after, knownIds, this.options.pageSize, ...(source.where?.params ?? [])],
      );
      for (const r of rows) {
        if (!wanted(r.owner)) continue;
        const vector = otherEmbedders ? undefined : r.e === null ? known?.get(r.id) : reader.parse(r.e);
        if (!vector && !otherEmbedders) continue;
        let list = out.get(r.owner);
        if (!list) out.set(r.owner, (list = []));
        list.push({ id: r.id, index: r.chunk_index, vector, terms: r.t === null ? undefined : tsvectorOccurrences(r.t) });
      }
      if (rows.length < this.options.pageSize) break;
      after = rows[rows.length - 1]!.id;
      // Without a turn between pages, a start-up load on PGlite kept every timer, file read and
      // HTTP request waiting until it was done (~34 s at 100k chunks).
      await turnEventLoop();
    }
    for (const list of out.values()) list.sort((a, b) => a.index - b.index);
    return out;
  }
}
