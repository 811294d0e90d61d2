import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Database } from '../../core/db/database.js';
import { claimJob, completeJob, findJobById, heartbeatJob, insertJob } from '../../core/jobs/job.repository.js';
import { type JobDefinition, LeaseLostError } from '../../core/ports/workflow-engine.js';
import { pino } from 'pino';
import { migrate } from '../../core/db/migrator.js';
import { openPgliteDatabase } from '../../core/db/pglite.database.js';
import { EmbeddedWorkflowEngine } from '../../workflows/embedded-engine.js';
import { sanitizeJobError } from '../../workflows/job-runner.js';
import { type TestApp, client, createTenant, startTestApp, waitForJob } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import { pollUntil } from '../support/poll.js';
import { FakeOpenAiEmbeddingsServer } from '../support/fake-openai-embeddings.server.js';

const SENTENCE = 'Durable jobs survive crashes because their state lives in the database. ';

for (const database of testDatabases()) {
  describe(`embedded job engine [${database.name}]`, () => {
    let fake: FakeOpenAiEmbeddingsServer;
    let app: TestApp;
    before(async () => {
      // The OpenAI-compatible embedding endpoint is the outside service these tests make fail.
      fake = await FakeOpenAiEmbeddingsServer.start({ dimensions: 32 });
      app = await startTestApp(await database.get(), {
        env: {
          EMBEDDER: 'openai',
          EMBEDDER_URL: fake.baseUrl,
          EMBEDDER_MODEL: 'fake-model',
          JOB_RETRY_BASE_SECONDS: '0',
          JOB_MAX_ATTEMPTS: '3',
        },
      });
    });
    after(async () => {
      await app.close();
      await fake.close();
    });

    async function ingest(content: string) {
      const t = await createTenant(app);
      const api = client(app.url, t.key);
      const kb = (await api('POST', '/v1/knowledge-bases', { name: 'k', dimensions: 32 })).body.id;
      const res = await api('POST', '/v1/documents', { knowledge_base_id: kb, title: 'doc', content });
      assert.equal(res.status, 202);
      return { t, api, jobId: res.body.job_id as string, documentId: res.body.document_id as string };
    }

    it('retries a failed attempt and then completes', async () => {
      fake.failNext(2, { status: 400, body: { error: { message: 'model overloaded' } } });
      const { t, jobId, api, documentId } = await ingest(SENTENCE.repeat(5));
      const job = await waitForJob(app, t.key, jobId);
      assert.equal(job.status, 'completed');
      assert.equal(job.attempts, 3);
      assert.equal(job.error, null);
      assert.equal((await api('GET', `/v1/documents/${documentId}`)).body.status, 'ready');
    });

    it('fails a job for good after its attempts, with a sanitized error, and releases its chunks', async () => {
      fake.failNext(3, { status: 400, body: { error: { message: 'bad input' } } });
      const { t, jobId, api, documentId } = await ingest(SENTENCE.repeat(40));
      const job = await waitForJob(app, t.key, jobId);
      assert.equal(job.status, 'failed');
      assert.equal(job.attempts, 3);
      assert.ok(job.error && job.error.length > 0);
      assert.ok(!job.error.includes('127.0.0.1') && !job.error.includes('\n'), job.error);
      assert.ok(Date.parse(job.completed_at!) > 0);
      const doc = (await api('GET', `/v1/documents/${documentId}`)).body;
      assert.equal(doc.status, 'failed');
      assert.equal(doc.chunk_count, 0);
      assert.equal(doc.error, job.error);
      const { rows } = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM chunks WHERE document_id = $1', [documentId]);
      assert.equal(rows[0]!.n, 0);
    });

    it('advances processed_chunks while it works', async () => {
      fake.delayMs = 150;
      try {
        const { api, jobId } = await ingest(SENTENCE.repeat(3000));
        const seen = new Set<string>();
        const job = await pollUntil(
          `job ${jobId} to complete or fail`,
          async () => {
            const current = (await api('GET', `/v1/jobs/${jobId}`)).body;
            seen.add(`${current.status}:${current.processed_chunks > 0 && current.processed_chunks < current.total_chunks ? 'partial' : current.processed_chunks}`);
            return current.status === 'completed' || current.status === 'failed' ? current : undefined;
          },
          { intervalMs: 30, lastSeen: () => [...seen].join(' ') },
        );
        assert.equal(job.status, 'completed');
        assert.ok(job.total_chunks > 64 * 2, `total ${job.total_chunks}`);
        assert.ok(seen.has('processing:partial'), [...seen].join(' '));
        assert.equal(job.processed_chunks, job.total_chunks);
      } finally {
        fake.delayMs = 0;
      }
    });
  });

  describe(`job leases [${database.name}]`, () => {
    it('lets another worker take over a job whose lease expired, and refuses the old worker', async () => {
      const db = await database.get();
      const type = `test-${randomUUID()}`;
      const id = await insertJob(db, { type: type as 'ingestion', tenantId: null, maxAttempts: 5 });
      const first = await claimJob(db, 'worker-a', 1, [type]);
      assert.equal(first?.id, id);
      assert.equal(await claimJob(db, 'worker-b', 1, [type]), undefined, 'a held lease is not claimable');
      await new Promise((r) => setTimeout(r, 1100));
      const second = await claimJob(db, 'worker-b', 30, [type]);
      assert.equal(second?.id, id);
      assert.equal(second?.attempts, 2);
      assert.equal(await heartbeatJob(db, id!, 'worker-a', 30), false);
      assert.equal(await completeJob(db, id!, 'worker-a'), false);
      assert.equal(await completeJob(db, id!, 'worker-b'), true);
    });

    /** Two workers (engines with their own lease owners) running `type` with one-second leases. */
    function twoWorkers(db: Database, type: string, run: JobDefinition['run']): EmbeddedWorkflowEngine[] {
      return ['a', 'b'].map(() => {
        const engine = new EmbeddedWorkflowEngine(db, pino({ level: 'silent' }), { leaseSeconds: 1, pollIntervalMs: 50, retryBaseSeconds: 0 });
        engine.register({ [type]: { run } });
        return engine;
      });
    }

    it('keeps a running attempt\'s lease while one of its steps outlasts it: another worker never runs the job beside it', async () => {
      const db = await database.get();
      const type = `test-${randomUUID()}`;
      let runs = 0;
      let finished = 0;
      const workers = twoWorkers(db, type, async (job, control) => {
        runs++;
        // One step three leases long, with no heartbeat of its own (a long audio segment transcribed).
        await new Promise((resolve) => setTimeout(resolve, 3000));
        await completeJob(db, job.id, control.owner);
        finished++;
      });
      const id = (await insertJob(db, { type: type as 'ingestion', tenantId: null, maxAttempts: 5 }))!;
      await workers[0]!.start();
      try {
        await pollUntil('the first worker to be running the job', () => runs > 0, { intervalMs: 10 });
        await workers[1]!.start();
        await pollUntil('the job to finish', () => finished > 0, { timeoutMs: 10_000 });
        const job = await findJobById(db, id);
        assert.deepEqual({ runs, status: job?.status, attempts: job?.attempts }, { runs: 1, status: 'completed', attempts: 1 });
      } finally {
        await Promise.all(workers.map((w) => w.stop()));
      }
    });

    it('stops an attempt whose lease was taken from it, leaving the job to the new holder', async () => {
      const db = await database.get();
      const type = `test-${randomUUID()}`;
      let aborted: unknown;
      const [worker] = twoWorkers(db, type, async (_job, control) => {
        // A step that would run for a minute, but listens for its signal.
        await new Promise((resolve, reject) => {
          const timer = setTimeout(resolve, 60_000);
          control.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            aborted = control.signal.reason;
            reject(control.signal.reason as Error);
          });
        });
      });
      const id = (await insertJob(db, { type: type as 'ingestion', tenantId: null, maxAttempts: 5 }))!;
      await worker!.start();
      try {
        await pollUntil('the job to be running', async () => (await findJobById(db, id))?.status === 'processing', { intervalMs: 10 });
        await db.query("UPDATE jobs SET lease_owner = 'another-worker', lease_expires_at = now() + interval '1 minute' WHERE id = $1", [id]);
        await pollUntil('the attempt to be stopped', () => aborted !== undefined, { timeoutMs: 5_000 });
        assert.ok(aborted instanceof LeaseLostError, String(aborted));
        const job = await findJobById(db, id);
        assert.deepEqual(
          { status: job?.status, owner: job?.lease_owner, attempts: job?.attempts, error: job?.error },
          { status: 'processing', owner: 'another-worker', attempts: 1, error: null },
          'nothing recorded over the new holder',
        );
      } finally {
        await worker!.stop();
      }
    });

    it('runs at most one job per dedupe key', async () => {
      const db = await database.get();
      const key = `dedupe-${randomUUID()}`;
      const a = await insertJob(db, { type: 'billing_period', tenantId: null, dedupeKey: key });
      const b = await insertJob(db, { type: 'billing_period', tenantId: null, dedupeKey: key });
      assert.ok(a);
      assert.equal(b, undefined);
    });
  });
}

