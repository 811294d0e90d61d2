import type { Queryable } from '../db/database.js';
import type { ChunkKeywords } from './chunk-keywords.js';
import { keywordTsvectorSql } from './search-sql.js';

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
  const titled = table === 'chunks';
  const tsv = keywordTsvectorSql({
    cfg: 't.cfg',
    text: 't.keyword_text',
    foldedText: { words: 't.accented_text', folded: 't.folded_text' },
    ...(titled ? { title: 't.keyword_title', foldedTitle: { words: 't.accented_title', folded: 't.folded_title' } } : {}),
  });
  const { rows } = await db.query<{ id: string }>(
    `UPDATE ${table} c SET tsv = n.tsv
     FROM (SELECT t.id, ${tsv} AS tsv
           FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
             AS t(id, cfg, keyword_text, keyword_title, accented_text, folded_text, accented_title, folded_title)) n
     WHERE c.id = n.id AND c.tsv IS DISTINCT FROM n.tsv
     RETURNING c.id`,
    [
      ids,
      keywords.map((k) => k.textSearchConfig),
      keywords.map((k) => k.text),
      keywords.map((k) => k.title ?? null),
      keywords.map((k) => k.foldedText.words.join(' ')),
      keywords.map((k) => k.foldedText.folded.join(' ')),
      keywords.map((k) => k.foldedTitle?.words.join(' ') ?? ''),
      keywords.map((k) => k.foldedTitle?.folded.join(' ') ?? ''),
    ],
  );
  return rows.length;
}
