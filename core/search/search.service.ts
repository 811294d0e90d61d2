import { setImmediate as nextTurn } from 'node:timers/promises';
import { LRUCache } from 'lru-cache';
import type { RequestContext } from '../context.js';
import type { Decompounder } from '../ports/decompounder.js';
import { corpusNotAvailableOnPlan, duaNotAccepted, isSearchable } from '../corpora/corpus-access.js';
import { type TenantCorpusRow, corporaOfTenant } from '../corpora/corpus.repository.js';
import type { Database } from '../db/database.js';
import { ValidationError, errors } from '../errors.js';
import { type KnowledgeBaseRow, listKnowledgeBases } from '../knowledge-bases/knowledge-base.repository.js';
import type { Embedder } from '../ports/embedder.js';
import type { BilingualDictionary } from '../ports/translator.js';
import type { KeywordHit, KeywordIndex } from '../ports/keyword-index.js';
import type { VectorIndex } from '../ports/vector-index.js';
import { isUuid } from '../shared/ids.js';
import { type Scope, scopeOf } from '../shared/scope.js';
import { type DictionaryWords, MIN_LANGUAGE_SHARE } from '../translation/query-translation.service.js';
import { type Language, SUPPORTED_LANGUAGES } from '../translation/translation.schema.js';
import { BM25_PARAMETERS, type Bm25Parameters, Bm25Query, type KeywordStatistics, type WordForm, type WordForms, lexemesOf } from './bm25.js';
import type { ChunkFilter } from './chunk-filter.js';
import { SYNONYMS, type SynonymOptions, querySynonyms } from './synonyms.js';
import { type FusionOptions, DEFAULT_FUSION, reciprocalRankFusion } from './fusion.js';
import { type ChunkLexemes, chunkDetails, chunkLexemes, corpusChunkDetails, keywordRanking, keywordStatistics, queryLexemes, textsLexemes, textsLexemesIn } from './search.repository.js';
import { type ExpandedQuery, type FeedbackOptions, expandQuery } from './feedback.js';
import { keywordAnalysis } from './text-search-config.js';
import { tsvectorOccurrences, tsvectorPositions } from '../db/tsvector.js';
import { PROXIMITY, type ProximityOptions, proximityScore } from './proximity.js';
import type { QueryRequest, QueryResultItem } from './search.schema.js';

export interface SearchOptions {
  /** Which retrievers run: both fused (the product), or one alone (benchmarks compare them). */
  mode: 'hybrid' | 'vector' | 'keyword';
  /** The keyword ranking's parameters (BM25_PARAMETERS; benchmarks tune them). */
  bm25: Bm25Parameters;
  fusion: FusionOptions;
  /** Pseudo-relevance feedback for keyword search (core/search/feedback.ts); null: none. */
  feedback: FeedbackOptions | null;
  /** Keyword candidates re-ordered with term proximity (core/search/proximity.ts); null: by BM25F alone. */
  proximity: ProximityOptions | null;
  /** The query's words also found by their synonyms (core/search/synonyms.ts), where a dictionary is given; null: not. */
  synonyms: SynonymOptions | null;
  /**
   * The weight of the parts of a query's compound word that chunks hold (COMPOUND_PART_WEIGHT), as
   * a share of a word's own; 0: such words are not split (a compound no chunk holds always is).
   */
  compoundPartWeight: number;
  /** Each retriever contributes max(minCandidates, candidateFactor × top_k) candidates to fusion. */
  candidateFactor: number;
  minCandidates: number;
}

/**
 * The weight of a held compound's parts, chosen by `bench/retrieval-quality.bench.ts` on the two
 * tuning collections (German and Dutch, 0.15–0.6) and checked once on the held-back one
 * (docs/retrieval-quality.md, "Compound parts of words the chunks hold").
 */
export const COMPOUND_PART_WEIGHT = 0.3;

export const DEFAULT_SEARCH_OPTIONS: SearchOptions = {
  mode: 'hybrid',
  bm25: BM25_PARAMETERS,
  fusion: DEFAULT_FUSION,
  feedback: null,
  proximity: PROXIMITY,
  synonyms: SYNONYMS,
  compoundPartWeight: COMPOUND_PART_WEIGHT,
  candidateFactor: 3,
  minCandidates: 50,
};

