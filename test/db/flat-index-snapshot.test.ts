import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { FlatVectorIndex, type FlatVectorIndexOptions } from '../../core/adapters/flat-index/flat.vector-index.js';
import { SnapshotStore } from '../../core/adapters/flat-index/snapshot.js';
import { DEFAULT_GRAPH_POLICY } from '../../core/adapters/flat-index/vector-graph.js';
import { LexicalEmbedder } from '../../core/adapters/lexical.embedder.js';
import { PgVectorIndex } from '../../core/adapters/pgvector.vector-index.js';
import type { Database } from '../../core/db/database.js';
import { migrate } from '../../core/db/migrator.js';
import { openPgliteDatabase } from '../../core/db/pglite.database.js';
import { advanceKeywordIndexGeneration, readDatabaseId } from '../../core/instance/database-identity.repository.js';
import type { ChunkFilter } from '../../core/search/chunk-filter.js';
import { keywordRanking } from '../../core/search/search.repository.js';
import { SyntheticCorpus } from '../../bench/corpus.js';
import { TEST_ADMIN_TOKEN, type TestApp, client, createTenant, ingest, startTestApp, waitForCorpusJob } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import { wordForms } from '../support/keywords.js';

const silent = pino({ level: 'silent' });
const DIMENSIONS = 128;