describe('job error sanitizing', () => {
  it('keeps the first line and hides URLs and paths', () => {
    assert.equal(
      sanitizeJobError(new Error('connect to postgres://u:p@db:5432/x failed at /srv/lore/core/x.ts\n    at foo')),
      'connect to [url] failed at [path]',
    );
    assert.equal(sanitizeJobError('not an error'), 'The job failed.');
  });
});

describe('embedded job engine on PGlite with a backlog', () => {
  it('lets timers and sockets run between jobs instead of working the whole backlog off first', async () => {
    // PGlite answers through promise callbacks alone: without a turn of the event loop between jobs,
    // a timer set before the backlog fired only after its last job (and maintenance never ran).
    const db = await openPgliteDatabase('memory://');
    await migrate(db);
    const engine = new EmbeddedWorkflowEngine(db, pino({ level: 'silent' }), { concurrency: 2, releaseStaleLeasesOnStart: false });
    let done = 0;
    engine.register({
      billing_period: {
        run: async () => {
          await db.query('SELECT 1');
          done += 1;
        },
      },
    });
    const jobs = 300;
    for (let i = 0; i < jobs; i++) await insertJob(db, { type: 'billing_period', tenantId: null });
    let doneWhenTheTimerFired = -1;
    setTimeout(() => (doneWhenTheTimerFired = done), 0);
    await engine.start();
    try {
      await pollUntil(`the ${jobs} jobs to be done`, () => done === jobs, { intervalMs: 0, lastSeen: () => `${done} done` });
      assert.ok(doneWhenTheTimerFired >= 0 && doneWhenTheTimerFired < jobs, `the timer fired after ${doneWhenTheTimerFired} of ${jobs} jobs`);
    } finally {
      await engine.stop();
      await db.close();
    }
  });

  it('lets timers run within a long job, at each heartbeat', async () => {
    const db = await openPgliteDatabase('memory://');
    await migrate(db);
    const engine = new EmbeddedWorkflowEngine(db, pino({ level: 'silent' }), { concurrency: 1, releaseStaleLeasesOnStart: false });
    const steps = 50;
    let step = 0;
    let finished = false;
    engine.register({
      billing_period: {
        run: async (_job, control) => {
          // A long activity: many database calls, a heartbeat after each (as ingestion of a big corpus does).
          for (step = 0; step < steps; step++) {
            await db.query('SELECT 1');
            await control.heartbeat({ processedChunks: step });
          }
          finished = true;
        },
      },
    });
    await insertJob(db, { type: 'billing_period', tenantId: null });
    await engine.start();
    try {
      // Wait for the job to be under way, then set a timer.
      await pollUntil('the job to be under way', () => step > 0, { intervalMs: 0 });
      const stepWhenTheTimerFired = await new Promise<number>((resolve) => setTimeout(() => resolve(finished ? steps : step), 0));
      assert.ok(stepWhenTheTimerFired < steps, 'the timer waited for the whole job');
    } finally {
      await engine.stop();
      await db.close();
    }
  });
});