/** The product's options for this embedder: the defaults, with the fusion measured for it if any. */
export function searchOptionsFor(embedder: Embedder): SearchOptions {
  return { ...DEFAULT_SEARCH_OPTIONS, fusion: embedder.fusion ?? DEFAULT_FUSION };
}

/** A search's results, best first, and the knowledge bases it searched (the caller's, as the request named them). */
export interface SearchAnswer {
  results: QueryResultItem[];
  /**
   * Per result, whether it matches the query: keyword search found it (it holds one of the query's
   * words), or the vector search did with an embedder of meaning. With the lexical embedder, a
   * result only its vector search returns is just the nearest of the rest, which every search
   * returns, matching or not.
   */
  matched: boolean[];
  knowledgeBases: KnowledgeBaseRow[];
}

export type ParsedFilters = Pick<ChunkFilter, 'tags' | 'createdAfter' | 'createdBefore' | 'titleContains'>;

/** Turns the request's `filters` object into a chunk filter; unknown keys and bad dates are 422. */
export function parseFilters(filters: Record<string, string> | undefined): ParsedFilters {
  const out: ParsedFilters = { tags: {} };
  const issues: Array<{ field: string; message: string }> = [];
  for (const [key, value] of Object.entries(filters ?? {})) {
    const field = `body.filters.${key}`;
    if (key.startsWith('tags.') && key.length > 5) out.tags[key.slice(5)] = value;
    else if (key === 'created_after' || key === 'created_before') {
      const date = /^\d{4}-\d{2}-\d{2}/.test(value) ? new Date(value) : new Date(NaN);
      if (Number.isNaN(date.getTime())) issues.push({ field, message: 'must be an ISO 8601 date or date-time' });
      else if (key === 'created_after') out.createdAfter = date;
      else out.createdBefore = date;
    } else if (key === 'document_title') out.titleContains = value;
    else issues.push({ field, message: 'unknown filter; use tags.<key>, created_after, created_before or document_title' });
  }
  if (issues.length) throw new ValidationError(issues);
  return out;
}

/** Platform chunk ids are kept apart from tenant chunk ids while the lists are fused. */
const CORPUS_PREFIX = 'p:';
const isCorpusChunk = (id: string) => id.startsWith(CORPUS_PREFIX);

/**
 * The same promise, marked as handled: work started ahead of the step that awaits it may be left
 * unawaited when the query fails first (an unknown knowledge base), and an unhandled rejection
 * would stop the process. Awaiting the returned promise still throws its error.
 */
function settled<T>(work: Promise<T>): Promise<T> {
  work.catch(() => undefined);
  return work;
}

function groupByDimensions(items: Array<{ id: string; dimensions: number }>): Map<number, string[]> {
  const groups = new Map<number, string[]>();
  for (const item of items) groups.set(item.dimensions, [...(groups.get(item.dimensions) ?? []), item.id]);
  return groups;
}

/**
 * Hybrid retrieval: vector search (per embedding dimension in use) and keyword search over the
 * same filtered chunk set, fused by reciprocal rank. Only chunks of fully indexed documents are
 * searchable; a deleted document's chunks are gone with it.
 *
 * The chunks of the platform corpora the tenant may search join both retrievers: each retriever's
 * tenant and corpus candidates are merged into one list by their raw score (cosine similarity of
 * the same query vector; the same text rank), and the two lists are then fused as before, so a
 * corpus passage ranks among the tenant's own chunks by relevance.
 */
export class SearchService {
  constructor(
    private readonly db: Database,
    private readonly embedder: Embedder,
    private readonly vectors: VectorIndex,
    private readonly keywords: KeywordIndex,
    private readonly decompounder: Decompounder,
    /** Where the query's words' synonyms come from (the catalogue dictionaries); null: none. */
    private readonly synonymDictionary: BilingualDictionary | null,
    private readonly options: SearchOptions = searchOptionsFor(embedder),
  ) {}

  /** Synonym texts' lexemes under their analysis (see `synonymLexemes`), the most recently used kept. */
  private readonly synonymLexemeCache = new LRUCache<string, string[]>({ max: SYNONYM_LEXEME_CACHE_ENTRIES });

  /** Which retrievers this service runs (the product: both, fused). */
  get mode(): SearchOptions['mode'] {
    return this.options.mode;
  }

