/**
 * `--features FILE` of the retrieval-quality bench: for each query, every candidate chunk of the two
 * retrievers' first FEATURE_CANDIDATES with the features a learned second-stage ranking could
 * weigh, and whether its page is relevant; a JSON line a query (appended). bench/learn-ranking.ts
 * learns and cross-validates linear rankings over them.
 */
import type { Database } from '../core/db/database.js';
import { queryLexemes } from '../core/search/search.repository.js';
import type { RetrievalQuery } from './libreoffice-help.js';

export const FEATURE_CANDIDATES = 50;

export const FEATURE_NAMES = [
  'kw5', 'kw60', 'vec5', 'vec60', 'kwIn', 'vecIn',
  'cover', 'coverCount', 'allWords', 'coverTitle', 'exact', 'bigram',
  'first', 'position', 'docChunks', 'docKwHits', 'docBestOtherKw', 'length', 'surfaceBm25', 'exactTitle',
] as const;

const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const surfaceWords = (s: string): string[] => s.toLocaleLowerCase('und').match(WORD) ?? [];
const idfOf = (n: number, df: number): number => Math.log(1 + (n - df + 0.5) / (df + 0.5));

interface ChunkRow {
  id: string;
  document_id: string;
  chunk_index: number;
  content: string;
  title: string;
  tsv: string;
}

interface ChunkInfo {
  documentId: string;
  index: number;
  textLexemes: Set<string>;
  titleLexemes: Set<string>;
  surface: string[];
  surfaceSet: Set<string>;
  surfaceCounts: Map<string, number>;
  titleSurface: Set<string>;
  length: number;
}

/** Lexemes of a tsvector's text form, split into the title's (weight A) and the text's. */
function parseTsvector(tsv: string): { text: Set<string>; title: Set<string>; length: number } {
  const text = new Set<string>();
  const title = new Set<string>();
  let length = 0;
  for (const m of tsv.matchAll(/'((?:[^']|'')*)'(?::([0-9A-D,]+))?/g)) {
    const lexeme = m[1]!.replaceAll("''", "'");
    for (const p of (m[2] ?? '').split(',').filter(Boolean)) {
      length += 1;
      if (p.endsWith('A')) title.add(lexeme);
      else text.add(lexeme);
    }
  }
  return { text, title, length };
}

export class FeatureWriter {
  private constructor(
    private readonly db: Database,
    private readonly chunks: Map<string, ChunkInfo>,
    private readonly documentChunks: Map<string, number>,
    private readonly lexemeDf: Map<string, number>,
    private readonly surfaceDf: Map<string, number>,
    private readonly averageLength: number,
  ) {}

  static async load(db: Database, knowledgeBaseId: string): Promise<FeatureWriter> {
    const { rows } = await db.query<ChunkRow>(
      `SELECT c.id, c.document_id, c.chunk_index, c.content, d.title, c.tsv::text AS tsv
       FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.knowledge_base_id = $1`,
      [knowledgeBaseId],
    );
    const chunks = new Map<string, ChunkInfo>();
    const documentChunks = new Map<string, number>();
    const lexemeDf = new Map<string, number>();
    const surfaceDf = new Map<string, number>();
    for (const r of rows) {
      const { text, title, length } = parseTsvector(r.tsv);
      const surface = surfaceWords(r.content);
      const info: ChunkInfo = {
        documentId: r.document_id,
        index: r.chunk_index,
        textLexemes: text,
        titleLexemes: title,
        surface,
        surfaceSet: new Set(surface),
        surfaceCounts: surface.reduce((m, w) => m.set(w, (m.get(w) ?? 0) + 1), new Map<string, number>()),
        titleSurface: new Set(surfaceWords(r.title)),
        length,
      };
      chunks.set(r.id, info);
      documentChunks.set(r.document_id, (documentChunks.get(r.document_id) ?? 0) + 1);
      for (const l of new Set([...text, ...title])) lexemeDf.set(l, (lexemeDf.get(l) ?? 0) + 1);
      for (const w of new Set([...info.surfaceSet, ...info.titleSurface])) surfaceDf.set(w, (surfaceDf.get(w) ?? 0) + 1);
    }
    const averageLength = [...chunks.values()].reduce((s, c) => s + c.surface.length, 0) / (chunks.size || 1);
    return new FeatureWriter(db, chunks, documentChunks, lexemeDf, surfaceDf, averageLength);
  }

