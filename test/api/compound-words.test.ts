import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { WordListDecompounder } from '../../core/adapters/wordlist.decompounder.js';
import { type TestApp, client, createTenant, ingest, startTestApp } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import { keywordDocuments } from '../support/keywords.js';

/** A German word list of the parts below (Debian's `wngerman` is the real one; the test writes its own). */
const WORDS = ['Drucker', 'Warteschlange', 'Tabelle', 'Dokument', 'Vorlage'];

for (const database of testDatabases()) {
  describe(`keyword search of compound words [${database.name}]`, () => {
    let app: TestApp;
    let dir: string;

    before(async function () {
      this.timeout(60_000);
      dir = await mkdtemp(path.join(os.tmpdir(), 'lore-compounds-'));
      const list = path.join(dir, 'german');
      await writeFile(list, WORDS.join('\n'));
      app = await startTestApp(await database.get(), { adapters: { decompounder: new WordListDecompounder({ de: list }) } });
    });

    after(async () => {
      await app?.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('finds a German compound by its parts, and the parts by the compound; keyword search only, per tenant', async function () {
      this.timeout(60_000);
      const t = await createTenant(app, 'standard');
      const api = client(app.url, t.key);
      const kb = (await api('POST', '/v1/knowledge-bases', { name: 'hilfe' })).body.id as string;
      const compound = await ingest(app, t.key, {
        knowledge_base_id: kb,
        title: 'Hilfe zum Drucken',
        content: 'Die Druckerwarteschlange zeigt alle Aufträge, die noch gedruckt werden müssen, und erlaubt es, sie anzuhalten.',
      });
      const apart = await ingest(app, t.key, {
        knowledge_base_id: kb,
        title: 'Dokumente',
        content: 'Eine Tabellendokumentvorlage enthält Formatierungen und Inhalte, die für neue Dokumente übernommen werden.',
      });
      // Another tenant holds the same text: never among the first tenant's results.
      const other = await createTenant(app, 'standard');
      const otherKb = (await client(app.url, other.key)('POST', '/v1/knowledge-bases', { name: 'x' })).body.id as string;
      await ingest(app, other.key, { knowledge_base_id: otherKb, title: 'Drucker', content: 'Die Warteschlange des Druckers ist leer und wartet auf neue Aufträge.' });

      // Keyword search alone (vector search finds every chunk, compounds included, by their letters).
      const documentsFor = await keywordDocuments(app, t.key);
      assert.deepEqual(await documentsFor('Warteschlange'), [compound.documentId], 'a part finds the compound');
      assert.deepEqual(await documentsFor('Vorlage'), [apart.documentId]);
      assert.deepEqual(await documentsFor('Warteschlange des Druckers'), [compound.documentId], 'the parts, inflected, find it too');
      assert.equal((await documentsFor('Tabellendokumentvorlage'))[0], apart.documentId, 'the compound itself');
      // Over HTTP, the product's hybrid search: the document holding the word first, and only the tenant's own.
      const res = await api('POST', '/v1/query', { query: 'Warteschlange', top_k: 5 });
      assert.equal(res.status, 200);
      const ids = (res.body.results as Array<{ document_id: string }>).map((r) => r.document_id);
      assert.equal(ids[0], compound.documentId);
      assert.ok(ids.every((id) => id === compound.documentId || id === apart.documentId), 'only the tenant\'s own documents');
    });

    it('splits a compound the chunks hold too, its parts weighing less: the compound first, then its parts alone', async function () {
      this.timeout(60_000);
      const t = await createTenant(app, 'standard');
      const kb = (await client(app.url, t.key)('POST', '/v1/knowledge-bases', { name: 'hilfe' })).body.id as string;
      const compound = await ingest(app, t.key, {
        knowledge_base_id: kb,
        title: 'Hilfe zum Drucken',
        content: 'Die Druckerwarteschlange zeigt alle Aufträge, die noch gedruckt werden müssen.',
      });
      const part = await ingest(app, t.key, { knowledge_base_id: kb, title: 'Aufträge', content: 'Jede Warteschlange hält Aufträge in der Reihenfolge ihres Eingangs fest.' });
      await ingest(app, t.key, { knowledge_base_id: kb, title: 'Vorlagen', content: 'Eine Vorlage enthält Formatierungen für neue Dokumente.' });
      // Another tenant's chunk holds the part too: never among the first tenant's results.
      const other = await createTenant(app, 'standard');
      const otherKb = (await client(app.url, other.key)('POST', '/v1/knowledge-bases', { name: 'x' })).body.id as string;
      await ingest(app, other.key, { knowledge_base_id: otherKb, title: 'Drucker', content: 'Die Warteschlange des Druckers ist leer.' });

      const documentsFor = await keywordDocuments(app, t.key);
      assert.deepEqual(await documentsFor('Druckerwarteschlange'), [compound.documentId, part.documentId]);
      const unsplit = await keywordDocuments(app, t.key, { compoundPartWeight: 0 });
      assert.deepEqual(await unsplit('Druckerwarteschlange'), [compound.documentId], 'held compounds left whole, as before');
    });
  });
}