  /** Checks a query's fields that the schema cannot (language, filters); throws before any work. */
  validate(request: QueryRequest): ParsedFilters {
    if (request.source_language !== 'auto' && !(SUPPORTED_LANGUAGES as readonly string[]).includes(request.source_language)) {
      throw errors.badRequest('unsupported_language', `source_language must be auto or one of ${SUPPORTED_LANGUAGES.join(', ')}.`);
    }
    return parseFilters(request.filters);
  }

  /**
   * Retrieval only: no quotas and no metering (QueryService adds those around it). A translated
   * query may come with its words as bilingual dictionaries translate them, one list per target
   * language (`dictionaries`): keyword search then also finds each word by any of its translations
   * (see `wordsOf`).
   */
  query(ctx: RequestContext, request: QueryRequest, dictionaries: readonly DictionaryWords[] = []): Promise<SearchAnswer> {
    return this.search(ctx, request, this.validate(request), dictionaries);
  }

  private async search(ctx: RequestContext, request: QueryRequest, filters: ParsedFilters, dictionaries: readonly DictionaryWords[]): Promise<SearchAnswer> {
    const scope = scopeOf(ctx);
    const { mode } = this.options;
    // What depends only on the query starts first and runs while the knowledge bases and the
    // corpora are read: its words (normalised by the database, whatever is searched), then, once
    // the knowledge bases' dimensions are known, its vector (an embedder over HTTP answers
    // meanwhile). A query that fails before awaiting them (an unknown knowledge base or corpus)
    // leaves them settled, not unhandled.
    const queryWordForms: Promise<WordForms[]> =
      mode === 'vector' ? Promise.resolve([]) : settled(this.wordsOf(request.query, dictionaries));
    const queryVectors = new Map<number, Promise<Float32Array>>();
    const queryVector = (dimensions: number): Promise<Float32Array> => {
      let vector = queryVectors.get(dimensions);
      if (!vector) {
        vector = settled(this.embedder.embed([request.query], { dimensions, kind: 'query' }).then(([v]) => v!));
        queryVectors.set(dimensions, vector);
      }
      return vector;
    };
    const knowledgeBases = listKnowledgeBases(this.db, scope).then((visible) => {
      let kbs = visible;
      if (request.knowledge_base_ids) {
        const wanted = new Set(request.knowledge_base_ids);
        kbs = visible.filter((kb) => wanted.has(kb.id));
        const missing = request.knowledge_base_ids.find((id) => !isUuid(id) || !kbs.some((kb) => kb.id === id));
        if (missing !== undefined) throw errors.notFound('knowledge base');
      }
      if (mode !== 'keyword') for (const dimensions of groupByDimensions(kbs).keys()) void queryVector(dimensions);
      return kbs;
    });
    // Both read at once (on a server, two connections; the embedded engine takes them in turn),
    // their errors reported in this order whichever comes first: an unknown knowledge base first.
    const corporaToSearch = settled(this.corporaToSearch(ctx, request.corpora));
    const kbs = await knowledgeBases;
    const corpora = await corporaToSearch;
    if (!kbs.length && !corpora.length) return { results: [], matched: [], knowledgeBases: kbs };

    const limit = Math.max(this.options.minCandidates, this.options.candidateFactor * request.top_k);
    const baseFilter = { scope, ...filters };
    const corpusFilter = { metadata: request.metadata_filter ?? {}, embedder: this.embedder.id };
    const asCorpusHits = <T extends { chunkId: string }>(hits: T[]): T[] =>
      hits.map((h) => ({ ...h, chunkId: CORPUS_PREFIX + h.chunkId }));

    const searchVectors = async () =>
      (
        await Promise.all([
          ...[...groupByDimensions(kbs)].map(async ([dimensions, ids]) =>
            this.vectors.search({
              filter: { ...baseFilter, knowledgeBaseIds: ids, embedder: this.embedder.id },
              dimensions,
              vector: await queryVector(dimensions),
              limit,
            }),
          ),
          ...[...groupByDimensions(corpora)].map(async ([dimensions, ids]) =>
            asCorpusHits(
              await this.vectors.searchCorpora({
                filter: { ...corpusFilter, corpusIds: ids },
                dimensions,
                vector: await queryVector(dimensions),
                limit,
              }),
            ),
          ),
        ])
      )
        .flat()
        .sort((a, b) => b.similarity - a.similarity)
        .slice(0, limit);
    const kbIds = kbs.map((kb) => kb.id);
    const corpusIds = corpora.map((c) => c.id);
    // Term proximity re-orders a fixed number of BM25F's best, however many the query asks for, so
    // a shorter candidate list is always a prefix of a longer one.
    const { proximity } = this.options;
    const keywordDepth = proximity ? Math.max(limit, proximity.candidates) : limit;
    /** One keyword search of these words (weighed), with the statistics of the first side searched. */
    const keywordPass = async (words: WordForms[], statistics: KeywordStatistics, weights?: readonly number[]) => {
      // Each side ranks with the statistics of what it searches (the knowledge bases; the corpora).
      const kbRanking = new Bm25Query(words, statistics, this.options.bm25, weights);
      const lexemes = lexemesOf(words);
      return [
        ...(kbs.length
          ? await this.keywords.search({ words: lexemes, ranking: kbRanking, limit: keywordDepth, filter: { ...baseFilter, knowledgeBaseIds: kbIds } })
          : []),
        ...(corpora.length
          ? asCorpusHits(
              await this.keywords.searchCorpora({
                words: lexemes,
                ranking: kbs.length ? await keywordRanking(this.db, corpusIds, words, this.options.bm25, weights) : kbRanking,
                limit: keywordDepth,
                filter: { ...corpusFilter, corpusIds },
              }),
            )
          : []),
      ]
        .sort((a, b) => b.rank - a.rank)
        .slice(0, keywordDepth);
    };
    // The vector searches are sent once the query's vectors are there, and run off this thread (the
    // flat index's graph and scans on its worker; a database index on its own connection). The
    // keyword ranking, which the flat index does in memory on this thread, starts after they were
    // sent (a turn of the event loop later), not before: started first, it would hold the vectors'
    // arrival up and the two would run one after the other. Waiting costs nothing the answer does
    // not wait for anyway: it needs the vector searches, which need the vectors.
    const vectorsSent: Promise<unknown> =
      mode === 'hybrid'
        ? Promise.all([...groupByDimensions([...kbs, ...corpora]).keys()].map(queryVector)).then(
            () => nextTurn(),
            () => undefined,
          )
        : Promise.resolve();
    const searchKeywords = async () => {
      // Normalised once, by PostgreSQL, for both searches (compounds split against the first searched).
      const collectionIds = kbIds.length ? kbIds : corpusIds;
      const { words, statistics } = await this.queryWords(await queryWordForms, collectionIds);
      if (!words.length) return [];
      await vectorsSent;
      const first = await keywordPass(words, statistics);
      const ranked = await this.withFeedback(scope, words, first, collectionIds, corpusIds, keywordDepth, keywordPass);
      // Proximity needs two words: a query of one is not re-ordered (nor its chunks read).
      if (!proximity || words.length < 2) return ranked.slice(0, limit);
      const query = new Bm25Query(words, statistics, this.options.bm25);
      return (await this.byProximity(scope, ranked, query, corpusIds, proximity)).slice(0, limit);
    };
    // Both at once: the flat index scans on a worker thread (a database index on its own
    // connection) while the keyword search runs in the database or in memory.
    const [vectorHits, keywordHits] = await Promise.all([
      mode === 'keyword' ? [] : searchVectors(),
      mode === 'vector' ? [] : searchKeywords(),
    ]);

    const fused = reciprocalRankFusion(
      [vectorHits.map((h) => h.chunkId), keywordHits.map((h) => h.chunkId)],
      this.options.fusion,
    ).slice(0, request.top_k);
    const details = await chunkDetails(this.db, scopeOf(ctx), fused.filter((f) => !isCorpusChunk(f.id)).map((f) => f.id));
    const corpusDetails = await corpusChunkDetails(
      this.db,
      corpora.map((c) => c.id),
      fused.filter((f) => isCorpusChunk(f.id)).map((f) => f.id.slice(CORPUS_PREFIX.length)),
    );
    const keywordFound = new Set(keywordHits.map((h) => h.chunkId));
    const found = (id: string) => !this.embedder.lexical || keywordFound.has(id);
    const results: QueryResultItem[] = [];
    const matched: boolean[] = [];
    for (const { id, score } of fused) {
      if (isCorpusChunk(id)) {
        const p = corpusDetails.get(id.slice(CORPUS_PREFIX.length));
        if (!p) continue;
        results.push({ content: p.content, score, source: p.corpus, source_record_id: p.source_record_id, metadata: p.metadata });
        matched.push(found(id));
        continue;
      }
      const c = details.get(id);
      if (!c) continue;
      results.push({
        content: c.content,
        score,
        source: 'tenant',
        document_id: c.document_id,
        chunk_id: c.id,
        knowledge_base_id: c.knowledge_base_id,
        document_title: c.doc_title,
        chunk_index: c.chunk_index,
        document_tags: c.doc_tags,
      });
      matched.push(found(id));
    }
    return { results, matched, knowledgeBases: kbs };
  }

