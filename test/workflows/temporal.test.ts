import assert from 'node:assert/strict';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime as TemporalRuntime, bundleWorkflowCode } from '@temporalio/worker';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { loadConfig, ConfigError } from '../../core/config.js';
import { completeJob, findJobById } from '../../core/jobs/job.repository.js';
import { type JobDefinitions, NonRetryableError } from '../../core/ports/workflow-engine.js';
import { createActivities } from '../../workflows/activities.js';
import { type JobOutcome, createJobActivities } from '../../workflows/temporal/job.activities.js';
import type { RunJobInput, ScheduledJob } from '../../workflows/temporal/job-input.js';
import { TemporalWorkflowEngine, type WorkflowStarter } from '../../workflows/temporal/temporal.engine.js';
import { WORKFLOWS_PATH } from '../../workflows/temporal/workflows-path.js';
import { createWorkerMetrics, serveWorkerMetrics } from '../../workflows/temporal/worker-metrics.js';
import { type TestApp, client, createTenant, startTestApp } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import { runWorker } from '../support/process.js';

const silent = pino({ level: 'silent' });
const OPTIONS = { leaseSeconds: 30, retryBaseSeconds: 2, retryMaxSeconds: 300 };

/**
 * A fake of Temporal's frontend for the dispatcher (no Temporal server can run here): records the
 * workflows it is asked to start, refuses a second start of a running id as Temporal does (the real
 * adapter turns that refusal into success), and can be made unreachable.
 */
class FakeTemporalStarter implements WorkflowStarter {
  readonly started = new Map<string, { taskQueue: string; input: RunJobInput }>();
  /** Billing workflows by id, with the transitions signalled to each (the first signal starts it). */
  readonly billing = new Map<string, { taskQueue: string; tenantId: string; signals: ScheduledJob[] }>();
  startCalls = 0;
  unreachable = false;

  scheduleBillingPeriod(options: { workflowId: string; taskQueue: string; tenantId: string; job: ScheduledJob }): Promise<void> {
    this.startCalls++;
    if (this.unreachable) return Promise.reject(new Error('14 UNAVAILABLE: connection refused'));
    const workflow = this.billing.get(options.workflowId) ?? { taskQueue: options.taskQueue, tenantId: options.tenantId, signals: [] };
    workflow.signals.push(options.job);
    this.billing.set(options.workflowId, workflow);
    return Promise.resolve();
  }

  startJob(options: { workflowId: string; taskQueue: string; input: RunJobInput }): Promise<void> {
    this.startCalls++;
    if (this.unreachable) return Promise.reject(new Error('14 UNAVAILABLE: connection refused'));
    if (!this.started.has(options.workflowId)) this.started.set(options.workflowId, { taskQueue: options.taskQueue, input: options.input });
    return Promise.resolve();
  }
}

describe('Temporal: the job workflow bundle and the worker entry point', function () {
  this.timeout(120_000);

  it("bundles the workflow with the SDK's bundler (the determinism sandbox accepts it)", async () => {
    TemporalRuntime.install({ logger: new DefaultLogger('WARN') });
    const bundle = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: new DefaultLogger('WARN') });
    assert.ok(bundle.code.includes('runJob'));
    assert.ok(bundle.code.length > 100_000);
  });

  it('refuses to start without WORKFLOW_ENGINE=temporal and a server database, naming what is missing', async () => {
    assert.throws(() => loadConfig({ WORKFLOW_ENGINE: 'temporal', DATABASE_URL: 'postgres://db/lore' }), ConfigError);
    assert.throws(() => loadConfig({ WORKFLOW_ENGINE: 'temporal', TEMPORAL_ADDRESS: 'temporal:7233' }), /DATABASE_URL/);
    const config = loadConfig({ WORKFLOW_ENGINE: 'temporal', TEMPORAL_ADDRESS: 'temporal:7233', TEMPORAL_API_KEY: 'k', DATABASE_URL: 'postgres://db/lore' });
    assert.deepEqual(config.workflowEngine, { kind: 'temporal', address: 'temporal:7233', namespace: 'default', taskQueue: 'lore', apiKey: 'k', tls: true });
    const failure = (env: Record<string, string>) =>
      runWorker(env).then(
        () => assert.fail('the worker started'),
        (err: { code: number; stderr: string }) => err,
      );
    const embedded = await failure({});
    assert.equal(embedded.code, 1);
    assert.match(embedded.stderr, /needs WORKFLOW_ENGINE=temporal/);
    assert.match((await failure({ WORKFLOW_ENGINE: 'temporal', TEMPORAL_ADDRESS: '127.0.0.1:7233' })).stderr, /DATABASE_URL/);
  });
});

