import assert from 'node:assert/strict';
import type { Database } from '../../core/db/database.js';
import { migrate } from '../../core/db/migrator.js';
import { openPgliteDatabase } from '../../core/db/pglite.database.js';
import { LexemeFrequencies, keywordSearch } from '../../core/adapters/postgres.keyword-index.js';
import { MATCH_ROW_BUDGET, MAX_MATCH_FREQUENCY, matchQueries } from '../../core/search/search-sql.js';
import { keywordRanking, queryLexemes } from '../../core/search/search.repository.js';
import { lexemesOf } from '../../core/search/bm25.js';
import { type TestApp, createTenant, ingest, startTestApp } from '../support/app.js';

describe('keyword search: which rows are ranked', () => {
  const word = (lexemes: string[], frequency: number) => ({ lexemes, frequency });
  const tsqueries = (...args: Parameters<typeof matchQueries>) => matchQueries(...args).map((m) => m.tsquery);

  it('tries the rare words, then the two rarest common words together, then either of the two rarest', () => {
    assert.deepEqual(tsqueries([word(['print', 'printer'], 0.4), word(['zyxel'], 0.001)]), ["'zyxel'", "'zyxel' | 'print' | 'printer'"]);
    assert.deepEqual(tsqueries([word(['a'], 0.3), word(['b'], 0.2), word(['c', 'cc'], 0.1)]), ["('c' | 'cc') & ('b')", "'c' | 'cc' | 'b'"]);
    assert.deepEqual(tsqueries([word(['only'], 0.9)]), ["'only'"]);
    assert.deepEqual(tsqueries([word(["it's"], 0)]), ["'it''s'"], 'quotes are escaped');
    assert.ok(matchQueries([word(['a'], 0.3), word(['b'], 0.2)]).every((m) => !m.narrowing), 'small tables are never narrowed');
    assert.ok(MAX_MATCH_FREQUENCY > 0 && MAX_MATCH_FREQUENCY < 1);
  });

  it('lets rare words select rows rarest first within a budget; words the statistics do not know are free', () => {
    const rows = (MATCH_ROW_BUDGET / 0.01) * 1.5; // a 1% word matches 1.5 budgets' worth of rows
    const words = [word(['b'], 0.01), word(['a'], 0.001), word(['c'], 0.02)];
    assert.equal(tsqueries(words, 1000)[0], "'a' | 'b' | 'c'", 'a small table: every rare word selects');
    assert.equal(tsqueries(words, rows)[0], "'a'", 'a large table: the rarest first; the next would pass the budget');
    assert.deepEqual(
      matchQueries([word(['c'], 0.02), word(['b'], 0.01)], rows),
      [
        { tsquery: "(('b') & ('c'))", narrowing: true },
        { tsquery: "'b'", narrowing: false },
        { tsquery: "'b' | 'c'", narrowing: false },
      ],
      'the rarest always selects, whatever it costs; past the budget, rows holding the two rarest words come first if they fill the limit',
    );
    assert.equal(tsqueries([word(['who'], 0), word(['c'], 0.02)], rows)[1], "'who' | 'c'", 'an unknown word does not take the rarest word\'s place');
    assert.equal(
      tsqueries([word(['d'], 0.3), word(['c'], 0.02), word(['b'], 0.01), word(['a'], 0.015)], rows)[0],
      "(('b') & ('a')) | (('b') & ('c')) | (('a') & ('c'))",
      'three words or more: rows holding two of the three rarest',
    );
    assert.ok(
      matchQueries([word(['c'], 0.02), word(['b'], 0.01)], rows, MATCH_ROW_BUDGET, false).every((m) => !m.narrowing),
      'a filtered search is not narrowed',
    );
  });

  describe('against planner statistics [pglite]', () => {
    let db: Database;
    let app: TestApp;
    let filter: Parameters<typeof keywordSearch>[1]['filter'];
    const configs = ['english', 'simple'];
    let frequencies: LexemeFrequencies;
    let kb: string;
    /** A query's words, and their ranking over the knowledge base. */
    const ranked = async (query: string, with_: readonly string[]) => {
      const words = await queryLexemes(db, query, with_);
      return { words: lexemesOf(words), ranking: await keywordRanking(db, [kb], words) };
    };

    before(async function () {
      this.timeout(120_000);
      // A database of its own: word frequencies are table-wide statistics.
      db = await openPgliteDatabase('memory://');
      await migrate(db);
      app = await startTestApp(db);
      const t = await createTenant(app, 'standard');
      kb = (await app.services.knowledgeBases.create({ tenantId: t.id, subTenantId: null }, { name: 'kb', dimensions: 64 })).id;
      // 45 chunks: "printer" in all, "zyxel" in 2 (4%: rare; "modem" with it in one), "ink" in 3 and "toner" in 4 (7% and 9%: common), never together.
      for (let i = 0; i < 45; i++) {
        const extra = i < 2 ? ` The zyxel ${i ? 'router' : 'modem'} needs firmware.` : i < 5 ? ' Ink cartridges.' : i < 9 ? ' Toner drum.' : '';
        await ingest(app, t.key, { knowledge_base_id: kb, title: `d${i}`, content: `Printer setup guide number ${i}.${extra}` });
      }
      await db.exec('ANALYZE chunks');
      frequencies = new LexemeFrequencies(db);
      filter = { scope: { tenantId: t.id, subTenantId: null }, knowledgeBaseIds: [kb], tags: {} };
    });

    after(async () => {
      await app?.close();
      await db?.close();
    });

    it('normalises each query word with every configuration given: an inflected form finds the stemmed chunks', async () => {
      const count = async (query: string, with_: readonly string[]) =>
        (await keywordSearch(db, { filter, ...(await ranked(query, with_)), limit: 50, frequencies })).length;
      assert.equal(await count('cartridge', configs), 3, "english stems 'cartridge' as the chunks' 'cartridges'");
      assert.equal(await count('cartridge', ['simple']), 0, 'unstemmed, the forms differ');
      assert.equal(await count('cartridge', []), 0, 'no configuration, no words');
      await assert.rejects(count('cartridge', ["english', w) --"]), /invalid text-search configuration/);
    });

    it('ranks only the chunks holding a rare word, by every word', async () => {
      const hits = await keywordSearch(db, { filter, ...(await ranked('printer zyxel', configs)), limit: 50, frequencies });
      assert.equal(hits.length, 2, 'printer is in every chunk: it ranks, it does not select');
      const all = await keywordSearch(db, { filter, ...(await ranked('printer', configs)), limit: 50, frequencies });
      assert.equal(all.length, 45, 'a query of common words still finds them');
    });

    it('reads word frequencies from the statistics, at most once per period', async () => {
      assert.equal(frequencies.of('chunks'), frequencies.of('chunks'), 'one read serves the period');
      const chunks = await frequencies.of('chunks');
      assert.equal(chunks.frequencies.get('printer'), 1, 'every chunk holds "printer"');
      assert.equal(chunks.rows, 45);
      assert.equal((await new LexemeFrequencies(db).of('platform_chunks')).frequencies.size, 0, 'no corpus chunks, no statistics');
    });

    it('past the row budget, ranks the rows holding the two rarest words when they fill the limit, else the rare words\' rows', async () => {
      let rankings = 0;
      const counting: Database = Object.assign(Object.create(db) as Database, {
        query: (sql: string, params?: never) => {
          if (sql.includes('ORDER BY rank DESC')) rankings += 1;
          return db.query(sql, params);
        },
      });
      const search = async (limit: number, matchRowBudget?: number) =>
        keywordSearch(counting, { filter, ...(await ranked('zyxel modem', configs)), limit, frequencies, matchRowBudget });
      const budget = async (limit: number, matchRowBudget?: number) => {
        rankings = 0;
        const hits = await search(limit, matchRowBudget);
        return { hits: hits.length, rankings };
      };
      assert.deepEqual(await budget(50), { hits: 2, rankings: 1 }, 'within the budget: the rare words select, in one ranking');
      assert.deepEqual(await budget(1, 1), { hits: 1, rankings: 1 }, 'past it, "zyxel & modem" fills a limit of 1');
      assert.deepEqual(await budget(50, 1), { hits: 1, rankings: 2 }, 'one row does not fill 50: the rarest word\'s rows are ranked');
      const [top] = await search(1, 1);
      assert.equal(top?.chunkId, (await search(50))[0]?.chunkId, 'the narrowing keeps the best match');
      rankings = 0;
      const since = new Date(0); // a filter that every chunk passes
      const hits = await keywordSearch(counting, { filter: { ...filter, createdAfter: since }, ...(await ranked('zyxel modem', configs)), limit: 50, frequencies, matchRowBudget: 1 });
      assert.deepEqual({ hits: hits.length, rankings }, { hits: 1, rankings: 1 }, 'a filtered search ranks the rare words\' rows at once');
    });

    it('falls back to either of the two rarest words when they never meet', async () => {
      const together = await keywordSearch(db, { filter, ...(await ranked('printer ink', configs)), limit: 50, frequencies });
      assert.equal(together.length, 3, 'the two rarest common words, together');
      const apart = await keywordSearch(db, { filter, ...(await ranked('ink toner', configs)), limit: 50, frequencies });
      assert.equal(apart.length, 7, 'never together: either word');
    });
  });
});