  /**
   * A query's words, each as its lexemes under every configuration and its synonyms' lexemes
   * (synonymLexemes, withSynonyms: forms weighing SynonymOptions.weight); with dictionaries' words, also
   * each dictionary word as all its translations' lexemes under the analysis of the language they
   * are in (its forms: a chunk holding any of them holds the word, as BM25F takes a word's best
   * form), in place of the query's words those lexemes already cover. So a translated query finds
   * "tabla" for "table" where the translation chose "mesa", and a translation that is wrong but
   * not rare in the knowledge base costs only as much as one form among the right one. A word
   * several dictionaries translate (a query searched in Spanish and English at once) is one word
   * with the forms of every language: a chunk in either ranks by the same word's best form.
   */
  private async wordsOf(query: string, dictionaries: readonly DictionaryWords[]): Promise<WordForms[]> {
    const used = dictionaries.filter((d) => d.words.length);
    const [own, synonyms, lexemes] = await Promise.all([
      queryLexemes(this.db, query),
      this.synonymLexemes(query),
      Promise.all(used.map((d) => textsLexemes(this.db, d.words.map((w) => w.translations.join(' ')), [keywordAnalysis(d.language)]))),
    ]);
    const words = withSynonyms(own, synonyms, this.options.synonyms?.weight ?? 0);
    if (!used.length) return words;
    // Per query word (as the dictionaries spell it), its translations' lexemes with the analyses that made them.
    const byWord = new Map<string, Map<string, Set<string>>>();
    const covered = new Set<string>();
    used.forEach((dictionary, i) => {
      const analysis = keywordAnalysis(dictionary.language);
      dictionary.words.forEach((word, j) => {
        const key = word.word.toLocaleLowerCase();
        const forms = byWord.get(key) ?? new Map<string, Set<string>>();
        byWord.set(key, forms);
        for (const { lexeme } of lexemes[i]![j]!.flat()) {
          forms.set(lexeme, (forms.get(lexeme) ?? new Set<string>()).add(analysis));
          covered.add(`${analysis}\0${lexeme}`);
        }
      });
    });
    const translated: WordForms[] = [...byWord.values()]
      .filter((forms) => forms.size)
      .map((forms) => [...forms].map(([lexeme, analyses]) => ({ lexeme, analyses: [...analyses] })));
    // A form of the query's own words is covered when a dictionary made the same lexeme under one of its analyses.
    return withTranslatedWords(words, translated, (f) => f.analyses?.some((a) => covered.has(`${a}\0${f.lexeme}`)) ?? false);
  }

