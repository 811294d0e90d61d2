import assert from 'node:assert/strict';
import { pino } from 'pino';
import { FlatKeywordIndex } from '../../core/adapters/flat-index/flat.keyword-index.js';
import { FlatVectorIndex } from '../../core/adapters/flat-index/flat.vector-index.js';
import { KeywordPostings, runsOf } from '../../core/adapters/flat-index/keyword-postings.js';
import { PgVectorIndex } from '../../core/adapters/pgvector.vector-index.js';
import { PostgresKeywordIndex } from '../../core/adapters/postgres.keyword-index.js';
import type { Database } from '../../core/db/database.js';
import { tsvectorOccurrences } from '../../core/db/tsvector.js';
import { type ChunkFilter, chunkFilterSql } from '../../core/search/chunk-filter.js';
import { BM25_PARAMETERS, Bm25Query, type KeywordStatistics, lexemesOf, occurrences } from '../../core/search/bm25.js';
import { type KeywordTable, anyOf, rankedKeywordSql } from '../../core/search/search-sql.js';
import { postgresConfigs } from '../../core/search/text-search-config.js';
import { wordForms } from '../support/keywords.js';
import { keywordRanking, queryLexemes } from '../../core/search/search.repository.js';
import { seededRandom } from '../../core/shared/seeded-random.js';
import { SyntheticCorpus } from '../../bench/corpus.js';
import { type TestApp, client, createTenant, ingest, startTestApp } from '../support/app.js';
import { testDatabases } from '../support/databases.js';

const silent = pino({ level: 'silent' });
/** PostgreSQL's configurations that chunks are indexed with. */
const CONFIGS = postgresConfigs();

/** Statistics counted from rows of lexemes, as the database keeps them for a collection. */
function statisticsOf(rows: ReadonlyArray<readonly string[]>): KeywordStatistics {
  const holding = new Map<string, number>();
  for (const row of rows) for (const l of new Set(row)) holding.set(l, (holding.get(l) ?? 0) + 1);
  return { chunks: rows.length, chunksByAnalysis: new Map(), lexemes: rows.reduce((n, r) => n + new Set(r).size, 0), holding };
}

