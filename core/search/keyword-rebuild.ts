import type { Database } from '../db/database.js';
import { advanceKeywordIndexGeneration } from '../instance/database-identity.repository.js';
import type { Decompounder } from '../ports/decompounder.js';
import { isLanguage } from '../translation/translation.service.js';
import { chunkKeywords } from './chunk-keywords.js';
import { type ChunkTable, rewriteChunkKeywords, storedChunksAfter } from './keyword-rebuild.repository.js';

/** What a rebuild read and rewrote, per table. */
export interface KeywordRebuildReport {
  chunks: number;
  rewritten: number;
  corpus_chunks: number;
  corpus_rewritten: number;
}

/**
 * Brings every stored chunk's keyword index (tsvector) to what ingestion writes today: keyword
 * search's analysis improves from release to release (compound parts, Bulgarian stems, slash-joined
 * words, accent folding), and a chunk is analysed when it is written, so chunks stored before an
 * improvement lack it until re-indexed. Tenants' chunks, then platform corpora's, in batches by id,
 * each batch one transaction; chunks written meanwhile are written as today already. The keyword
 * statistics follow every rewrite (their triggers), so BM25 stays exact throughout; a batch that
 * rewrote anything advances the keyword index generation, so no flat-index snapshot taken before
 * it is restored (a running server keeps the lexemes it loaded until it restarts). Running it again
 * rewrites nothing.
 */
export async function rebuildKeywordIndex(
  db: Database,
  decompounder: Decompounder,
  options: { batchSize?: number; onBatch?: (table: ChunkTable, read: number, rewritten: number) => void } = {},
): Promise<KeywordRebuildReport> {
  const batchSize = options.batchSize ?? 500;
  const counts = { chunks: [0, 0], platform_chunks: [0, 0] } satisfies Record<ChunkTable, [number, number]>;
  for (const table of ['chunks', 'platform_chunks'] as const) {
    let after: string | null = null;
    for (;;) {
      const rows = await storedChunksAfter(db, table, after, batchSize);
      if (!rows.length) break;
      after = rows[rows.length - 1]!.id;
      const keywords = rows.map((r) => chunkKeywords(decompounder, r.language && isLanguage(r.language) ? r.language : null, r.content, r.title ?? undefined));
      const rewritten = await db.transaction(async (tx) => {
        const n = await rewriteChunkKeywords(tx, table, rows.map((r) => r.id), keywords);
        if (n) await advanceKeywordIndexGeneration(tx);
        return n;
      });
      counts[table][0] += rows.length;
      counts[table][1] += rewritten;
      options.onBatch?.(table, counts[table][0], counts[table][1]);
    }
  }
  return { chunks: counts.chunks[0], rewritten: counts.chunks[1], corpus_chunks: counts.platform_chunks[0], corpus_rewritten: counts.platform_chunks[1] };
}