  /**
   * The query's words' synonyms (querySynonyms), unless the options or the mode leave them out:
   * each word's and its synonyms' lexemes under their language's analysis, normalised in one
   * statement, but for those normalised for an earlier query (the cache holds the
   * SYNONYM_LEXEME_CACHE_ENTRIES used last).
   */
  private async synonymLexemes(query: string): Promise<SynonymForms[]> {
    if (!this.synonymDictionary || !this.options.synonyms || this.options.mode === 'vector') return [];
    const found = await querySynonyms(this.synonymDictionary, query, this.options.synonyms);
    const texts = found.flatMap((s) => [s.word, s.synonyms.join(' ')].map((text) => ({ text, analysis: keywordAnalysis(s.language) })));
    const keyOf = (t: { text: string; analysis: string }) => `${t.analysis}\0${t.text}`;
    // Taken before the statement, so what other queries add meanwhile cannot evict them.
    const known = new Map<string, string[]>();
    for (const text of texts) {
      const hit = this.synonymLexemeCache.get(keyOf(text));
      if (hit) known.set(keyOf(text), hit);
    }
    const missing = [...new Map(texts.filter((t) => !known.has(keyOf(t))).map((t) => [keyOf(t), t])).values()];
    (await textsLexemesIn(this.db, missing)).forEach((lexemes, i) => {
      known.set(keyOf(missing[i]!), lexemes);
      this.synonymLexemeCache.set(keyOf(missing[i]!), lexemes);
    });
    const lexemes = texts.map((t) => known.get(keyOf(t))!);
    return found.map((s, i) => ({ analysis: keywordAnalysis(s.language), word: lexemes[2 * i]!, synonyms: lexemes[2 * i + 1]! }));
  }