  /** One query's line: its candidates' features and pages. */
  async line(
    meta: Record<string, unknown>,
    q: RetrievalQuery,
    keyword: readonly string[],
    vector: readonly string[],
    pageOfChunk: ReadonlyMap<string, string>,
  ): Promise<string> {
    const n = this.chunks.size;
    const words = (await queryLexemes(this.db, q.query))
      .map((forms) => {
        const lexemes = forms.map((f) => f.lexeme).filter((l) => this.lexemeDf.has(l));
        const idf = Math.max(0, ...lexemes.map((l) => idfOf(n, this.lexemeDf.get(l)!)));
        return { lexemes, idf };
      })
      .filter((w) => w.lexemes.length > 0);
    const idfSum = words.reduce((s, w) => s + w.idf, 0) || 1;
    const surface = surfaceWords(q.query);
    const surfaceIdf = surface.map((w) => idfOf(n, this.surfaceDf.get(w) ?? 0));
    const surfaceIdfSum = surfaceIdf.reduce((s, x) => s + x, 0) || 1;
    const pairs = surface.slice(1).map((w, i) => `${surface[i]} ${w}`);

    const kw = keyword.slice(0, FEATURE_CANDIDATES);
    const vec = vector.slice(0, FEATURE_CANDIDATES);
    const kwRank = new Map(kw.map((id, i) => [id, i + 1]));
    const vecRank = new Map(vec.map((id, i) => [id, i + 1]));
    const ids = [...new Set([...kw, ...vec])];
    const kwHitsOfDocument = new Map<string, string[]>();
    for (const id of kw) {
      const d = this.chunks.get(id)!.documentId;
      const hits = kwHitsOfDocument.get(d);
      if (hits) hits.push(id);
      else kwHitsOfDocument.set(d, [id]);
    }
    // The peer's view: BM25 (k1 1.2, b 0.75) over unstemmed words of the text, plus the title's words as a field of their own.
    const surfaceBm25 = new Map(
      ids.map((id) => {
        const c = this.chunks.get(id)!;
        const norm = 1.2 * (0.25 + (0.75 * c.surface.length) / this.averageLength);
        const s = [...new Set(surface)].reduce((sum, w) => {
          const tf = c.surfaceCounts.get(w) ?? 0;
          const idf = idfOf(n, this.surfaceDf.get(w) ?? 0);
          return sum + (tf ? (idf * tf * 2.2) / (tf + norm) : 0) + (c.titleSurface.has(w) ? idf : 0);
        }, 0);
        return [id, s] as const;
      }),
    );
    const bestSurface = Math.max(1e-9, ...surfaceBm25.values());
    const candidates = ids.map((id) => {
      const c = this.chunks.get(id)!;
      const kr = kwRank.get(id);
      const vr = vecRank.get(id);
      const holds = (w: { lexemes: string[] }, set: Set<string>) => w.lexemes.some((l) => set.has(l));
      const matched = words.filter((w) => holds(w, c.textLexemes) || holds(w, c.titleLexemes));
      const inTitle = words.filter((w) => holds(w, c.titleLexemes));
      const exact = surface.reduce((s, w, i) => s + (c.surfaceSet.has(w) || c.titleSurface.has(w) ? surfaceIdf[i]! : 0), 0);
      let bigrams = 0;
      if (pairs.length) {
        const text = new Set(c.surface.slice(1).map((w, i) => `${c.surface[i]} ${w}`));
        bigrams = pairs.filter((p) => text.has(p)).length / pairs.length;
      }
      const others = (kwHitsOfDocument.get(c.documentId) ?? []).filter((o) => o !== id);
      const bestOther = others.length ? Math.max(...others.map((o) => 1 / (5 + kwRank.get(o)!))) : 0;
      const f = [
        kr ? 1 / (5 + kr) : 0,
        kr ? 1 / (60 + kr) : 0,
        vr ? 1 / (5 + vr) : 0,
        vr ? 1 / (60 + vr) : 0,
        kr ? 1 : 0,
        vr ? 1 : 0,
        matched.reduce((s, w) => s + w.idf, 0) / idfSum,
        words.length ? matched.length / words.length : 0,
        words.length && matched.length === words.length ? 1 : 0,
        inTitle.reduce((s, w) => s + w.idf, 0) / idfSum,
        exact / surfaceIdfSum,
        bigrams,
        c.index === 0 ? 1 : 0,
        1 / (1 + c.index),
        Math.log(1 + (this.documentChunks.get(c.documentId) ?? 1)),
        Math.log(1 + others.length),
        bestOther,
        Math.log(1 + c.length),
        surfaceBm25.get(id)! / bestSurface,
        surface.reduce((s, w, i) => s + (c.titleSurface.has(w) ? surfaceIdf[i]! : 0), 0) / surfaceIdfSum,
      ].map((x) => Math.round(x * 1e5) / 1e5);
      return { page: pageOfChunk.get(id)!, f };
    });
    return JSON.stringify({ ...meta, query: q.query, relevant: [...q.relevant], candidates });
  }
}
