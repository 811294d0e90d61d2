import assert from 'node:assert/strict';
import { type TestApp, client, createTenant, ingest, startTestApp } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import { keywordDocuments } from '../support/keywords.js';
import { PROXIMITY } from '../../core/search/proximity.js';

for (const database of testDatabases()) {
  describe(`keyword search re-ranked: pseudo-relevance feedback, term proximity [${database.name}]`, () => {
    let app: TestApp;

    before(async function () {
      this.timeout(60_000);
      app = await startTestApp(await database.get());
    });

    after(async () => {
      await app?.close();
    });

    it('finds chunks sharing the best chunks\' words, keeps the best chunk first, and stays within the tenant', async function () {
      this.timeout(60_000);
      const t = await createTenant(app, 'standard');
      const kb = (await client(app.url, t.key)('POST', '/v1/knowledge-bases', { name: 'help' })).body.id as string;
      const named = await ingest(app, t.key, {
        knowledge_base_id: kb,
        title: 'Spooler',
        content: 'The spooler keeps the printer queue: waiting print jobs, their order and the paper tray each job uses.',
      });
      const related = await ingest(app, t.key, {
        knowledge_base_id: kb,
        title: 'Waiting jobs',
        content: 'Jobs waiting in the printer queue can be paused, reordered or cancelled before the paper tray is empty.',
      });
      await ingest(app, t.key, { knowledge_base_id: kb, title: 'Fonts', content: 'Fonts are installed per user and embedded in exported documents.' });
      // Another tenant's chunk shares those words too: never found, nor used as feedback.
      const other = await createTenant(app, 'standard');
      const otherKb = (await client(app.url, other.key)('POST', '/v1/knowledge-bases', { name: 'x' })).body.id as string;
      await ingest(app, other.key, { knowledge_base_id: otherKb, title: 'Queue', content: 'Printer queue jobs waiting for the paper tray.' });

      const without = await keywordDocuments(app, t.key, { feedback: null });
      const withFeedback = await keywordDocuments(app, t.key, { feedback: { documents: 3, terms: 10, queryWeight: 0.5 } });
      assert.deepEqual(await without('spooler'), [named.documentId], 'without feedback, only the chunk holding the word');
      assert.deepEqual(
        await withFeedback('spooler'),
        [named.documentId, related.documentId],
        'with feedback, the chunk sharing its words, after it; not the unrelated one, nor the other tenant\'s',
      );
    });

    it('ranks a chunk holding the query\'s words together above one holding them apart, and stays within the tenant', async function () {
      this.timeout(60_000);
      const t = await createTenant(app, 'standard');
      const kb = (await client(app.url, t.key)('POST', '/v1/knowledge-bases', { name: 'manuals' })).body.id as string;
      // The same words, but "apart" holds "directories" twice: BM25F alone ranks it first.
      const apart = await ingest(app, t.key, {
        knowledge_base_id: kb,
        title: 'Archive',
        content:
          'Copy the archive to the backup host each night. Old files are removed after a week. ' +
          'The directories of each user are kept; empty directories are removed too.',
      });
      const together = await ingest(app, t.key, {
        knowledge_base_id: kb,
        title: 'Mirror',
        content:
          'Copy files and directories from the mirror host to the local disk each night. ' +
          'The mirror keeps one week of snapshots, and the oldest snapshot is removed first.',
      });
      await ingest(app, t.key, { knowledge_base_id: kb, title: 'Fonts', content: 'Fonts are installed per user and embedded in exported documents.' });
      // Another tenant's chunk says it word for word: never found.
      const other = await createTenant(app, 'standard');
      const otherKb = (await client(app.url, other.key)('POST', '/v1/knowledge-bases', { name: 'x' })).body.id as string;
      await ingest(app, other.key, { knowledge_base_id: otherKb, title: 'Copy', content: 'Copy files and directories.' });

      const without = await keywordDocuments(app, t.key, { proximity: null });
      const withProximity = await keywordDocuments(app, t.key, { proximity: PROXIMITY });
      assert.deepEqual(await without('copy files and directories'), [apart.documentId, together.documentId], 'BM25F alone');
      assert.deepEqual(
        await withProximity('copy files and directories'),
        [together.documentId, apart.documentId],
        'with proximity, the chunk holding the words together first; not the unrelated one, nor the other tenant\'s',
      );
      const firstOnly = await keywordDocuments(app, t.key, { proximity: { ...PROXIMITY, candidates: 1 } });
      assert.deepEqual(await firstOnly('copy files and directories'), [apart.documentId, together.documentId], 'only BM25F\'s best re-ordered: the rest keep its order');
    });
  });
}