  /**
   * A query's words (each as its lexemes under every configuration) and their statistics over
   * `collectionIds`, with the parts of the words that are German or Dutch compounds as words of
   * their own (the decompounder's languages):
   * - A word none of the chunks holds ("Druckerwarteschlange" against "die Warteschlange des
   *   Druckers"): its parts weigh as the word would. Splitting every long word this way also split
   *   English ones ("database": "data", "base") and cost English queries 2.7 nDCG points on the
   *   LibreOffice help.
   * - A word some chunks hold ("Dateisystem"): its parts weigh `compoundPartWeight`, and count only
   *   in chunks of a splitting language that holds at least MIN_LANGUAGE_SHARE of the chunks
   *   searched, so a chunk holding the compound ranks first and one that says "System" alone still
   *   gains a little, and a query of an English knowledge base costs nothing more.
   */
  private async queryWords(asked: WordForms[], collectionIds: string[]): Promise<{ words: WordForms[]; statistics: KeywordStatistics }> {
    if (!asked.length) return { words: asked, statistics: { chunks: 0, chunksByAnalysis: new Map(), lexemes: 0, holding: new Map() } };
    const statistics = await keywordStatistics(this.db, collectionIds, lexemesOf(asked).flat());
    const words = synonymsOfSearchedLanguages(asked, statistics);
    const held = (forms: WordForms) => forms.some((f) => statistics.holding.has(f.lexeme));
    const weight = this.options.compoundPartWeight;
    // Held compounds are split only in the languages of at least MIN_LANGUAGE_SHARE of the chunks searched.
    const languages = this.decompounder.languages.filter(
      (l) => (statistics.chunksByAnalysis.get(keywordAnalysis(l)) ?? 0) >= MIN_LANGUAGE_SHARE * statistics.chunks,
    );
    const [whole, weighted] = await Promise.all([
      this.compoundParts(words.filter((forms) => !held(forms)).flatMap((forms) => forms.map((f) => f.lexeme)), this.decompounder.languages),
      weight > 0 && languages.length
        ? this.compoundParts(words.filter(held).flatMap((forms) => forms.filter((f) => f.weight === undefined).map((f) => f.lexeme)), languages)
        : [],
    ]);
    const key = (forms: WordForms) => forms.map((f) => f.lexeme).join(' ');
    const known = new Set(words.map(key));
    const added = whole.filter((forms) => !known.has(key(forms)));
    const taken = new Set(added.map(key));
    const splitting = new Set(languages.map((l) => keywordAnalysis(l)));
    for (const forms of weighted) {
      const part = forms.filter((f) => f.analyses?.some((a) => splitting.has(a))).map((f) => ({ ...f, weight }));
      if (!part.length || known.has(key(forms)) || taken.has(key(forms)) || taken.has(key(part))) continue;
      taken.add(key(part));
      added.push(part);
    }
    if (!added.length) return { words, statistics };
    const all = [...words, ...added];
    return { words: all, statistics: await keywordStatistics(this.db, collectionIds, lexemesOf(all).flat()) };
  }

  /** The words (each as its forms under every configuration) of the parts of these lexemes that are compounds in `languages`. */
  private async compoundParts(lexemes: readonly string[], languages: readonly Language[]): Promise<WordForms[]> {
    const parts = lexemes.length ? this.decompounder.parts(lexemes.join(' '), languages) : '';
    return parts ? queryLexemes(this.db, parts) : [];
  }

