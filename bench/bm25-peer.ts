/**
 * A plain BM25 library as a peer for the retrieval-quality bench: MiniSearch (BM25+, k 1.2, b 0.7,
 * d 0.5, times the number of query words matched) over exactly the chunks Lore indexed, read back
 * from the bench database's chunk table, so both rank the same texts.
 *
 * Set up as a user would: every chunk a document with its document's title and its text as fields
 * of equal weight (or the text alone, which is all Lore's keyword index holds), query words OR-ed,
 * no prefix or fuzzy matching. Words are runs of Unicode letters, marks and digits, lower-cased;
 * everything else (punctuation, symbols, spaces) separates them. No stemming and no stop words:
 * MiniSearch ships neither, and a per-language stemmer would be another dependency to choose and
 * tune; IDF discounts frequent words anyway. Lore's keyword search stems (PostgreSQL's snowball
 * configurations), so where the peer still wins, stemming is not the reason.
 */
import MiniSearch from 'minisearch';
import type { Queryable } from '../core/db/database.js';

/** The fields a peer indexes: the document title (repeated on each chunk) and the chunk's text. */
export type PeerField = 'title' | 'content';

interface PeerChunk {
  id: string;
  title: string;
  content: string;
}

const NOT_A_WORD = /[^\p{L}\p{M}\p{N}]+/u;

export interface Bm25Peer {
  /** Chunk ids, best first, at most `limit`. */
  search(query: string, limit: number): string[];
}

/**
 * Indexes the chunks of the knowledge base's ready documents (the ones Lore searches) in id order,
 * as Lore breaks ties by chunk id.
 */
export async function bm25Peer(db: Queryable, knowledgeBaseId: string, fields: readonly PeerField[]): Promise<Bm25Peer> {
  const { rows } = await db.query<PeerChunk>(
    `SELECT c.id, c.doc_title AS title, c.content FROM chunks c JOIN documents d ON d.id = c.document_id
     WHERE c.knowledge_base_id = $1 AND d.status = 'ready' ORDER BY c.id`,
    [knowledgeBaseId],
  );
  const index = new MiniSearch<PeerChunk>({
    fields: [...fields],
    tokenize: (text) => text.split(NOT_A_WORD),
    processTerm: (term) => term.toLowerCase() || null,
    searchOptions: { combineWith: 'OR' },
  });
  index.addAll(rows);
  return { search: (query, limit) => index.search(query).slice(0, limit).map((r) => r.id as string) };
}
