import assert from 'node:assert/strict';
import type { Database } from '../../core/db/database.js';
import { keywordStatistics } from '../../core/search/search.repository.js';
import { TEST_ADMIN_TOKEN, type TestApp, client, createTenant, ingest, startTestApp, waitForCorpusJob } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import { keywordStatisticsDrift } from '../support/keywords.js';

for (const database of testDatabases()) {
  describe(`keyword statistics [${database.name}]`, () => {
    let db: Database;
    let app: TestApp;

    before(async () => {
      db = await database.get();
      app = await startTestApp(db);
    });

    after(async () => {
      await app?.close();
    });

    const drift = () => keywordStatisticsDrift(db);

    it('are kept exact by every write: ingestion, deleting a document, a knowledge base, an account; loading and deleting corpus records', async function () {
      this.timeout(120_000);
      const a = await createTenant(app, 'enterprise');
      const b = await createTenant(app, 'standard');
      const apiA = client(app.url, a.key);
      const kbA1 = (await apiA('POST', '/v1/knowledge-bases', { name: 'one' })).body.id as string;
      const kbA2 = (await apiA('POST', '/v1/knowledge-bases', { name: 'two' })).body.id as string;
      const kbB = (await client(app.url, b.key)('POST', '/v1/knowledge-bases', { name: 'b' })).body.id as string;
      const text = (i: number) => `Glacier number ${i} calves icebergs into the fjord. ${'Moraine ridges. '.repeat(i)}`;
      const docsA: string[] = [];
      for (let i = 0; i < 4; i++) docsA.push((await ingest(app, a.key, { knowledge_base_id: i % 2 ? kbA2 : kbA1, title: `Glaciers ${i}`, content: text(i) })).documentId);
      await ingest(app, b.key, { knowledge_base_id: kbB, title: 'Glaciers', content: text(9) });
      await ingest(app, a.key, {
        knowledge_base_id: kbA2,
        title: 'Les glaciers',
        content: 'Le glacier vêle des icebergs dans le fjord, et les moraines dessinent les anciennes limites de la glace.',
      });
      assert.deepEqual(await drift(), [], 'after ingestion');

      // Per knowledge base: one tenant's chunks never count in another's figures, nor in its other knowledge base's.
      const glacier = await keywordStatistics(db, [kbB], ['glacier', 'moraine', 'nowhere']);
      assert.equal(glacier.chunks, 1);
      assert.equal(glacier.holding.get('glacier'), 1);
      assert.equal(glacier.holding.get('nowhere'), undefined);
      const both = await keywordStatistics(db, [kbA1, kbA2], ['glacier', 'glaciers']);
      assert.equal(both.chunks, 5);
      assert.deepEqual(both.chunksByAnalysis, new Map([['english', 4], ['french', 1]]), 'chunks per configuration of their language');
      assert.equal(both.holding.get('glacier'), 4, 'summed over the knowledge bases searched');
      const { rows } = await db.query<{ n: string }>('SELECT sum(length(tsv))::text AS n FROM chunks WHERE knowledge_base_id = ANY($1::uuid[])', [[kbA1, kbA2]]);
      assert.equal(both.lexemes, Number(rows[0]!.n));

      assert.equal((await apiA('DELETE', `/v1/documents/${docsA[0]}`)).status, 204);
      assert.deepEqual(await drift(), [], 'after deleting a document');
      assert.equal((await keywordStatistics(db, [kbA1], ['glacier'])).chunks, 1);

      // The API has no knowledge-base deletion; a tenant's or sub-tenant's deletion cascades to them, as here.
      await db.query('DELETE FROM knowledge_bases WHERE id = $1', [kbA2]);
      assert.deepEqual(await drift(), [], 'after deleting a knowledge base');
      assert.deepEqual(await keywordStatistics(db, [kbA2], ['glacier']), { chunks: 0, chunksByAnalysis: new Map(), lexemes: 0, holding: new Map() }, 'its rows are gone');

      const admin = client(app.url, TEST_ADMIN_TOKEN);
      const slug = `stats-${Date.now()}`;
      assert.equal((await admin('POST', '/internal/v1/corpora', { name: 'Stats', plans: ['standard'], slug })).status, 201);
      const loaded = await admin('POST', `/internal/v1/corpora/${slug}/records`, {
        records: [
          { source_record_id: 'r1', content: 'Fjords are glacial valleys flooded by the sea.' },
          { source_record_id: 'r2', content: 'Icebergs calve from tidewater glaciers.' },
        ],
      });
      assert.equal((await waitForCorpusJob(admin, slug, loaded.body.job_id)).status, 'completed');
      assert.deepEqual(await drift(), [], 'after loading corpus records');
      const replaced = await admin('POST', `/internal/v1/corpora/${slug}/records`, { records: [{ source_record_id: 'r1', content: 'Fjords again.' }] });
      assert.equal((await waitForCorpusJob(admin, slug, replaced.body.job_id)).status, 'completed');
      assert.equal((await admin('DELETE', `/internal/v1/corpora/${slug}/records/r2`)).status, 204);
      assert.deepEqual(await drift(), [], 'after replacing and deleting corpus records');
      assert.equal((await admin('DELETE', `/internal/v1/corpora/${slug}`)).status, 204);

      assert.equal((await apiA('DELETE', '/v1/account', undefined, { 'x-confirm-delete': 'DELETE_MY_ACCOUNT' })).status, 202);
      // The deletion may finish after the answer: wait for the tenant's chunks to go.
      for (let i = 0; i < 100; i++) {
        const left = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM chunks WHERE tenant_id = $1', [a.id]);
        if (left.rows[0]!.n === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.deepEqual(await drift(), [], 'after deleting an account and a corpus');
      assert.equal((await keywordStatistics(db, [kbA1], ['glacier'])).chunks, 0);
      assert.equal((await keywordStatistics(db, [kbB], ['glacier'])).chunks, 1, 'the other tenant keeps its figures');
    });
  });
}
