import assert from 'node:assert/strict';
import type { Database } from '../../core/db/database.js';
import { migrate } from '../../core/db/migrator.js';
import { openPgliteDatabase } from '../../core/db/pglite.database.js';
import { LexemeFrequencies, MATCH_ROW_BUDGET, MAX_MATCH_FREQUENCY, keywordSearch, matchQueries } from '../../core/search/search.repository.js';
import { type TestApp, createTenant, ingest, startTestApp } from '../support/app.js';

describe('keyword search: which rows are ranked', () => {
  it('tries the rare words, then the two rarest common words together, then either of the two rarest', () => {
    const word = (lexemes: string[], frequency: number) => ({ lexemes, frequency });
    assert.deepEqual(matchQueries([word(['print', 'printer'], 0.4), word(['zyxel'], 0.001)]), ["'zyxel'", "'zyxel' | 'print' | 'printer'"]);
    assert.deepEqual(matchQueries([word(['a'], 0.3), word(['b'], 0.2), word(['c', 'cc'], 0.1)]), ["('c' | 'cc') & ('b')", "'c' | 'cc' | 'b'"]);
    assert.deepEqual(matchQueries([word(['only'], 0.9)]), ["'only'"]);
    assert.deepEqual(matchQueries([word(["it's"], 0)]), ["'it''s'"], 'quotes are escaped');
    assert.ok(MAX_MATCH_FREQUENCY > 0 && MAX_MATCH_FREQUENCY < 1);
  });

  it('lets rare words select rows rarest first within a budget; words the statistics do not know are free', () => {
    const word = (lexemes: string[], frequency: number) => ({ lexemes, frequency });
    const rows = (MATCH_ROW_BUDGET / 0.01) * 1.5; // a 1% word matches 1.5 budgets' worth of rows
    const words = [word(['b'], 0.01), word(['a'], 0.001), word(['c'], 0.02)];
    assert.equal(matchQueries(words, 1000)[0], "'a' | 'b' | 'c'", 'a small table: every rare word selects');
    assert.equal(matchQueries(words, rows)[0], "'a'", 'a large table: the rarest first; the next would pass the budget');
    assert.equal(matchQueries([word(['c'], 0.02), word(['b'], 0.01)], rows)[0], "'b'", 'the rarest always selects, whatever it costs');
    assert.equal(matchQueries([word(['who'], 0), word(['c'], 0.02)], rows)[0], "'who' | 'c'", 'an unknown word does not take the rarest word\'s place');
  });

  describe('against planner statistics [pglite]', () => {
    let db: Database;
    let app: TestApp;
    let filter: Parameters<typeof keywordSearch>[1]['filter'];
    const configs = ['english', 'simple'];
    let frequencies: LexemeFrequencies;

    before(async function () {
      this.timeout(120_000);
      // A database of its own: word frequencies are table-wide statistics.
      db = await openPgliteDatabase('memory://');
      await migrate(db);
      app = await startTestApp(db);
      const t = await createTenant(app, 'standard');
      const kb = (await app.services.knowledgeBases.create({ tenantId: t.id, subTenantId: null }, { name: 'kb', dimensions: 64 })).id;
      // 45 chunks: "printer" in all, "zyxel" in 2 (4%: rare), "ink" in 3 and "toner" in 4 (7% and 9%: common), never together.
      for (let i = 0; i < 45; i++) {
        const extra = i < 2 ? ' The zyxel modem needs firmware.' : i < 5 ? ' Ink cartridges.' : i < 9 ? ' Toner drum.' : '';
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

    it('ranks only the chunks holding a rare word, by every word', async () => {
      const hits = await keywordSearch(db, { filter, query: 'printer zyxel', configs, limit: 50, frequencies });
      assert.equal(hits.length, 2, 'printer is in every chunk: it ranks, it does not select');
      const all = await keywordSearch(db, { filter, query: 'printer', configs, limit: 50, frequencies });
      assert.equal(all.length, 45, 'a query of common words still finds them');
    });

    it('reads word frequencies from the statistics, at most once per period', async () => {
      assert.equal(frequencies.of('chunks'), frequencies.of('chunks'), 'one read serves the period');
      const chunks = await frequencies.of('chunks');
      assert.equal(chunks.frequencies.get('printer'), 1, 'every chunk holds "printer"');
      assert.equal(chunks.rows, 45);
      assert.equal((await new LexemeFrequencies(db).of('platform_chunks')).frequencies.size, 0, 'no corpus chunks, no statistics');
    });

    it('falls back to either of the two rarest words when they never meet', async () => {
      const together = await keywordSearch(db, { filter, query: 'printer ink', configs, limit: 50, frequencies });
      assert.equal(together.length, 3, 'the two rarest common words, together');
      const apart = await keywordSearch(db, { filter, query: 'ink toner', configs, limit: 50, frequencies });
      assert.equal(apart.length, 7, 'never together: either word');
    });
  });
});
