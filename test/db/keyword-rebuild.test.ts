import assert from 'node:assert/strict';
import type { Database } from '../../core/db/database.js';
import { readKeywordIndexGeneration } from '../../core/instance/database-identity.repository.js';
import { rebuildKeywordIndex } from '../../core/search/keyword-rebuild.js';
import { TEST_ADMIN_TOKEN, type TestApp, client, createTenant, ingest, startTestApp, waitForCorpusJob } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import { keywordStatisticsDrift } from '../support/keywords.js';

for (const database of testDatabases()) {
  describe(`keyword index rebuild [${database.name}]`, () => {
    let db: Database;
    let app: TestApp;

    before(async () => {
      db = await database.get();
      app = await startTestApp(db);
    });

    after(async () => {
      await app?.close();
    });

    const vectors = async (table: 'chunks' | 'platform_chunks', ids: readonly string[]) =>
      new Map(
        (await db.query<{ id: string; tsv: string }>(`SELECT id, tsv::text AS tsv FROM ${table} WHERE id = ANY($1::uuid[])`, [ids])).rows.map((r) => [
          r.id,
          r.tsv,
        ]),
      );

    it("brings chunks stored by an older analysis to what ingestion writes today, every tenant's and corpus's, with the statistics exact; a second run rewrites nothing", async function () {
      this.timeout(120_000);
      const a = await createTenant(app, 'standard');
      const b = await createTenant(app, 'standard');
      const kbA = (await client(app.url, a.key)('POST', '/v1/knowledge-bases', { name: 'ayuda' })).body.id as string;
      const kbB = (await client(app.url, b.key)('POST', '/v1/knowledge-bases', { name: 'hilfe' })).body.id as string;
      await ingest(app, a.key, { knowledge_base_id: kbA, title: 'Impresión', content: 'La configuración de la impresora se guarda con el documento y vale para cada página.' });
      await ingest(app, a.key, { knowledge_base_id: kbA, title: 'Filas', content: 'Inserte filas/columnas antes de la tabla con el menú Tabla.' });
      await ingest(app, b.key, { knowledge_base_id: kbB, title: 'Drucken', content: 'Die Druckerwarteschlange zeigt die Aufträge für jeden Drucker der Abteilung an.' });
      const admin = client(app.url, TEST_ADMIN_TOKEN);
      const slug = `rebuild-${Date.now()}`;
      assert.equal((await admin('POST', '/internal/v1/corpora', { name: 'Rebuild', plans: ['standard'], slug })).status, 201);
      const loaded = await admin('POST', `/internal/v1/corpora/${slug}/records`, {
        records: [{ source_record_id: 'r1', content: 'Sélectionnez un élément de la fenêtre, puis créez une copie avec le menu Édition.' }],
      });
      assert.equal((await waitForCorpusJob(admin, slug, loaded.body.job_id)).status, 'completed');

      const tenantChunks = (await db.query<{ id: string }>('SELECT id FROM chunks WHERE knowledge_base_id = ANY($1::uuid[])', [[kbA, kbB]])).rows.map((r) => r.id);
      const corpusChunks = (
        await db.query<{ id: string }>('SELECT pc.id FROM platform_chunks pc JOIN corpora co ON co.id = pc.corpus_id WHERE co.slug = $1', [slug])
      ).rows.map((r) => r.id);
      assert.equal(tenantChunks.length, 3);
      assert.equal(corpusChunks.length, 1);
      const written = { chunks: await vectors('chunks', tenantChunks), platform_chunks: await vectors('platform_chunks', corpusChunks) };

      // What an older release wrote: the title and the text under the language's configuration,
      // without folded spellings, slash-joined words' parts or compound parts (migration 0017's).
      const older = `coalesce((SELECT l.cfg FROM (VALUES ('es', 'spanish'), ('de', 'german'), ('fr', 'french')) AS l(language, cfg) WHERE l.language = t.language), 'simple')::regconfig`;
      await db.query(
        `UPDATE chunks t SET tsv = setweight(to_tsvector(${older}, t.doc_title), 'A') || to_tsvector(${older}, t.content) WHERE t.id = ANY($1::uuid[])`,
        [tenantChunks],
      );
      await db.query(`UPDATE platform_chunks t SET tsv = to_tsvector(${older}, t.content) WHERE t.id = ANY($1::uuid[])`, [corpusChunks]);
      const stale = await vectors('chunks', tenantChunks);
      for (const id of tenantChunks) assert.notEqual(stale.get(id), written.chunks.get(id), 'an older analysis differs from today\'s for every chunk here');
      assert.doesNotMatch(stale.get(tenantChunks[0]!)!, /'configuracion'/);
      assert.deepEqual(await keywordStatisticsDrift(db), [], 'the statistics follow the older analysis too');
      const generation = await readKeywordIndexGeneration(db);

      // Batches of two: chunks are read in id order across several batches (and tenants).
      const report = await rebuildKeywordIndex(db, app.services.adapters.decompounder, { batchSize: 2 });
      assert.deepEqual(await vectors('chunks', tenantChunks), written.chunks, "every tenant's chunks as ingestion wrote them");
      assert.deepEqual(await vectors('platform_chunks', corpusChunks), written.platform_chunks, "the corpus's chunk as corpus ingestion wrote it");
      // Other suites' chunks share this database (and a long-lived DATABASE_URL may hold chunks of
      // older releases), so these are the least the rebuild read and rewrote.
      assert.ok(report.rewritten >= tenantChunks.length && report.corpus_rewritten >= corpusChunks.length, JSON.stringify(report));
      assert.ok(report.chunks >= report.rewritten && report.corpus_chunks >= report.corpus_rewritten, JSON.stringify(report));
      assert.deepEqual(await keywordStatisticsDrift(db), [], 'the statistics follow the rewrite');
      const advanced = await readKeywordIndexGeneration(db);
      assert.ok(advanced > generation, 'the rewrite advanced the keyword index generation');

      const again = await rebuildKeywordIndex(db, app.services.adapters.decompounder);
      assert.deepEqual({ rewritten: again.rewritten, corpus_rewritten: again.corpus_rewritten }, { rewritten: 0, corpus_rewritten: 0 });
      assert.equal(again.chunks, report.chunks);
      assert.equal(await readKeywordIndexGeneration(db), advanced, 'nothing rewritten, the generation stays');
      // Corpora are shared by every tenant of their plans: this one must not reach later suites.
      assert.equal((await admin('DELETE', `/internal/v1/corpora/${slug}`)).status, 204);
    });
  });
}