  /**
   * Pseudo-relevance feedback, when the options ask for it: the query again, expanded by its best
   * chunks' words. The first search's best chunk stays first, so feedback never costs precision at 1.
   */
  private async withFeedback(
    scope: Scope,
    words: WordForms[],
    first: KeywordHit[],
    collectionIds: string[],
    corpusIds: string[],
    limit: number,
    keywordPass: (words: WordForms[], statistics: KeywordStatistics, weights?: readonly number[]) => Promise<KeywordHit[]>,
  ): Promise<KeywordHit[]> {
    const { feedback } = this.options;
    if (!feedback || !first.length) return first;
    const expanded = await this.expandByFeedback(scope, words, first.slice(0, feedback.documents), corpusIds, feedback);
    if (!expanded) return first;
    const second = await keywordPass(expanded.words, await keywordStatistics(this.db, collectionIds, lexemesOf(expanded.words).flat()), expanded.weights);
    const top = first[0]!;
    return [{ ...top, rank: Math.max(top.rank, second[0]?.rank ?? 0) }, ...second.filter((h) => h.chunkId !== top.chunkId)].slice(0, limit);
  }

  /** Keyword hits, their first `options.candidates` re-ordered by BM25F score plus their query words' proximity. */
  private async byProximity(scope: Scope, hits: KeywordHit[], query: Bm25Query, corpusIds: string[], options: ProximityOptions): Promise<KeywordHit[]> {
    const best = hits.slice(0, options.candidates);
    if (best.length < 2) return hits;
    const found = await this.lexemesOfHits(scope, best, corpusIds);
    const lexemes = new Set(query.lexemes.map((l) => l.lexeme));
    const reordered = best
      .map((hit, i) => {
        const chunk = found.get(hit.chunkId);
        return { hit: { ...hit, rank: hit.rank + (chunk ? proximityScore(query, tsvectorPositions(chunk.tsv, lexemes), options) : 0) }, i };
      })
      .sort((a, b) => b.hit.rank - a.hit.rank || a.i - b.i)
      .map(({ hit }) => hit);
    return [...reordered, ...hits.slice(options.candidates)];
  }

  /** The language and tsvector of keyword hits (tenant chunks and corpus chunks alike), by hit id. */
  private async lexemesOfHits(scope: Scope, hits: KeywordHit[], corpusIds: string[]): Promise<Map<string, ChunkLexemes>> {
    const idOf = (hit: KeywordHit) => (isCorpusChunk(hit.chunkId) ? hit.chunkId.slice(CORPUS_PREFIX.length) : hit.chunkId);
    const found = await chunkLexemes(
      this.db,
      scope,
      hits.filter((h) => !isCorpusChunk(h.chunkId)).map(idOf),
      corpusIds,
      hits.filter((h) => isCorpusChunk(h.chunkId)).map(idOf),
    );
    const out = new Map<string, ChunkLexemes>();
    for (const hit of hits) {
      const chunk = found.get(idOf(hit));
      if (chunk) out.set(hit.chunkId, chunk);
    }
    return out;
  }

  /** The query expanded by the words of its best keyword hits (tenant chunks and corpus chunks alike). */
  private async expandByFeedback(
    scope: Scope,
    words: WordForms[],
    best: KeywordHit[],
    corpusIds: string[],
    feedback: FeedbackOptions,
  ): Promise<ExpandedQuery | null> {
    const found = await this.lexemesOfHits(scope, best, corpusIds);
    return expandQuery(
      words,
      best.flatMap((hit) => {
        const chunk = found.get(hit.chunkId);
        return chunk ? [{ score: hit.rank, analysis: keywordAnalysis(chunk.language), occurrences: tsvectorOccurrences(chunk.tsv) }] : [];
      }),
      feedback,
    );
  }