describe('keyword postings: BM25F', () => {
  it('ranks every accepted row holding a query word (a word: any of its lexemes), and leaves its scratch space clean', () => {
    const postings = new KeywordPostings();
    const rows = [['cat'], ['cat', 'dog'], ['dogs', 'cat'], ['dog'], ['bird', 'cat', 'dog'], ['fish']];
    rows.forEach((lexemes, row) => postings.add(row, new Map(lexemes.map((l) => [l, occurrences(0, 1)]))));
    const query = new Bm25Query(wordForms([['cat'], ['dog', 'dogs'], ['bird']]), statisticsOf(rows));
    const ranked = (accept: (row: number) => boolean = () => true) =>
      postings.rank(query, rows.length, 10, accept, (row) => String(row)).map((r) => r.row);
    const all = ranked();
    assert.deepEqual([...all].sort(), [0, 1, 2, 3, 4], 'every row holding a lexeme; not the fish');
    assert.equal(all[0], 4, 'the row holding all three words first');
    assert.deepEqual(ranked((row) => row % 2 === 0).sort(), [0, 2, 4], 'only accepted rows');
    assert.deepEqual(ranked(), all, 'the same again: nothing was left behind by the last search');
    assert.equal(postings.rowsHolding('cat'), 4);
  });

  it('lists owners\' rows as runs: ascending, adjacent runs merged, gaps kept', () => {
    assert.deepEqual(runsOf([[7, 8, 9], [0, 1], [2], [12], [4, 5, 10]]), { runs: Int32Array.of(0, 3, 4, 6, 7, 11, 12, 13), rows: 10 });
    assert.deepEqual(runsOf([]), { runs: new Int32Array(0), rows: 0 });
  });

  it('ranks alike to the last bit whether it walks every posting, leaves the common words unwalked (and does), or walks only the passing rows', () => {
    // Words of Zipf-like frequencies over 4,000 rows: the first in most rows, the last in a few.
    const random = seededRandom(7);
    const vocabulary = Array.from({ length: 120 }, (_, i) => `w${i}`);
    const rows: string[][] = [];
    const postings = new KeywordPostings();
    for (let row = 0; row < 4000; row++) {
      const terms = new Map<string, number>();
      for (let i = 0; i < vocabulary.length; i++) {
        if (random() < 0.6 / (1 + i / 3)) terms.set(vocabulary[i]!, occurrences(random() < 0.1 ? 1 : 0, 1 + Math.floor(random() * random() * 8)));
      }
      if (!terms.size) terms.set('w0', occurrences(0, 1));
      rows.push([...terms.keys()]);
      postings.add(row, terms);
    }
    const statistics = statisticsOf(rows);
    const pick = () => vocabulary[Math.floor(random() * random() * vocabulary.length)]!;
    let pruned = 0;
    let cases = 0;
    for (let q = 0; q < 300; q++) {
      // 2–6 words of 1–3 forms each (forms may repeat across words); feedback-style weights in some queries.
      const words = Array.from({ length: 2 + Math.floor(random() * 5) }, () => Array.from({ length: 1 + Math.floor(random() * 3) }, pick));
      const weights = random() < 0.2 ? words.map(() => 0.2 + random()) : undefined;
      const query = new Bm25Query(wordForms(words), statistics, BM25_PARAMETERS, weights);
      for (const limit of [1, 10, 50, 400]) {
        // Every row; rows apart (runs of one); runs of 50 rows (documents' chunks).
        for (const accept of [() => true, (row: number) => row % 3 === 0, (row: number) => row % 200 === 0, (row: number) => Math.floor(row / 50) % 7 === 2]) {
          const rowCount = random() < 0.2 ? 3000 : rows.length;
          const walked = postings.rankByWalking(query, rowCount, limit, accept, (row) => String(row).padStart(5, '0'));
          const everything = postings.entriesWalked;
          const ranked = postings.rank(query, rowCount, limit, accept, (row) => String(row).padStart(5, '0'));
          assert.deepEqual(ranked, walked, `query ${JSON.stringify(words)}, limit ${limit}`);
          cases++;
          if (postings.entriesWalked < everything) pruned++;
          // The postings walked only within the rows a filter passes (what a selective filter uses).
          const { runs } = runsOf([Array.from({ length: rowCount }, (_, row) => row).filter(accept)]);
          assert.deepEqual(postings.rankRuns(query, runs, limit, (row) => String(row).padStart(5, '0')), walked, `within the passing rows: ${JSON.stringify(words)}`);
        }
      }
    }
    // The comparison above would pass trivially if nothing were ever left unwalked.
    assert.ok(pruned > cases / 4, `common words left unwalked in ${pruned} of ${cases} rankings`);
    assert.deepEqual(postings.rank(new Bm25Query(wordForms([['w0'], ['w1']]), statistics), rows.length, 10, () => true, String).length, 10, 'scratch space left clean');
  });

  it("leaves a word's common form unwalked when its rare forms and the other words decide the top", () => {
    // 'print' (every row) and 'printing' (every 40th row) are forms of one query word, as a query
    // normalised in several languages has them; 'queue' is in every 10th row.
    const postings = new KeywordPostings();
    const rows: string[][] = [];
    for (let row = 0; row < 2000; row++) {
      const terms = new Map<string, number>([['print', occurrences(0, 1 + (row % 3))]]);
      if (row % 40 === 0) terms.set('printing', occurrences(row % 80 === 0 ? 1 : 0, 1));
      if (row % 10 === 0) terms.set('queue', occurrences(0, 1));
      terms.set(`filler${row % 7}`, occurrences(0, 2));
      rows.push([...terms.keys()]);
      postings.add(row, terms);
    }
    const statistics = statisticsOf(rows);
    for (const words of [[['print', 'printing']], [['print', 'printing'], ['queue']]]) {
      const query = new Bm25Query(wordForms(words), statistics);
      const walked = postings.rankByWalking(query, rows.length, 10, () => true, String);
      const everything = postings.entriesWalked;
      assert.deepEqual(postings.rank(query, rows.length, 10, () => true, String), walked, JSON.stringify(words));
      assert.ok(postings.entriesWalked < everything / 2, `${JSON.stringify(words)}: ${postings.entriesWalked} of ${everything} entries walked`);
    }
  });

  it('weighs rare words above common ones, discounts long rows, saturates repeats and counts a title holding the word (worked by hand)', () => {
    // Worked by hand from the formula (k1 1.2, b 0.75, title weight 2): 4 rows, 10 lexemes in all.
    const rows: Array<Array<[string, number]>> = [
      [['rare', occurrences(0, 1)], ['common', occurrences(0, 1)]],
      [['common', occurrences(0, 1)], ['x', occurrences(0, 1)], ['y', occurrences(0, 1)], ['z', occurrences(0, 1)]],
      [['common', occurrences(0, 3)], ['x', occurrences(0, 1)]],
      [['common', occurrences(1, 0)], ['y', occurrences(0, 1)]],
    ];
    const postings = new KeywordPostings();
    rows.forEach((terms, row) => postings.add(row, new Map(terms)));
    const query = new Bm25Query(wordForms([['rare'], ['common']]), statisticsOf(rows.map((r) => r.map(([l]) => l))), { k1: 1.2, b: 0.75, titleWeight: 2 });
    const idf = (holding: number) => Math.log(1 + (4 - holding + 0.5) / (holding + 0.5));
    const weight = (inText: number, length: number, inTitle = 0) => {
      const t = 2 * inTitle + inText / (0.25 + (0.75 / 2.5) * length);
      return (t * 2.2) / (1.2 + t);
    };
    const scores = postings.rank(query, rows.length, 10, () => true, (row) => String(row)).map((r) => [r.row, r.rank]);
    const want: Array<[number, number]> = [
      [0, idf(1) * weight(1, 2) + idf(4) * weight(1, 2)],
      [2, idf(4) * weight(3, 2)],
      [3, idf(4) * weight(0, 2, 1)],
      [1, idf(4) * weight(1, 4)],
    ];
    assert.equal(scores.length, 4);
    want.forEach(([row, rank], i) => {
      assert.equal(scores[i]![0], row, `row ${row} at place ${i + 1}`);
      assert.ok(Math.abs(scores[i]![1]! - rank) < 1e-12, `row ${row}: ${scores[i]![1]} against ${rank}`);
    });
    assert.ok(BM25_PARAMETERS.k1 > 0 && BM25_PARAMETERS.b >= 0 && BM25_PARAMETERS.b <= 1);
  });
});

