import assert from 'node:assert/strict';
import { LexicalEmbedder } from '../../core/adapters/lexical.embedder.js';
import { type JobRow, claimJobs } from '../../core/jobs/job.repository.js';
import { chunksPerWrite } from '../../core/ingestion/ingestion.service.js';
import { PLANS } from '../../core/plans.js';
import { type Embedder, passageText } from '../../core/ports/embedder.js';
import type { DocumentIndexed } from '../../core/ports/vector-index.js';
import { type JobBatchControl, LeaseLostError } from '../../core/ports/workflow-engine.js';
import { type TestApp, client, createTenant, startTestApp, storeDocument } from '../support/app.js';
import { testDatabases } from '../support/databases.js';

const SENTENCE = 'The committee reviews every request for travel, equipment and training before the budget closes. ';

/** A text of about `chunks` chunks (one per paragraph), in English, findable by `marker`. */
function handbook(marker: string, chunks: number): string {
  return Array.from(
    { length: chunks },
    (_, p) => `Section ${p} of the ${marker} handbook. ${SENTENCE.repeat(8)}`,
  ).join('\n\n');
}

interface Stored {
  jobId: string;
  documentId: string;
  tenantId: string;
  knowledgeBaseId: string;
  dimensions: number;
}

/** Records the batches and single jobs the ingestion service runs, and the vector index's notices. */
function spy(app: TestApp) {
  const ingestion = app.services.ingestion;
  const vectors = app.services.adapters.vectorIndex;
  const batches: string[][] = [];
  const alone: Array<[string, number]> = [];
  const notices: DocumentIndexed[][] = [];
  const indexDocuments = ingestion.indexDocuments.bind(ingestion);
  const indexDocument = ingestion.indexDocument.bind(ingestion);
  const documentsIndexed = vectors.documentsIndexed.bind(vectors);
  ingestion.indexDocuments = (jobs, control) => {
    batches.push(jobs.map((j) => j.id));
    return indexDocuments(jobs, control);
  };
  ingestion.indexDocument = (job, control) => {
    alone.push([job.id, job.attempts]);
    return indexDocument(job, control);
  };
  vectors.documentsIndexed = (documents) => {
    notices.push(documents);
    return documentsIndexed(documents);
  };
  return { batches, alone, notices };
}