  /**
   * The corpora a query searches: by default every one the tenant's plan gives access to and whose
   * data-use agreement it accepted where one is required; `corpora` narrows that down ([] is none),
   * and naming one the tenant may not search is an error (404 unknown, 403 plan or agreement).
   */
  private async corporaToSearch(ctx: RequestContext, requested: string[] | undefined): Promise<TenantCorpusRow[]> {
    if (requested?.length === 0) return [];
    const all = await corporaOfTenant(this.db, scopeOf(ctx), ctx.tenant.plan);
    if (!requested) return all.filter((c) => isSearchable(c) && c.chunk_count > 0);
    const bySlug = new Map(all.map((c) => [c.slug, c]));
    const chosen = new Map<string, TenantCorpusRow>();
    for (const slug of requested) {
      const corpus = bySlug.get(slug);
      if (!corpus) throw errors.notFound('corpus');
      if (!corpus.accessible) throw corpusNotAvailableOnPlan(slug, ctx.tenant.plan);
      if (!isSearchable(corpus)) throw duaNotAccepted(slug);
      if (corpus.chunk_count > 0) chosen.set(corpus.id, corpus);
    }
    return [...chosen.values()];
  }
}

/**
 * How many synonym texts (a word, or its synonyms, under one language's analysis) a SearchService
 * keeps normalised: the same words recur across queries, and their lexemes depend only on the
 * text-search configurations, so a query whose words are all known skips the synonyms' statement.
 * A text is ~50 bytes with its lexemes: ~1 MB at most.
 */
export const SYNONYM_LEXEME_CACHE_ENTRIES = 20_000;

/** A query word's lexemes under one language's analysis, and its synonyms' lexemes under it. */
export interface SynonymForms {
  analysis: string;
  word: string[];
  synonyms: string[];
}

/**
 * The query's words with their synonyms' lexemes as further forms, each weighing `weight` of the
 * word and counting only for chunks of the synonym's language (its analysis): the query word is
 * the one holding the lexeme its language's analysis makes of the word the synonyms are of. A
 * lexeme the word already has stays as it is (the word's own form weighs fully).
 */
export function withSynonyms(words: readonly WordForms[], synonyms: readonly SynonymForms[], weight: number): WordForms[] {
  if (!synonyms.length || weight <= 0) return [...words];
  const out = words.map((forms) => [...forms]);
  for (const { analysis, word, synonyms: lexemes } of synonyms) {
    const target = out.find((forms) => forms.some((f) => word.includes(f.lexeme)));
    if (target) addForms(target, lexemes.map((lexeme) => ({ lexeme, analyses: [analysis], weight })));
  }
  return out;
}

/** Adds to a word's forms those whose lexeme it does not have yet (the word's own form keeps its weight). */
function addForms(target: WordForm[], forms: readonly WordForm[]): void {
  const have = new Set(target.map((f) => f.lexeme));
  for (const form of forms) {
    if (have.has(form.lexeme)) continue;
    have.add(form.lexeme);
    target.push(form);
  }
}

/**
 * A translated search's words: the dictionary words' (`translated`), then the query's own words no
 * dictionary word covers. A covered word's synonyms (its weighted forms) join the dictionary word
 * that covers it, so a translated query keeps them: "row" translated by the engine as "fila", and
 * by the dictionary as "fila" and "renglón", also finds the Spanish synonym "línea".
 */
export function withTranslatedWords(words: readonly WordForms[], translated: readonly WordForms[], isCovered: (form: WordForm) => boolean): WordForms[] {
  const out = translated.map((forms) => [...forms]);
  for (const forms of words) {
    const own = forms.find((f) => f.weight === undefined && isCovered(f));
    const target = own && out.find((t) => t.some((f) => f.lexeme === own.lexeme));
    if (target) addForms(target, forms.filter((f) => f.weight !== undefined));
  }
  return [...out, ...words.filter((forms) => !forms.some(isCovered))];
}

/**
 * The words without the synonym forms of languages that hold less than MIN_LANGUAGE_SHARE of the
 * searched chunks: a word is looked up in every language's dictionary, and a German query's words
 * that are English too ("Text", "Name") would otherwise bring English synonyms that match only a
 * German knowledge base's few English chunks.
 */
export function synonymsOfSearchedLanguages(words: readonly WordForms[], statistics: KeywordStatistics): WordForms[] {
  const searched = (analyses: readonly string[] | undefined) =>
    (analyses ?? []).some((a) => (statistics.chunksByAnalysis.get(a) ?? 0) >= MIN_LANGUAGE_SHARE * statistics.chunks);
  return words.map((forms) => forms.filter((f) => f.weight === undefined || searched(f.analyses)));
}
