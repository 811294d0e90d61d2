import type { Queryable } from '../db/database.js';
import type { ChunkKeywords } from './chunk-keywords.js';
import { keywordIndexColumns } from './search-sql.js';

/** The tables of indexed chunks: tenants' and platform corpora's. */
export type ChunkTable = 'chunks' | 'platform_chunks';

/** What a stored chunk's keyword index is built from: its text, its language, and (tenant chunks) its document's title. */
export interface StoredChunkText {
  id: string;
  content: string;
  language: string | null;
  title: string | null;
}

/** The next `limit` chunks of `table` by id after `afterId` (null: from the first). */
export async function storedChunksAfter(db: Queryable, table: ChunkTable, afterId: string | null, limit: number): Promise<StoredChunkText[]> {
  const title = table === 'chunks' ? 'doc_title' : 'NULL::text';
  // Two statements rather than `$1 IS NULL OR id > $1`, which a generic plan could not walk the key's index for.
  const { rows } = await db.query<StoredChunkText>(
    `SELECT id, content, language, ${title} AS title FROM ${table}
     ${afterId === null ? '' : 'WHERE id > $2::uuid'} ORDER BY id LIMIT $1`,
    afterId === null ? [Math.trunc(limit)] : [Math.trunc(limit), afterId],
  );
  return rows;
}

/**
 * Rewrites these chunks' keyword indexes from `keywords` (aligned with `ids`), as ingestion writes
 * them; a chunk whose index is already that is left alone (the statistics triggers see only the
 * rows changed). Returns how many were rewritten. A chunk deleted meanwhile is skipped.
 */
export async function rewriteChunkKeywords(db: Queryable, table: ChunkTable, ids: readonly string[], keywords: readonly ChunkKeywords[]): Promise<number> {
  const columns = keywordIndexColumns(keywords, table === 'chunks');
  const { rows } = await db.query<{ id: string }>(
    `UPDATE ${table} c SET tsv = n.tsv
     FROM (SELECT t.id, ${columns.tsvector} AS tsv
           FROM unnest($1::uuid[], ${columns.placeholders(2)}) AS t(id, ${columns.names})) n
     WHERE c.id = n.id AND c.tsv IS DISTINCT FROM n.tsv
     RETURNING c.id`,
    [ids, ...columns.values],
  );
  return rows.length;
}
