import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { type TestApp, client, createTenant, startTestApp } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import { type FakeQdrant, startFakeQdrant } from '../support/fake-qdrant.server.js';

/** A word no other document holds. */
const uniqueWord = () => `zq${randomBytes(5).toString('hex')}`;

/**
 * A job that says `completed` means a query finds its document: the client below polls the job as
 * fast as it can and queries the moment it sees `completed`, many times over, on every vector index
 * a topology uses (the in-process one, the database's, and Qdrant's, here the fake standing in for
 * the Qdrant server, which no registry ships).
 */
for (const database of testDatabases()) {
  const indexes: Array<{ name: string; env: (fake: FakeQdrant) => Record<string, string> }> = [
    { name: database.name === 'pglite' ? 'flat' : 'pgvector', env: () => ({}) },
    ...(database.name === 'pglite' ? [] : [{ name: 'flat', env: () => ({ VECTOR_INDEX: 'flat' }) }]),
    { name: 'qdrant', env: (fake: FakeQdrant) => ({ VECTOR_INDEX: 'qdrant', QDRANT_URL: fake.url, QDRANT_COLLECTION_PREFIX: 'completed_' }) },
  ];
  for (const index of indexes) {
    describe(`a completed job's document is found at once [${database.name}, ${index.name}]`, function () {
      this.timeout(120_000);
      let fake: FakeQdrant;
      let app: TestApp;
      before(async () => {
        // Qdrant's upserts take 20 ms, as across a network: long enough for a client to look in between.
        fake = await startFakeQdrant({ upsertDelayMs: 20 });
        app = await startTestApp(await database.get(), { env: { ...index.env(fake), JOB_RETRY_BASE_SECONDS: '0' } });
      });
      after(async () => {
        await app.close();
        await fake.close();
      });

      it('by a query sent the moment the job says completed, 25 times over', async () => {
        const api = client(app.url, (await createTenant(app, 'enterprise')).key);
        const kb = (await api('POST', '/v1/knowledge-bases', { name: 'kb' })).body.id as string;
        const missed: string[] = [];
        for (let round = 0; round < 25; round++) {
          const word = uniqueWord();
          const accepted = await api('POST', '/v1/documents', { knowledge_base_id: kb, title: `Note ${round}`, content: `The code word of note ${round} is ${word}.` });
          assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
          let status = 'queued';
          while (status !== 'completed') {
            status = (await api('GET', `/v1/jobs/${accepted.body.job_id}`)).body.status as string;
            assert.notEqual(status, 'failed');
          }
          // The word misspelt: keyword search (in the database with Qdrant) knows no such word, so
          // the document is found by its vector or not at all.
          const found = await api('POST', '/v1/query', { query: word.slice(0, -1), top_k: 10 });
          const ids = (found.body.results as Array<{ document_id?: string }>).map((r) => r.document_id);
          if (!ids.includes(accepted.body.document_id)) missed.push(`round ${round}`);
        }
        assert.deepEqual(missed, []);
      });

      if (index.name === 'qdrant') {
        it('when the index fails after the document became ready, completes the job on a retry: chunks and usage once', async () => {
          const t = await createTenant(app, 'payg');
          const api = client(app.url, t.key);
          const kb = (await api('POST', '/v1/knowledge-bases', { name: 'kb' })).body.id as string;
          const word = uniqueWord();
          // Qdrant refuses the next request (a refusal is not retried by the adapter): the upsert
          // after the document became ready, so the job's first attempt fails there.
          fake.failNext(1, 400);
          const accepted = await api('POST', '/v1/documents', { knowledge_base_id: kb, title: 'Note', content: `The code word is ${word}.` });
          let job: { status: string; attempts?: number } = { status: 'queued' };
          while (job.status !== 'completed') {
            job = (await api('GET', `/v1/jobs/${accepted.body.job_id}`)).body;
            assert.notEqual(job.status, 'failed');
          }
          const found = await api('POST', '/v1/query', { query: word, top_k: 3 });
          assert.equal(found.body.results[0]?.document_id, accepted.body.document_id);
          const { rows } = await app.db.query<{ attempts: number; chunks: number; ingestions: number }>(
            `SELECT (SELECT attempts FROM jobs WHERE id = $2) AS attempts,
                    (SELECT count(*)::int FROM chunks WHERE tenant_id = $1) AS chunks,
                    (SELECT count(*)::int FROM usage_events WHERE tenant_id = $1 AND event_type = 'ingestion') AS ingestions`,
            [t.id, accepted.body.job_id],
          );
          assert.deepEqual(rows[0], { attempts: 2, chunks: 1, ingestions: 1 });
        });
      }
    });
  }
}
