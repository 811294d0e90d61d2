import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { openPgliteDatabase } from '../../core/db/pglite.database.js';
import { client } from '../support/app.js';
import { FakeOpenAiEmbeddingsServer } from '../support/fake-openai-embeddings.server.js';
import { startServerProcess, stopServerProcess } from '../support/process.js';

describe('a Lore process killed in the middle of an ingestion job', function () {
  this.timeout(180_000);
  let dataDir: string;
  let fake: FakeOpenAiEmbeddingsServer;
  before(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'lore-crash-'));
    // A slow embedding endpoint (an outside service, faked) keeps the job running long enough to kill it.
    fake = await FakeOpenAiEmbeddingsServer.start({ dimensions: 16 });
  });
  after(async () => {
    await fake.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('resumes the job after restart and writes every chunk exactly once', async () => {
    const env = { DATA_DIR: dataDir, EMBEDDER: 'openai', EMBEDDER_URL: fake.baseUrl, EMBEDDER_MODEL: 'fake', LOG_LEVEL: 'warn' };
    const first = await startServerProcess({ ...env, LOG_LEVEL: 'info' });
    const token = (await fs.readFile(path.join(dataDir, 'admin-token'), 'utf8')).trim();
    const tenant = (await client(first.url, token)('POST', '/internal/v1/tenants', { name: 'crash', plan: 'enterprise' })).body;
    const api = client(first.url, tenant.api_key);
    const kb = (await api('POST', '/v1/knowledge-bases', { name: 'k', dimensions: 16 })).body.id;
    fake.delayMs = 250;
    const content = 'Every chunk must be written exactly once, even across a crash. '.repeat(4000);
    const { job_id: jobId, document_id: documentId } = (await api('POST', '/v1/documents', { knowledge_base_id: kb, title: 'big', content })).body;

    let job;
    do {
      await new Promise((r) => setTimeout(r, 50));
      job = (await api('GET', `/v1/jobs/${jobId}`)).body;
    } while (!(job.status === 'processing' && job.processed_chunks > 0));
    assert.ok(job.processed_chunks < job.total_chunks, 'killed in the middle');
    await stopServerProcess(first, 'SIGKILL');

    fake.delayMs = 0;
    const second = await startServerProcess({ ...env, LOG_LEVEL: 'info' });
    try {
      const api2 = client(second.url, tenant.api_key);
      do {
        await new Promise((r) => setTimeout(r, 100));
        job = (await api2('GET', `/v1/jobs/${jobId}`)).body;
      } while (job.status !== 'completed' && job.status !== 'failed');
      assert.equal(job.status, 'completed');
      assert.equal(job.attempts, 2);
      assert.equal(job.processed_chunks, job.total_chunks);
      const doc = (await api2('GET', `/v1/documents/${documentId}`)).body;
      assert.equal(doc.status, 'ready');
      assert.equal(doc.chunk_count, job.total_chunks);
      const hits = await api2('POST', '/v1/query', { query: 'written exactly once', top_k: 100 });
      const indexes = hits.body.results.map((r: { chunk_index: number }) => r.chunk_index);
      assert.equal(new Set(indexes).size, indexes.length, 'no duplicate chunks');
      assert.ok(second.output().includes('resuming jobs interrupted by a previous run'));
    } finally {
      await stopServerProcess(second);
    }
    // With the server stopped, the data directory can be opened to count the rows themselves.
    const db = await openPgliteDatabase(path.join(dataDir, 'pgdata'));
    try {
      const { rows } = await db.query<{ n: number; distinct: number }>(
        'SELECT count(*)::int AS n, count(DISTINCT chunk_index)::int AS distinct FROM chunks WHERE document_id = $1',
        [documentId],
      );
      assert.deepEqual(rows[0], { n: job.total_chunks, distinct: job.total_chunks });
    } finally {
      await db.close();
    }
  });
});