for (const database of testDatabases()) {
  describe(`ingestion in batches [${database.name}]`, () => {
    let app: TestApp;

    /** A tenant with a knowledge base of `dimensions`, and a function that stores documents in it (indexed by `drain`). */
    async function tenant(plan: 'payg' | 'standard', dimensions: number) {
      const t = await createTenant(app, plan);
      const kb = (await client(app.url, t.key)('POST', '/v1/knowledge-bases', { name: 'handbooks', dimensions })).body.id as string;
      return {
        ...t,
        store: async (title: string, content: string): Promise<Stored> => {
          const { job_id, document_id } = await storeDocument(app, t.id, { knowledge_base_id: kb, title, content });
          return { jobId: job_id, documentId: document_id, tenantId: t.id, knowledgeBaseId: kb, dimensions };
        },
      };
    }

    async function job(id: string) {
      return (await app.db.query<{ status: string; attempts: number; processed_chunks: number; total_chunks: number; error: string | null }>(
        'SELECT status, attempts, processed_chunks, total_chunks, error FROM jobs WHERE id = $1',
        [id],
      )).rows[0]!;
    }

    async function document(id: string) {
      return (await app.db.query<{ status: string; chunk_count: number; language: string | null; rows: number; indexes: number }>(
        `SELECT d.status, d.chunk_count, d.language,
                (SELECT count(*)::int FROM chunks c WHERE c.document_id = d.id) AS rows,
                (SELECT count(DISTINCT c.chunk_index)::int FROM chunks c WHERE c.document_id = d.id) AS indexes
         FROM documents d WHERE d.id = $1`,
        [id],
      )).rows[0]!;
    }

    /** Every chunk of the document is found by a vector search for its own text (with its title, as embedded), first. */
    async function assertVectorSearchable(doc: Stored): Promise<void> {
      const { rows } = await app.db.query<{ id: string; content: string; title: string }>(
        'SELECT c.id, c.content, d.title FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.document_id = $1 ORDER BY c.chunk_index',
        [doc.documentId],
      );
      assert.ok(rows.length > 0);
      const { embedder } = app.services.adapters;
      const vectors = await embedder.embed(
        rows.map((r) => passageText(embedder, r.title, r.content)),
        { dimensions: doc.dimensions, kind: 'document' },
      );
      for (const [i, r] of rows.entries()) {
        const hits = await app.services.adapters.vectorIndex.search({
          filter: { scope: { tenantId: doc.tenantId, subTenantId: null }, knowledgeBaseIds: [doc.knowledgeBaseId], tags: {} },
          dimensions: doc.dimensions,
          vector: vectors[i]!,
          limit: 1,
        });
        assert.equal(hits[0]?.chunkId, r.id, `chunk ${i} of ${doc.documentId}`);
      }
    }

    describe('a backlog', () => {
      before(async () => {
        app = await startTestApp(await database.get(), { jobs: false });
      });
      after(() => app.close());

      it('is indexed in batches across tenants and dimensions: documents ready, one usage event per document, every chunk searchable', async () => {
        await app.runtime.engine.drain();
        const payg = await tenant('payg', 32);
        const standard = await tenant('standard', 48);
        const stored: Stored[] = [];
        for (let i = 0; i < 10; i++) stored.push(await (i % 2 ? standard : payg).store(`doc ${i}`, handbook(`marker${i}`, 1 + (i % 4))));
        const { batches, alone, notices } = spy(app);
        await app.runtime.engine.drain(['ingestion']);

        assert.deepEqual(batches, [stored.map((s) => s.jobId)]);
        assert.deepEqual(alone, []);
        for (const [i, s] of stored.entries()) {
          const j = await job(s.jobId);
          assert.deepEqual(j, { status: 'completed', attempts: 1, processed_chunks: 1 + (i % 4), total_chunks: 1 + (i % 4), error: null });
          const n = j.total_chunks;
          assert.deepEqual(await document(s.documentId), { status: 'ready', chunk_count: n, language: 'en', rows: n, indexes: n });
        }
        for (const t of [payg, standard]) {
          const { rows } = await app.db.query<{ quantity: number; cost_microcents: number }>(
            `SELECT quantity::int, cost_microcents::int FROM usage_events WHERE tenant_id = $1 AND event_type = 'ingestion' ORDER BY quantity`,
            [t.id],
          );
          const mine = stored.filter((s) => s.tenantId === t.id).map((s) => stored.indexOf(s));
          const chunks = mine.map((i) => 1 + (i % 4)).sort();
          const perChunk = PLANS[t === payg ? 'payg' : 'standard'].ingestionPerChunkMicrocents;
          assert.deepEqual(rows, chunks.map((n) => ({ quantity: n, cost_microcents: n * perChunk })));
          assert.equal((await client(app.url, t.key)('GET', '/v1/usage')).body.chunks.used, chunks.reduce((a, b) => a + b));
        }
        // The index was handed every document with all its vectors, once, after the commit.
        assert.equal(notices.length, 1);
        assert.deepEqual(
          notices[0]!.map((n) => [n.id, n.written?.chunks.length]),
          stored.map((s, i) => [s.documentId, 1 + (i % 4)]),
        );
        for (const s of stored) await assertVectorSearchable(s);
        const hits = await client(app.url, payg.key)('POST', '/v1/query', { query: 'marker4 handbook', top_k: 1 });
        assert.equal(hits.body.results[0].document_id, stored[4]!.documentId);
      });

      it('rolls the whole final transaction back when a lease of the batch was lost', async () => {
        await app.runtime.engine.drain();
        const t = await tenant('payg', 32);
        const stored = [await t.store('a', handbook('alpha', 2)), await t.store('b', handbook('beta', 3)), await t.store('c', handbook('gamma', 1))];
        const jobs = await claimJobs(app.db, 'worker-a', 30, ['ingestion'], { ingestion: 3 });
        assert.deepEqual(
          jobs.map((j) => j.id),
          stored.map((s) => s.jobId),
        );
        await app.db.query(`UPDATE jobs SET lease_owner = 'worker-b' WHERE id = $1`, [stored[1]!.jobId]);
        const control: JobBatchControl = { owner: 'worker-a', signal: new AbortController().signal, heartbeat: async () => {} };
        await assert.rejects(app.services.ingestion.indexDocuments(jobs, control), LeaseLostError);
        for (const s of stored) {
          assert.equal((await job(s.jobId)).status, 'processing');
          assert.equal((await document(s.documentId)).status, 'processing');
        }
        const { rows } = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM usage_events WHERE tenant_id = $1', [t.id]);
        assert.equal(rows[0]!.n, 0, 'no usage recorded');
        const { rows: held } = await app.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM jobs WHERE id = ANY($1::uuid[]) AND lease_owner = 'worker-a' AND completed_at IS NULL`,
          [[stored[0]!.jobId, stored[2]!.jobId]],
        );
        assert.equal(held[0]!.n, 2, 'the jobs still held stay with their worker, not completed');
      });

      it('resumes a batch interrupted after its first write job by job, writing every chunk once', async () => {
        await app.runtime.engine.drain();
        const t = await tenant('standard', 32);
        // 300 chunks: the batch writes its first statement's (64 in PGlite, 256 on a server), then its worker dies.
        const stored = [];
        for (let i = 0; i < 5; i++) stored.push(await t.store(`part ${i}`, handbook(`part${i}`, 60)));
        const jobs: JobRow[] = await claimJobs(app.db, 'worker-a', 30, ['ingestion'], { ingestion: 5 });
        assert.equal(jobs.length, 5);
        const killed = new Error('killed');
        const control: JobBatchControl = {
          owner: 'worker-a',
          signal: new AbortController().signal,
          heartbeat: () => Promise.reject(killed),
        };
        await assert.rejects(app.services.ingestion.indexDocuments(jobs, control), (err) => err === killed);
        const { rows } = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM chunks WHERE document_id = ANY($1::uuid[])', [
          stored.map((s) => s.documentId),
        ]);
        assert.equal(rows[0]!.n, chunksPerWrite(app.db), 'the first write of the batch happened');

        // The next start releases the dead worker's leases (as `releaseLeases` does); each job resumes alone.
        await app.db.query(`UPDATE jobs SET lease_expires_at = now() - interval '1 second' WHERE id = ANY($1::uuid[])`, [jobs.map((j) => j.id)]);
        const { batches, alone } = spy(app);
        await app.runtime.engine.drain(['ingestion']);
        assert.deepEqual(batches, []);
        assert.deepEqual(
          alone,
          stored.map((s) => [s.jobId, 2]),
        );
        for (const s of stored) {
          assert.deepEqual(await job(s.jobId), { status: 'completed', attempts: 2, processed_chunks: 60, total_chunks: 60, error: null });
          assert.deepEqual(await document(s.documentId), { status: 'ready', chunk_count: 60, language: 'en', rows: 60, indexes: 60 });
          await assertVectorSearchable(s);
        }
      });
    });

    describe('a batch that fails', () => {
      before(async () => {
        // An embedder that refuses one text: the document holding it can never be indexed.
        const lexical = new LexicalEmbedder();
        const embedder: Embedder = {
          id: lexical.id,
          embed: (texts, options) =>
            texts.some((t) => t.includes('POISON')) ? Promise.reject(new Error('The embedder refused a text.')) : lexical.embed(texts, options),
        };
        app = await startTestApp(await database.get(), {
          jobs: false,
          env: { JOB_MAX_ATTEMPTS: '2', JOB_RETRY_BASE_SECONDS: '0' },
          adapters: { embedder },
        });
      });
      after(() => app.close());

      it('runs each of its jobs alone: the document that cannot be indexed fails on its own, the others complete', async () => {
        await app.runtime.engine.drain();
        const t = await tenant('payg', 32);
        // 300 chunks before the poisoned document: the batch writes some of them before it fails.
        const good: Stored[] = [];
        for (let i = 0; i < 5; i++) good.push(await t.store(`good ${i}`, handbook(`good${i}`, 60)));
        const poisoned = await t.store('poisoned', `${handbook('bad', 1)}\n\nPOISON`);
        good.push(await t.store('good 5', handbook('good5', 2)));
        const { batches, alone } = spy(app);
        await app.runtime.engine.drain(['ingestion']);

        assert.deepEqual(batches, [[...good.slice(0, 5), poisoned, good[5]!].map((s) => s.jobId)]);
        assert.deepEqual(alone, [...[...good.slice(0, 5), poisoned, good[5]!].map((s) => [s.jobId, 1]), [poisoned.jobId, 2]]);
        const bad = await job(poisoned.jobId);
        assert.deepEqual([bad.status, bad.attempts, bad.error], ['failed', 2, 'The embedder refused a text.']);
        assert.deepEqual(await document(poisoned.documentId), { status: 'failed', chunk_count: 0, language: null, rows: 0, indexes: 0 });
        for (const s of good) {
          const j = await job(s.jobId);
          assert.deepEqual([j.status, j.attempts, j.processed_chunks], ['completed', 1, j.total_chunks]);
          const n = j.total_chunks;
          assert.deepEqual(await document(s.documentId), { status: 'ready', chunk_count: n, language: 'en', rows: n, indexes: n });
          await assertVectorSearchable(s);
        }
        const { rows } = await app.db.query<{ quantity: number }>(
          `SELECT quantity::int FROM usage_events WHERE tenant_id = $1 AND event_type = 'ingestion' ORDER BY quantity`,
          [t.id],
        );
        assert.deepEqual(
          rows.map((r) => r.quantity),
          [2, 60, 60, 60, 60, 60],
        );
      });
    });
  });
}