for (const database of testDatabases()) {
  describe(`flat vector index snapshots [${database.name}]`, () => {
    let app: TestApp;
    let db: Database;
    let dir: string;
    let tenant: { id: string; key: string };
    let kb: string;
    let lexemes: string[];
    const embedder = new LexicalEmbedder();
    const corpus = new SyntheticCorpus({ seed: 11, topics: 8, terms: 200 });
    const filter = (): ChunkFilter => ({ scope: { tenantId: tenant.id, subTenantId: null }, knowledgeBaseIds: [kb], tags: {}, embedder: embedder.id });
    const documents: string[] = [];

    // Every segment gets a graph (the lexical embedder's vectors would not otherwise), so its file is snapshotted too.
    const make = (options: Partial<FlatVectorIndexOptions> = {}, on: Database = db) =>
      new FlatVectorIndex(on, embedder.id, new PgVectorIndex(on, { graphs: false }), silent, {
        threads: 1,
        snapshotDir: dir,
        graph: { ...DEFAULT_GRAPH_POLICY, minBytes: 1, minDensity: 0 },
        ...options,
      });
    // Started, with every graph complete (answers compared across indexes are then those of whole graphs).
    const started = async (index: FlatVectorIndex) => {
      await index.start();
      await index.loaded;
      while (index.graphPending > 0) await new Promise((resolve) => setImmediate(resolve));
      return index;
    };
    /**
     * What an index answers for a few vector and keyword queries: their top 10, or with `limit` past
     * the chunks' count, every chunk ranked exactly (no graph can then answer: answers that do not
     * depend on how a graph was built).
     */
    const answers = async (index: FlatVectorIndex, limit = 10) => {
      const out: string[][] = [];
      for (let i = 0; i < 5; i++) {
        const vector = embedder.embedText(corpus.query(i, i * 3), DIMENSIONS);
        out.push((await index.search({ filter: filter(), dimensions: DIMENSIONS, vector, limit })).map((h) => h.chunkId));
      }
      const words = lexemes.map((l) => [l]);
      out.push((await index.keywordSearch({ filter: filter(), words, ranking: await keywordRanking(db, [kb], wordForms(words)), limit })).map((h) => h.chunkId));
      return out;
    };

    before(async function () {
      this.timeout(120_000);
      db = await database.get();
      app = await startTestApp(db);
      tenant = await createTenant(app, 'enterprise');
      kb = (await client(app.url, tenant.key)('POST', '/v1/knowledge-bases', { name: 'snapshots', dimensions: DIMENSIONS })).body.id as string;
      for (let i = 0; i < 24; i++) {
        const doc = corpus.document(i);
        documents.push((await ingest(app, tenant.key, { knowledge_base_id: kb, title: doc.title, content: doc.content, tags: { n: String(i) } })).documentId);
      }
      const { rows } = await db.query<{ lexeme: string }>(
        'SELECT DISTINCT (unnest(tsv)).lexeme AS lexeme FROM chunks WHERE tenant_id = $1 ORDER BY 1 LIMIT 3',
        [tenant.id],
      );
      lexemes = rows.map((r) => r.lexeme);
    });
    beforeEach(async () => {
      dir = await fs.mkdtemp(path.join(os.tmpdir(), 'lore-snapshot-'));
    });
    afterEach(async () => {
      await fs.rm(dir, { recursive: true, force: true });
    });
    after(async () => {
      await app.close();
    });

    it('writes a snapshot at close; the next start reads it back and answers exactly as before', async () => {
      const first = await started(make());
      assert.equal(first.loadReport?.from, 'tables', 'no snapshot yet');
      const before = await answers(first);
      assert.ok(before.every((list) => list.length > 0));
      await first.close();
      const second = await started(make());
      try {
        assert.deepEqual({ from: second.loadReport?.from, reloaded: second.loadReport?.reloaded, dropped: second.loadReport?.dropped }, { from: 'snapshot', reloaded: 0, dropped: 0 });
        assert.deepEqual(await answers(second), before, 'the same vector and keyword answers');
      } finally {
        await second.close();
      }
    });

    it('takes a snapshot every interval while something changed, without waiting for close', async () => {
      const index = await started(make({ snapshotIntervalMs: 20 }));
      try {
        const deadline = Date.now() + 10_000;
        while (!(await fs.stat(path.join(dir, 'CURRENT')).catch(() => undefined))) {
          assert.ok(Date.now() < deadline, 'no snapshot was written');
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        const first = await fs.readFile(path.join(dir, 'CURRENT'), 'utf8');
        // Nothing changed since: no new generation.
        await new Promise((resolve) => setTimeout(resolve, 200));
        assert.equal(await fs.readFile(path.join(dir, 'CURRENT'), 'utf8'), first);
      } finally {
        await index.close();
      }
    });

    it('brings a stale snapshot up to date: documents deleted since are gone, added or changed since are read again', async () => {
      await (await started(make())).close();
      const victim = documents[3]!;
      const victimChunks = (await db.query<{ id: string }>('SELECT id FROM chunks WHERE tenant_id = $1 AND document_id = $2', [tenant.id, victim])).rows.map((r) => r.id);
      assert.equal((await client(app.url, tenant.key)('DELETE', `/v1/documents/${victim}`)).status, 204);
      documents.splice(3, 1);
      const added = await ingest(app, tenant.key, { knowledge_base_id: kb, title: 'Quagga', content: 'Quagga zebra okapi crossings.' });
      documents.push(added.documentId);
      // Another state of a document than the snapshot's, stamped with an older time than the
      // snapshot's (a version is compared, not a time): the index must hold the tables' state.
      const renamed = documents[5]!;
      await db.query("UPDATE documents SET title = 'Renamed okapi guide', updated_at = '2001-01-01' WHERE id = $1", [renamed]);
      const index = await started(make());
      try {
        assert.equal(index.loadReport?.from, 'snapshot');
        assert.ok((index.loadReport?.dropped ?? 0) >= 1 && (index.loadReport?.reloaded ?? 0) >= 1, JSON.stringify(index.loadReport));
        const found = await index.search({ filter: filter(), dimensions: DIMENSIONS, vector: embedder.embedText('quagga zebra okapi', DIMENSIONS), limit: 50 });
        const [chunk] = (await db.query<{ id: string }>('SELECT id FROM chunks WHERE tenant_id = $1 AND document_id = $2', [tenant.id, added.documentId])).rows;
        assert.equal(found[0]?.chunkId, chunk!.id);
        const all = await index.search({ filter: filter(), dimensions: DIMENSIONS, vector: embedder.embedText(corpus.document(3).title, DIMENSIONS), limit: 500 });
        assert.ok(!all.some((h) => victimChunks.includes(h.chunkId)), 'a deleted document came back from the snapshot');
        const titled = await index.search({ filter: { ...filter(), titleContains: 'renamed okapi' }, dimensions: DIMENSIONS, vector: embedder.embedText('okapi', DIMENSIONS), limit: 500 });
        const renamedChunks = (await db.query<{ id: string }>('SELECT id FROM chunks WHERE tenant_id = $1 AND document_id = $2', [tenant.id, renamed])).rows.map((r) => r.id);
        assert.deepEqual(titled.map((h) => h.chunkId).sort(), renamedChunks.sort(), 'the changed document as the tables hold it');
        assert.equal(index.loadReport?.reloaded, 2, 'only the added and the changed document were read again');
      } finally {
        await index.close();
      }
    });

    it('restores platform corpora too: a record reloaded since is read again, a corpus deleted since is gone', async () => {
      const admin = client(app.url, TEST_ADMIN_TOKEN);
      const slug = `snapshot-${Date.now()}`;
      assert.equal((await admin('POST', '/internal/v1/corpora', { slug, name: 'Snapshot', plans: ['enterprise'], dimensions: DIMENSIONS })).status, 201);
      const load = async (records: Array<{ source_record_id: string; content: string }>) => {
        const res = await admin('POST', `/internal/v1/corpora/${slug}/records`, { records });
        assert.equal(res.status, 202, JSON.stringify(res.body));
        assert.equal((await waitForCorpusJob(admin, slug, res.body.job_id)).status, 'completed');
      };
      await load([
        { source_record_id: 'a', content: 'Lichens are fungi and algae together.' },
        { source_record_id: 'b', content: 'Lichens grow on bare rock.' },
        { source_record_id: 'c', content: 'Lichens colour old roofs.' },
      ]);
      const corpusId = (await db.query<{ id: string }>('SELECT id FROM corpora WHERE slug = $1', [slug])).rows[0]!.id;
      const stored = async () => (await db.query<{ id: string }>('SELECT id FROM platform_chunks WHERE corpus_id = $1', [corpusId])).rows.map((r) => r.id).sort();
      const platform = async (index: FlatVectorIndex) =>
        (await index.searchCorpora({ filter: { corpusIds: [corpusId], metadata: {}, embedder: embedder.id }, dimensions: DIMENSIONS, vector: embedder.embedText('lichens', DIMENSIONS), limit: 10 }))
          .map((h) => h.chunkId)
          .sort();
      await (await started(make())).close();
      let index = await started(make());
      assert.deepEqual({ from: index.loadReport?.from, reloaded: index.loadReport?.reloaded }, { from: 'snapshot', reloaded: 0 });
      assert.deepEqual(await platform(index), await stored());
      await index.close();

      await load([{ source_record_id: 'a', content: 'Lichens, reloaded: fungi, algae and yeasts.' }]);
      index = await started(make());
      assert.equal(index.loadReport?.reloaded, 1, JSON.stringify(index.loadReport));
      assert.deepEqual(await platform(index), await stored(), 'the reloaded record as the tables hold it');
      await index.close();

      assert.equal((await admin('DELETE', `/internal/v1/corpora/${slug}`)).status, 204);
      index = await started(make());
      try {
        assert.ok((index.loadReport?.dropped ?? 0) >= 3, JSON.stringify(index.loadReport));
        assert.deepEqual(await platform(index), []);
      } finally {
        await index.close();
      }
    });

    it('refuses a torn or altered snapshot and rebuilds from the tables, never serving it', async () => {
      const reference = await started(make({ snapshotDir: undefined }));
      const expected = await answers(reference);
      await reference.close();
      const damage: Array<[string, (generation: string) => Promise<void>, RegExp]> = [
        ['a segment file with a byte changed', async (g) => flipByte(path.join(g, 'segment-0.bin')), /segment-0\.bin does not match its hash/],
        ['a graph file cut short', async (g) => truncateFile(path.join(g, (await fs.readdir(g)).find((f) => f.endsWith('.usearch'))!)), /usearch does not match its hash/],
        ['a manifest rewritten', async (g) => fs.appendFile(path.join(g, 'manifest.json'), ' '), /manifest does not match/],
        ['a segment file missing', async (g) => fs.rm(path.join(g, 'segment-0.bin')), /segment-0\.bin is missing/],
      ];
      for (const [what, harm, reason] of damage) {
        await (await started(make())).close();
        await harm(await currentGeneration(dir));
        const index = await started(make());
        try {
          assert.equal(index.loadReport?.from, 'tables', what);
          assert.match(index.loadReport?.snapshotRefused ?? '', reason, what);
          // Read from the tables, the graphs are built anew (in another order, on several threads):
          // keyword answers are the same, vector answers those of another graph over the same rows.
          const got = await answers(index);
          assert.deepEqual(got.at(-1), expected.at(-1), `${what}: keyword answers`);
          got.slice(0, -1).forEach((list, i) => {
            const overlap = list.filter((id) => expected[i]!.includes(id)).length / expected[i]!.length;
            assert.ok(overlap >= 0.8, `${what}: vector answers overlap ${overlap} with an index read from the tables`);
          });
        } finally {
          await index.close();
        }
      }
    });

    it('keeps the last complete snapshot when a write is cut short, and ignores one of another embedder', async () => {
      const first = await started(make());
      const expected = await answers(first);
      await first.close();
      // A crash in the middle of the next write: a new generation with some files, CURRENT not yet moved.
      const store = new SnapshotStore(dir);
      const partial = await store.begin();
      await fs.writeFile(path.join(partial, 'segment-0.bin'), 'half a segment');
      const index = await started(make());
      try {
        assert.equal(index.loadReport?.from, 'snapshot');
        assert.deepEqual(await answers(index), expected);
      } finally {
        await index.close();
      }
      const other = await started(new FlatVectorIndex(db, 'another-embedder', new PgVectorIndex(db, { graphs: false }), silent, { threads: 1, snapshotDir: dir }));
      try {
        assert.equal(other.loadReport?.from, 'tables');
        assert.match(other.loadReport?.snapshotRefused ?? '', /taken with embedder/);
      } finally {
        await other.close();
      }
    });

    it('refuses a snapshot of another database: an index started on a fresh one reads its tables and serves exactly its rows', async function () {
      this.timeout(120_000);
      await (await started(make())).close();
      const other = await openPgliteDatabase('memory://');
      try {
        await migrate(other);
        const otherApp = await startTestApp(other);
        try {
          const owner = await createTenant(otherApp, 'enterprise');
          const otherKb = (await client(otherApp.url, owner.key)('POST', '/v1/knowledge-bases', { name: 'elsewhere', dimensions: DIMENSIONS })).body.id as string;
          for (let i = 0; i < 3; i++) await ingest(otherApp, owner.key, { knowledge_base_id: otherKb, title: `Elsewhere ${i}`, content: corpus.document(i).content });
          const index = await started(make({}, other));
          try {
            assert.equal(index.loadReport?.from, 'tables', JSON.stringify(index.loadReport));
            assert.equal(index.loadReport?.snapshotRefused, `taken of database ${await readDatabaseId(db)}, not of this one (${await readDatabaseId(other)})`);
            const vector = embedder.embedText(corpus.query(0, 0), DIMENSIONS);
            const theirs = { ...filter(), scope: { tenantId: owner.id, subTenantId: null }, knowledgeBaseIds: [otherKb] };
            const found = await index.search({ filter: theirs, dimensions: DIMENSIONS, vector, limit: 500 });
            const { rows } = await other.query<{ id: string }>('SELECT id FROM chunks WHERE tenant_id = $1', [owner.id]);
            assert.deepEqual(found.map((h) => h.chunkId).sort(), rows.map((r) => r.id).sort(), "exactly the fresh database's chunks");
            assert.deepEqual(await index.search({ filter: filter(), dimensions: DIMENSIONS, vector, limit: 10 }), [], "nothing of the snapshot's database");
          } finally {
            await index.close();
          }
          const next = await started(make({}, other));
          await next.close();
          assert.equal(next.loadReport?.from, 'snapshot', 'the refused snapshot was replaced by one of this database at close');
        } finally {
          await otherApp.close();
        }
      } finally {
        await other.close();
      }
    });

    it('refuses a snapshot taken before a keyword index rebuild rewrote lexemes, reading the tables instead', async () => {
      await (await started(make())).close();
      // What a rebuild's rewrite does in its transaction (core/search/keyword-rebuild.ts).
      await advanceKeywordIndexGeneration(db);
      const index = await started(make());
      try {
        assert.equal(index.loadReport?.from, 'tables');
        assert.match(index.loadReport?.snapshotRefused ?? '', /^taken at keyword index generation \d+, before a rebuild \(now \d+\)$/);
      } finally {
        await index.close();
      }
      const next = await started(make());
      await next.close();
      assert.equal(next.loadReport?.from, 'snapshot', 'the snapshot written at close names the new generation');
      // Without keywords a snapshot holds no lexemes, so a rebuild leaves it good.
      await (await started(make({ keywords: false }))).close();
      await advanceKeywordIndexGeneration(db);
      const vectorsOnly = await started(make({ keywords: false }));
      await vectorsOnly.close();
      assert.equal(vectorsOnly.loadReport?.from, 'snapshot');
    });

    it('refuses a snapshot that names no database (written before databases had ids), reading the tables instead', async () => {
      await (await started(make())).close();
      const generation = await currentGeneration(dir);
      const manifest = JSON.parse(await fs.readFile(path.join(generation, 'manifest.json'), 'utf8')) as { databaseId?: string };
      delete manifest.databaseId;
      // Otherwise intact: its manifest's hash in CURRENT is that of the rewritten text.
      const text = JSON.stringify(manifest);
      await fs.writeFile(path.join(generation, 'manifest.json'), text);
      await fs.writeFile(path.join(dir, 'CURRENT'), `${path.basename(generation)}\n${createHash('sha256').update(text).digest('hex')}\n`);
      const index = await started(make());
      try {
        assert.equal(index.loadReport?.from, 'tables');
        assert.match(index.loadReport?.snapshotRefused ?? '', /^names no database, not of this one \(/);
        const reference = await started(make({ snapshotDir: undefined }));
        try {
          assert.deepEqual((await answers(index)).at(-1), (await answers(reference)).at(-1), 'keyword answers as the tables give them');
        } finally {
          await reference.close();
        }
      } finally {
        await index.close();
      }
    });

    it('reads a knowledge base most of whose documents are gone again from the tables, instead of removing them row by row', async () => {
      const api = client(app.url, tenant.key);
      const shrinking = (await api('POST', '/v1/knowledge-bases', { name: 'shrinking', dimensions: DIMENSIONS })).body.id as string;
      const ids: string[] = [];
      for (let i = 30; i < 36; i++) {
        const doc = corpus.document(i);
        ids.push((await ingest(app, tenant.key, { knowledge_base_id: shrinking, title: doc.title, content: doc.content })).documentId);
      }
      await (await started(make())).close();
      // Four of its six documents go while the index is down: its saved segment is mostly stale.
      for (const id of ids.slice(0, 4)) assert.equal((await api('DELETE', `/v1/documents/${id}`)).status, 204);
      const index = await started(make());
      try {
        assert.deepEqual(
          { from: index.loadReport?.from, reloaded: index.loadReport?.reloaded, dropped: index.loadReport?.dropped },
          { from: 'snapshot', reloaded: 2, dropped: 4 },
          'the two documents left are read again from the tables; the other knowledge base comes from the snapshot',
        );
        const shrunk = { ...filter(), knowledgeBaseIds: [shrinking] };
        const found = await index.search({ filter: shrunk, dimensions: DIMENSIONS, vector: embedder.embedText(corpus.document(34).title, DIMENSIONS), limit: 500 });
        const { rows } = await db.query<{ id: string }>('SELECT id FROM chunks WHERE tenant_id = $1 AND knowledge_base_id = $2', [tenant.id, shrinking]);
        assert.deepEqual(found.map((h) => h.chunkId).sort(), rows.map((r) => r.id).sort(), 'exactly the chunks of the documents left');
        // Its graph is not the one built anew from the tables (it has had rows removed and added),
        // so the two are compared on every chunk, ranked exactly.
        const fromTables = await started(make({ snapshotDir: undefined }));
        try {
          const every = await answers(fromTables, 10_000);
          assert.ok(every[0]!.length > 10, 'more chunks than a top 10');
          assert.deepEqual(await answers(index, 10_000), every, 'the other knowledge base as the tables give it');
        } finally {
          await fromTables.close();
        }
      } finally {
        await index.close();
      }
    });
  });
}

async function currentGeneration(dir: string): Promise<string> {
  const [name] = (await fs.readFile(path.join(dir, 'CURRENT'), 'utf8')).split('\n');
  return path.join(dir, name!);
}

async function flipByte(file: string): Promise<void> {
  const bytes = await fs.readFile(file);
  bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
  await fs.writeFile(file, bytes);
}

async function truncateFile(file: string): Promise<void> {
  const { size } = await fs.stat(file);
  await fs.truncate(file, Math.floor(size / 2));
}
