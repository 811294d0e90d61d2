import assert from 'node:assert/strict';
import type { Database } from '../../core/db/database.js';
import { migrate } from '../../core/db/migrator.js';
import { openPgliteDatabase } from '../../core/db/pglite.database.js';
import { LexemeFrequencies, MAX_MATCH_FREQUENCY, keywordSearch, matchQuery } from '../../core/search/search.repository.js';
import { type TestApp, createTenant, ingest, startTestApp } from '../support/app.js';

describe('keyword search: which rows are ranked', () => {
  it('matches on rare words, else on the two rarest words together', () => {
    const word = (lexemes: string[], frequency: number) => ({ lexemes, frequency });
    assert.equal(matchQuery([word(['print', 'printer'], 0.4), word(['zyxel'], 0.001)]), "'zyxel'");
    assert.equal(matchQuery([word(['a'], 0.3), word(['b'], 0.2), word(['c', 'cc'], 0.1)]), "('c' | 'cc') & ('b')");
    assert.equal(matchQuery([word(['only'], 0.9)]), "('only')");
    assert.equal(matchQuery([word(["it's"], 0)]), "'it''s'", 'quotes are escaped');
    assert.ok(MAX_MATCH_FREQUENCY > 0 && MAX_MATCH_FREQUENCY < 1);
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
      const printer = (await frequencies.of('chunks')).get('printer');
      assert.equal(printer, 1, 'every chunk holds "printer"');
      assert.equal((await new LexemeFrequencies(db).of('platform_chunks')).size, 0, 'no corpus chunks, no statistics');
    });

    it('falls back to every word when the two rarest common words never meet', async () => {
      const together = await keywordSearch(db, { filter, query: 'printer ink', configs, limit: 50, frequencies });
      assert.equal(together.length, 3, 'the two rarest common words, together');
      const apart = await keywordSearch(db, { filter, query: 'ink toner', configs, limit: 50, frequencies });
      assert.equal(apart.length, 7, 'never together: either word');
    });
  });
});