for (const database of testDatabases()) {
  describe(`Temporal engine: transactional outbox, dispatcher and activities [${database.name}]`, function () {
    this.timeout(120_000);
    let app: TestApp;

    before(async () => {
      // The API as it runs with WORKFLOW_ENGINE=temporal; its dispatcher is not started (no server here).
      // (DATABASE_URL only satisfies the configuration: the suite's database is the one given.)
      app = await startTestApp(await database.get(), {
        jobs: false,
        env: { WORKFLOW_ENGINE: 'temporal', TEMPORAL_ADDRESS: '127.0.0.1:1', DATABASE_URL: 'postgres://configuration-only/x' },
      });
    });
    /** Jobs this suite leaves queued are removed, so later suites' engines on the shared database never run them. */
    after(async () => {
      await app.db.query("DELETE FROM jobs WHERE status IN ('queued', 'processing') AND id IN (SELECT job_id FROM job_outbox)");
      await app.close();
    });

    const engine = (starter: WorkflowStarter) => new TemporalWorkflowEngine(app.db, starter, silent, { taskQueue: 'lore', maxAttempts: 5, pollIntervalMs: 60_000 });
    const metrics = createWorkerMetrics();
    const activities = (definitions: JobDefinitions = createActivities(app.services)) => createJobActivities({ db: app.db, definitions, options: OPTIONS, log: silent, metrics: metrics.domain });
    const outbox = async (jobId: string) =>
      (await app.db.query<{ dispatched_at: Date | null }>('SELECT dispatched_at FROM job_outbox WHERE job_id = $1', [jobId])).rows[0];

    /** A queued ingestion job; `repeat` sentences (over 256 chunks from 8,000: more than one write on either engine, so heartbeats between). */
    async function documentJob(repeat = 40): Promise<{ jobId: string; key: string; kb: string }> {
      const tenant = await createTenant(app, 'standard');
      const api = client(app.url, tenant.key);
      const kb = (await api('POST', '/v1/knowledge-bases', { name: 'T' })).body.id as string;
      const res = await api('POST', '/v1/documents', { knowledge_base_id: kb, title: 'Tea', content: 'Green tea is brewed at eighty degrees. '.repeat(repeat) });
      assert.equal(res.status, 202);
      return { jobId: res.body.job_id as string, key: tenant.key, kb };
    }

    it('writes the job and its outbox row in the request\'s transaction; the dispatcher starts one workflow per job, once', async () => {
      assert.equal(app.services.adapters.engine.constructor.name, 'TemporalWorkflowEngine');
      const { jobId } = await documentJob();
      assert.deepEqual(await outbox(jobId), { dispatched_at: null }, 'pending until a dispatcher starts it');
      const fake = new FakeTemporalStarter();
      // A crash between commit and start lost nothing: a new engine (a restarted pod) finds the row.
      const started = await engine(fake).dispatch();
      assert.ok(started >= 1);
      const workflow = fake.started.get(`lore-job-${jobId}`);
      assert.ok(workflow);
      assert.equal(workflow.taskQueue, 'lore-documents');
      assert.equal(workflow.input.jobId, jobId);
      assert.equal(workflow.input.maxAttempts, 5);
      assert.ok((await outbox(jobId))?.dispatched_at instanceof Date);
      const calls = fake.startCalls;
      assert.equal(await engine(fake).dispatch(), 0, 'a dispatched row is not started again');
      assert.equal(fake.startCalls, calls);
    });

    it('starts nothing for a rolled-back enqueue, and keeps rows pending while Temporal cannot be reached', async () => {
      const fake = new FakeTemporalStarter();
      const e = engine(fake);
      await e.dispatch();
      await assert.rejects(
        app.db.transaction(async (tx) => {
          await e.enqueue(tx, { type: 'billing_period', tenantId: null });
          throw new Error('rolled back');
        }),
      );
      assert.equal(await e.dispatch(), 0);
      const jobId = await app.db.transaction((tx) => e.enqueue(tx, { type: 'billing_period', tenantId: null, runAt: new Date(Date.now() + 3_600_000) }));
      fake.unreachable = true;
      assert.equal(await e.dispatch(), 0);
      assert.deepEqual(await outbox(jobId!), { dispatched_at: null });
      fake.unreachable = false;
      assert.ok((await e.dispatch()) >= 1);
      const workflow = fake.started.get(`lore-job-${jobId}`)!;
      assert.equal(workflow.taskQueue, 'lore-billing');
      assert.ok(workflow.input.runAt > Date.now() + 3_500_000, 'a scheduled job waits on a timer in its workflow');
    });

    it("sends a tenant's billing-period transitions to its one billing workflow, as signals", async () => {
      const fake = new FakeTemporalStarter();
      await engine(fake).dispatch();
      // A new tenant's first period is scheduled to end in a month: its billing workflow is signalled.
      const tenant = await createTenant(app, 'standard');
      await engine(fake).dispatch();
      const workflow = fake.billing.get(`lore-billing-${tenant.id}`);
      assert.ok(workflow, 'the tenant has a billing workflow');
      assert.equal(workflow.taskQueue, 'lore-billing');
      assert.equal(workflow.tenantId, tenant.id);
      assert.equal(workflow.signals.length, 1);
      const end = (await app.db.query<{ period_end: Date }>('SELECT period_end FROM tenants WHERE id = $1', [tenant.id])).rows[0]!.period_end;
      assert.equal(workflow.signals[0]!.runAt, new Date(end).getTime());
      assert.equal(fake.started.size, 0, 'no job workflow of its own');
      await engine(fake).dispatch();
      assert.equal(workflow.signals.length, 1, 'signalled once');
    });

    it('runs a job attempt as an activity: claims the row, heartbeats, completes the job the API reports', async () => {
      const { jobId, key, kb } = await documentJob(8000);
      const env = new MockActivityEnvironment();
      const heartbeats: unknown[] = [];
      env.on('heartbeat', (details: unknown) => heartbeats.push(details));
      const outcome = await env.run(activities().attemptJob, jobId);
      assert.deepEqual(outcome, { status: 'done', detail: 'completed' });
      assert.ok(heartbeats.length >= 1, 'progress reaches Temporal as heartbeats');
      const job = await client(app.url, key)('GET', `/v1/jobs/${jobId}`);
      assert.equal(job.body.status, 'completed');
      const docs = await client(app.url, key)('GET', `/v1/knowledge-bases/${kb}/documents`);
      assert.equal(docs.body[0].status, 'ready');
      // A redelivered activity finds the job done and changes nothing.
      assert.deepEqual(await new MockActivityEnvironment().run(activities().attemptJob, jobId), { status: 'done', detail: 'gone' });
      // The worker's metrics count the attempt; its endpoint serves them and a liveness probe.
      const server = serveWorkerMetrics(metrics, 0, '127.0.0.1');
      await once(server, 'listening');
      try {
        const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        const text = await (await fetch(`${base}/metrics`)).text();
        assert.match(text, /lore_job_attempts_total\{type="ingestion",outcome="completed"\} [1-9]/);
        assert.match(text, /lore_job_attempt_duration_seconds_count\{type="ingestion",outcome="completed"\} [1-9]/);
        assert.equal((await fetch(`${base}/health/live`)).status, 200);
        assert.equal((await fetch(`${base}/other`)).status, 404);
      } finally {
        server.close();
      }
    });

    it('heartbeats to Temporal with each renewal of the lease, while a step of the job outlasts the lease', async () => {
      const slowStep: JobDefinitions = {
        ingestion: {
          run: async (job, control) => {
            // One step of a second and a half with no progress to report (a lease of one second).
            await new Promise((resolve) => setTimeout(resolve, 1500));
            await completeJob(app.db, job.id, control.owner);
          },
        },
      };
      const { jobId } = await documentJob();
      const env = new MockActivityEnvironment();
      const heartbeats: unknown[] = [];
      env.on('heartbeat', (details: unknown) => heartbeats.push(details));
      const oneSecond = createJobActivities({ db: app.db, definitions: slowStep, options: { ...OPTIONS, leaseSeconds: 1 }, log: silent, metrics: metrics.domain });
      assert.deepEqual(await env.run(oneSecond.attemptJob, jobId), { status: 'done', detail: 'completed' });
      assert.ok(heartbeats.length >= 2, `${heartbeats.length} heartbeats in a second and a half, at a third of a lease each`);
      assert.equal((await findJobById(app.db, jobId))?.attempts, 1);
    });

    it('passes cancellation to the running job, and records failures as the embedded engine does', async () => {
      const waitsForCancel: JobDefinitions = {
        ingestion: {
          run: (_job, control) =>
            new Promise((_resolve, reject) => control.signal.addEventListener('abort', () => reject(new Error('cancelled by Temporal')))),
        },
      };
      const { jobId } = await documentJob();
      const env = new MockActivityEnvironment();
      const running = env.run(activities(waitsForCancel).attemptJob, jobId);
      await new Promise((r) => setTimeout(r, 50));
      env.cancel();
      assert.deepEqual(await running, { status: 'retry', delaySeconds: 2 });
      let row = (await findJobById(app.db, jobId))!;
      assert.equal(row.status, 'queued', 'the job is not left processing');
      assert.equal(row.attempts, 1);

      // The row's run_at is 2 s ahead: an attempt now is told to come back then.
      const early: JobOutcome = await new MockActivityEnvironment().run(activities(waitsForCancel).attemptJob, jobId);
      assert.equal(early.status, 'retry');

      let failedHook = 0;
      const refuses: JobDefinitions = {
        ingestion: {
          run: () => Promise.reject(new NonRetryableError('quota exhausted')),
          failed: () => {
            failedHook++;
            return Promise.resolve();
          },
        },
      };
      await app.db.query("UPDATE jobs SET run_at = now() - interval '1 second' WHERE id = $1", [jobId]);
      assert.deepEqual(await new MockActivityEnvironment().run(activities(refuses).attemptJob, jobId), { status: 'done', detail: 'failed' });
      row = (await findJobById(app.db, jobId))!;
      assert.equal(row.status, 'failed');
      assert.equal(row.error, 'quota exhausted');
      assert.equal(failedHook, 1);
    });

    it('tells the workflow to wait while another attempt still holds the lease', async () => {
      const { jobId } = await documentJob();
      await app.db.query("UPDATE jobs SET status = 'processing', lease_owner = 'elsewhere', lease_expires_at = now() + interval '1 minute' WHERE id = $1", [jobId]);
      assert.deepEqual(await new MockActivityEnvironment().run(activities().attemptJob, jobId), { status: 'retry', delaySeconds: 30 });
      await app.db.query("UPDATE jobs SET lease_expires_at = now() - interval '1 second' WHERE id = $1", [jobId]);
      assert.deepEqual(await new MockActivityEnvironment().run(activities().attemptJob, jobId), { status: 'done', detail: 'completed' });
    });
  });
}
