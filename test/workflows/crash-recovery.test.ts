import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { openPgliteDatabase } from '../../core/db/pglite.database.js';
import { client, waitForJob } from '../support/app.js';
import { FakeOpenAiEmbeddingsServer } from '../support/fake-openai-embeddings.server.js';
import { pollUntil } from '../support/poll.js';
import { startServerProcess, stopServerProcess } from '../support/process.js';

/** A resumed job redoes its work after a restart: it gets longer than the default wait, within the suite's timeout. */
const RESUMED_JOB_TIMEOUT_MS = 90_000;

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

    let seen: any;
    const started = await pollUntil(
      `job ${jobId} to have written its first chunks`,
      async () => {
        seen = (await api('GET', `/v1/jobs/${jobId}`)).body;
        return seen.status === 'processing' && seen.processed_chunks > 0 ? seen : undefined;
      },
      { lastSeen: () => JSON.stringify(seen) },
    );
    assert.ok(started.processed_chunks < started.total_chunks, 'killed in the middle');
    await stopServerProcess(first, 'SIGKILL');

    fake.delayMs = 0;
    const second = await startServerProcess({ ...env, LOG_LEVEL: 'info' });
    let job: any;
    try {
      const api2 = client(second.url, tenant.api_key);
      job = await waitForJob(second, tenant.api_key, jobId, RESUMED_JOB_TIMEOUT_MS);
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

  it('resumes the jobs of a batch killed in the middle, one by one, and writes every chunk exactly once', async () => {
    const env = { DATA_DIR: dataDir, EMBEDDER: 'openai', EMBEDDER_URL: fake.baseUrl, EMBEDDER_MODEL: 'fake', LOG_LEVEL: 'info' };
    // A backlog stored while no worker runs, so that the next process claims it as one batch.
    const storing = await startServerProcess({ ...env, JOBS_ENABLED: 'false' });
    const token = (await fs.readFile(path.join(dataDir, 'admin-token'), 'utf8')).trim();
    const tenant = (await client(storing.url, token)('POST', '/internal/v1/tenants', { name: 'batch crash', plan: 'enterprise' })).body;
    const api = client(storing.url, tenant.api_key);
    const kb = (await api('POST', '/v1/knowledge-bases', { name: 'k', dimensions: 16 })).body.id;
    const stored: Array<{ job_id: string; document_id: string }> = [];
    for (let i = 0; i < 12; i++) {
      const paragraphs = Array.from({ length: 20 }, (_, p) => `Part ${i}.${p}: every chunk is written exactly once, even across a crash. `.repeat(14));
      stored.push((await api('POST', '/v1/documents', { knowledge_base_id: kb, title: `part ${i}`, content: paragraphs.join('\n\n') })).body);
    }
    await stopServerProcess(storing);

    // 240 chunks in one batch: four embedding requests. When the third arrives, two writes are done.
    fake.delayMs = 250;
    const before = fake.requests.length;
    const working = await startServerProcess(env);
    await pollUntil('the third embedding request of the batch', () => fake.requests.length >= before + 3, {
      intervalMs: 10,
      lastSeen: () => `${fake.requests.length - before} requests`,
    });
    await stopServerProcess(working, 'SIGKILL');
    const killed = await openPgliteDatabase(path.join(dataDir, 'pgdata'));
    try {
      const { rows } = await killed.query<{ chunks: number; ready: number }>(
        `SELECT (SELECT count(*)::int FROM chunks WHERE document_id = ANY($1::uuid[])) AS chunks,
                (SELECT count(*)::int FROM documents WHERE id = ANY($1::uuid[]) AND status = 'ready') AS ready`,
        [stored.map((s) => s.document_id)],
      );
      assert.ok(rows[0]!.chunks >= 128 && rows[0]!.chunks < 240 && rows[0]!.ready === 0, JSON.stringify(rows[0]));
    } finally {
      await killed.close();
    }

    fake.delayMs = 0;
    const resuming = await startServerProcess(env);
    const jobs = [];
    try {
      for (const s of stored) jobs.push(await waitForJob(resuming, tenant.api_key, s.job_id, RESUMED_JOB_TIMEOUT_MS));
      assert.ok(resuming.output().includes('resuming jobs interrupted by a previous run'));
    } finally {
      await stopServerProcess(resuming);
    }
    // Every job was in the killed batch: each ran again, alone, as its second attempt.
    assert.deepEqual(
      jobs.map((j) => [j.status, j.attempts, j.processed_chunks]),
      jobs.map(() => ['completed', 2, 20]),
    );
    const db = await openPgliteDatabase(path.join(dataDir, 'pgdata'));
    try {
      const { rows } = await db.query<{ status: string; chunk_count: number; n: number; distinct: number }>(
        `SELECT d.status, d.chunk_count, count(c.id)::int AS n, count(DISTINCT c.chunk_index)::int AS distinct
         FROM documents d LEFT JOIN chunks c ON c.document_id = d.id WHERE d.id = ANY($1::uuid[]) GROUP BY d.id`,
        [stored.map((s) => s.document_id)],
      );
      assert.deepEqual(
        rows,
        stored.map(() => ({ status: 'ready', chunk_count: 20, n: 20, distinct: 20 })),
      );
    } finally {
      await db.close();
    }
  });
});