for (const database of testDatabases()) {
  describe(`keyword index in memory [${database.name}]`, () => {
    let db: Database;

    before(async () => {
      db = await database.get();
    });

    it('reads PostgreSQL\'s tsvector text: quotes, backslashes, Cyrillic, repeated and capped positions', async () => {
      const texts = [
        "It's O'Brien's \\path\\to a\\'b and ''quoted'' words",
        'Котка котка КОТКА и куче; café naïve façade',
        `${'ping '.repeat(300)}pong`,
        'lone',
        '',
      ];
      for (const text of texts) {
        for (const config of ['simple', 'english']) {
          // As chunks are written: the title's lexemes with weight A, then the text's.
          const { rows } = await db.query<{ tsv: string; occ: Record<string, [number, number]> | null }>(
            `WITH v AS (SELECT setweight(to_tsvector($2::regconfig, $3), 'A') || to_tsvector($2::regconfig, $1) AS tsv)
             SELECT v.tsv::text AS tsv,
                    (SELECT json_object_agg(lexeme, json_build_array(cardinality(array_positions(weights, 'A')), cardinality(positions))) FROM unnest(v.tsv)) AS occ
             FROM v`,
            [text, config, text.split(' ').slice(0, 2).join(' ')],
          );
          const want = new Map(Object.entries(rows[0]!.occ ?? {}).map(([l, [inTitle, all]]) => [l, occurrences(inTitle, all - inTitle)]));
          assert.deepEqual(tsvectorOccurrences(rows[0]!.tsv), want, `${config}: ${text}`);
        }
      }
      assert.equal(tsvectorOccurrences("'ping':1A,2,3,4").get('ping'), occurrences(1, 3), 'a title position and three of the text');
      assert.equal(tsvectorOccurrences("'ping':1A,2A").get('ping'), occurrences(1, 0), 'a title counts once');
      assert.equal(tsvectorOccurrences("'bare' 'x':1").get('bare'), occurrences(0, 1), 'a lexeme without positions counts once, in the text');
      assert.throws(() => tsvectorOccurrences("'open"), /unterminated/);
    });

    it('ranks exactly as the database ranks by BM25F, to the same float8, ties by id', async function () {
      this.timeout(60_000);
      const corpus = new SyntheticCorpus({ seed: 5, topics: 6, terms: 120 });
      const random = seededRandom(9);
      await db.exec('CREATE TEMP TABLE rank_check (id uuid PRIMARY KEY, tsv tsvector NOT NULL)');
      try {
        const ids: string[] = [];
        for (let i = 0; i < 300; i++) {
          const doc = corpus.document(i);
          // Repeats make occurrence counts differ; several configurations, as chunks of several languages; titles on most.
          const text = `${doc.content} ${doc.title.split(' ')[0]!.repeat(i % 4)}`;
          const config = CONFIGS[i % CONFIGS.length]!;
          const { rows } = await db.query<{ id: string }>(
            `INSERT INTO rank_check (id, tsv) VALUES (gen_random_uuid(), setweight(to_tsvector($2::regconfig, $3), 'A') || to_tsvector($2::regconfig, $1)) RETURNING id`,
            [text, config, i % 5 ? doc.title : ''],
          );
          ids.push(rows[0]!.id);
        }
        const { rows } = await db.query<{ id: string; tsv: string }>('SELECT id, tsv::text AS tsv FROM rank_check');
        const row = new Map(ids.map((id, i) => [id, i]));
        const postings = new KeywordPostings();
        const byRow = [...rows].sort((a, b) => row.get(a.id)! - row.get(b.id)!);
        byRow.forEach((r, i) => postings.add(i, tsvectorOccurrences(r.tsv)));
        const lexemes = [...new Set(byRow.flatMap((r) => [...tsvectorOccurrences(r.tsv).keys()]))].sort();
        const { rows: counted } = await db.query<{ lexeme: string | null; n: number }>(
          `SELECT NULL AS lexeme, sum(length(tsv))::int AS n FROM rank_check
           UNION ALL SELECT u.lexeme, count(*)::int FROM rank_check, unnest(tsv) u GROUP BY u.lexeme`,
        );
        const statistics: KeywordStatistics = {
          chunks: byRow.length,
          chunksByAnalysis: new Map([['english', Math.floor(byRow.length / 2)], ['simple', Math.floor(byRow.length / 4)]]),
          lexemes: counted.find((c) => c.lexeme === null)!.n,
          holding: new Map(counted.filter((c) => c.lexeme !== null).map((c) => [c.lexeme!, c.n])),
        };
        let compared = 0;
        for (let q = 0; q < 40; q++) {
          // Words of one to three lexemes (a word's forms), one of them sometimes held by no row;
          // a form made by every configuration, or by some (so counted among fewer chunks).
          const analyses = [undefined, ['english'], ['simple'], ['english', 'simple'], ['french']];
          const words = Array.from({ length: 1 + (q % 5) }, () =>
            Array.from({ length: 1 + Math.floor(random() * 3) }, () => ({
              lexeme: random() < 0.1 ? 'nowhere' : lexemes[Math.floor(random() * lexemes.length)]!,
              ...(({ analyses: analyses[Math.floor(random() * analyses.length)] }) as { analyses?: string[] }),
            })),
          );
          const ranking = new Bm25Query(words, statistics);
          const statement = rankedKeywordSql({ table: 'rank_check' as KeywordTable, match: anyOf(lexemesOf(words).flat()), ranking, where: () => 'true', limit: 25 });
          const { rows: want } = await db.query<{ id: string; rank: number }>(statement.text, statement.values);
          const got = postings.rank(ranking, byRow.length, 25, () => true, (r) => byRow[r]!.id);
          assert.deepEqual(
            got.map((g) => ({ id: byRow[g.row]!.id, rank: g.rank })),
            want.map((w) => ({ id: w.id, rank: Number(w.rank) })),
            JSON.stringify(words),
          );
          // Walked within runs (a selective filter's way), here one run of every row: the same.
          const withinRuns = postings.rankRuns(ranking, runsOf([...byRow.keys()].map((row) => [row])).runs, 25, (r) => byRow[r]!.id);
          assert.deepEqual(withinRuns, got, `within runs: ${JSON.stringify(words)}`);
          compared += want.length;
        }
        assert.ok(compared > 200, `too few rows compared: ${compared}`);
      } finally {
        await db.exec('DROP TABLE rank_check');
      }
    });

    describe('over the flat index, against the database search', () => {
      let app: TestApp;
      let index: FlatVectorIndex;
      let flat: FlatKeywordIndex;
      let tenant: { id: string; key: string };
      let kb: string;
      const documents: Array<{ id: string; team: string }> = [];
      const corpus = new SyntheticCorpus({ seed: 8, topics: 8, terms: 200 });
      const filter = (extra: Partial<ChunkFilter> = {}): ChunkFilter => ({
        scope: { tenantId: tenant.id, subTenantId: null },
        knowledgeBaseIds: [kb],
        tags: {},
        ...extra,
      });
      /** The in-memory answer, and what it claims to equal: the database's BM25F over every row holding a query word. */
      const both = async (query: string, f: ChunkFilter, limit = 20) => {
        const words = await queryLexemes(db, query);
        const ranking = await keywordRanking(db, [kb], words);
        const got = await flat.search({ words: lexemesOf(words), ranking, limit, filter: f });
        // Every row holding a query word, ranked by the database's statement.
        const statement = rankedKeywordSql({ table: 'chunks', match: anyOf(lexemesOf(words).flat()), ranking, where: (p) => chunkFilterSql(f, p), limit });
        const { rows } = await db.query<{ id: string; rank: number }>(statement.text, statement.values);
        return { got, want: rows.map((r) => ({ chunkId: r.id, rank: Number(r.rank) })) };
      };

      before(async function () {
        this.timeout(120_000);
        app = await startTestApp(db);
        tenant = await createTenant(app, 'enterprise');
        kb = (await client(app.url, tenant.key)('POST', '/v1/knowledge-bases', { name: 'words', dimensions: 64 })).body.id;
        for (let i = 0; i < 30; i++) {
          const doc = corpus.document(i);
          const team = i % 3 ? 'ops' : 'legal';
          const { documentId } = await ingest(app, tenant.key, { knowledge_base_id: kb, title: doc.title, content: doc.content, tags: { team } });
          documents.push({ id: documentId, team });
        }
        // An index of its own, loaded from the tables as at start-up (the app's was told of each document).
        index = new FlatVectorIndex(db, app.services.adapters.embedder.id, new PgVectorIndex(db, { graphs: false }), silent, { threads: 1 });
        await index.start();
        await index.loaded;
        flat = new FlatKeywordIndex(index, new PostgresKeywordIndex(db));
      });

      after(async () => {
        await index?.close();
        await app?.close();
      });

      it('is the search the embedded app runs, and ranks chunks as the database does', async () => {
        assert.equal(app.services.adapters.keywordIndex.kind, database.name === 'pglite' ? 'flat' : 'postgres');
        assert.ok(index.servesKeywords);
        let found = 0;
        for (let i = 0; i < 12; i++) {
          const { got, want } = await both(corpus.query(i, i % 30), filter());
          assert.deepEqual(got, want);
          found += got.length;
        }
        assert.ok(found > 50, `the queries found too little to compare: ${found}`);
      });

      it('ranks every chunk holding a query word: a rare word does not hide the chunks holding only the others', async () => {
        const rare = await ingest(app, tenant.key, { knowledge_base_id: kb, title: 'Zyxwvut', content: 'Zyxwvut appears here and nowhere else.' });
        await index.documentsIndexed([{ id: rare.documentId }]);
        const { got, want } = await both(`zyxwvut ${corpus.query(3, 3)}`, filter(), 20);
        assert.deepEqual(got, want);
        assert.equal(got.length, 20, 'the limit is filled by chunks holding the other words');
        const { rows } = await db.query<{ id: string }>('SELECT id FROM chunks WHERE document_id = $1', [rare.documentId]);
        assert.ok(got.some((h) => h.chunkId === rows[0]!.id), 'the chunk holding the rare word among them');
        await client(app.url, tenant.key)('DELETE', `/v1/documents/${rare.documentId}`);
        await index.documentsRemoved([rare.documentId]);
      });

      it('applies filters inside the ranking, and never answers with another tenant\'s chunks', async () => {
        const query = corpus.query(2, 2);
        const legal = await both(query, filter({ tags: { team: 'legal' } }), 100);
        assert.ok(legal.got.length > 0);
        assert.deepEqual(legal.got, legal.want);
        const legalDocs = new Set(documents.filter((d) => d.team === 'legal').map((d) => d.id));
        const { rows } = await db.query<{ id: string; document_id: string }>('SELECT id, document_id FROM chunks WHERE knowledge_base_id = $1', [kb]);
        const docOf = new Map(rows.map((r) => [r.id, r.document_id]));
        assert.ok(legal.got.every((h) => legalDocs.has(docOf.get(h.chunkId)!)));
        assert.deepEqual((await both(query, filter({ createdBefore: new Date('2000-01-01') }))).got, []);
        const other = await createTenant(app, 'standard');
        assert.deepEqual((await both(query, filter({ scope: { tenantId: other.id, subTenantId: null } }))).got, []);
      });

      it('forgets a deleted document at once, and finds a new one once told', async () => {
        const victim = documents[4]!.id;
        const title = corpus.document(4).title;
        const chunksOf = async (documentId: string) =>
          (await db.query<{ id: string }>('SELECT id FROM chunks WHERE document_id = $1', [documentId])).rows.map((r) => r.id);
        const victimChunks = await chunksOf(victim);
        assert.ok((await both(title, filter(), 100)).got.some((h) => victimChunks.includes(h.chunkId)));
        assert.equal((await client(app.url, tenant.key)('DELETE', `/v1/documents/${victim}`)).status, 204);
        await index.documentsRemoved([victim]);
        assert.ok(!(await both(title, filter(), 100)).got.some((h) => victimChunks.includes(h.chunkId)));

        const added = await ingest(app, tenant.key, { knowledge_base_id: kb, title: 'Okapi', content: 'Quagga zebra okapi crossings.' });
        const top = async () => (await both('quagga okapi', filter(), 5)).got.map((h) => h.chunkId);
        assert.deepEqual(await top(), [], 'this index was not told yet');
        await index.documentsIndexed([{ id: added.documentId }]);
        assert.deepEqual(await top(), await chunksOf(added.documentId));
      });
    });
  });
}
