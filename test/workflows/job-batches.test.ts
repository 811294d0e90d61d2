import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import type { Database } from '../../core/db/database.js';
import { type JobRow, claimJobs, completeJob, completeJobs, findJobById, insertJob } from '../../core/jobs/job.repository.js';
import { type JobDefinition, LeaseLostError } from '../../core/ports/workflow-engine.js';
import { EmbeddedWorkflowEngine } from '../../workflows/embedded-engine.js';
import { testDatabases } from '../support/databases.js';

for (const database of testDatabases()) {
  describe(`job batches [${database.name}]`, () => {
    let db: Database;
    before(async () => {
      db = await database.get();
    });

    /** A job type no other engine runs, so only this test claims its jobs. */
    const newType = () => `test-${randomUUID()}`;

    /** Queues jobs in this order (each due a second after the previous, all in the past). */
    async function enqueue(type: string, count: number, payload: (i: number) => Record<string, unknown> = () => ({})): Promise<string[]> {
      const start = Date.now() - 60_000;
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        const runAt = new Date(start + i * 1000);
        ids.push((await insertJob(db, { type: type as 'ingestion', tenantId: null, payload: payload(i), runAt, maxAttempts: 2 }))!);
      }
      return ids;
    }

    async function job(id: string): Promise<JobRow> {
      return (await findJobById(db, id))!;
    }

    /**
     * An engine that runs jobs of `type` in batches of up to 3 with `batch`, and a job claimed
     * alone by recording it in `alone` and completing it.
     */
    function batchingEngine(type: string, batch: NonNullable<JobDefinition['batch']>['run']) {
      const alone: string[] = [];
      const engine = engineFor(type, {
        run: async (j, control) => {
          alone.push(j.id);
          await completeJob(db, j.id, control.owner);
        },
        batch: { max: 3, run: batch },
      });
      return { engine, alone };
    }

    function engineFor(type: string, definition: JobDefinition) {
      const engine = new EmbeddedWorkflowEngine(db, pino({ level: 'silent' }), { retryBaseSeconds: 0, maxAttempts: 2, leaseSeconds: 30 });
      engine.register({ [type]: definition });
      return engine;
    }

    describe('claiming', () => {
      it('claims up to the batch size of due first attempts in one statement, in queue order, each leased', async () => {
        const type = newType();
        const ids = await enqueue(type, 5);
        const first = await claimJobs(db, 'worker-a', 30, [type], { [type]: 3 });
        assert.deepEqual(
          first.map((j) => j.id),
          ids.slice(0, 3),
        );
        const { rows } = await db.query<{ id: string; status: string; lease_owner: string; attempts: number; leased_for: number }>(
          `SELECT id, status, lease_owner, attempts, extract(epoch FROM lease_expires_at - now())::float8 AS leased_for
           FROM jobs WHERE id = ANY($1::uuid[]) ORDER BY run_at`,
          [ids.slice(0, 3)],
        );
        for (const r of rows) {
          assert.deepEqual([r.status, r.lease_owner, r.attempts], ['processing', 'worker-a', 1]);
          assert.ok(r.leased_for > 25 && r.leased_for <= 30, `leased for ${r.leased_for} s`);
        }
        // Another worker takes what is left; nothing is claimed twice.
        assert.deepEqual(
          (await claimJobs(db, 'worker-b', 30, [type], { [type]: 3 })).map((j) => j.id),
          ids.slice(3),
        );
        assert.deepEqual(await claimJobs(db, 'worker-c', 30, [type], { [type]: 3 }), []);
      });

      it('claims one job at a time of a type without a batch size', async () => {
        const type = newType();
        const ids = await enqueue(type, 3);
        assert.deepEqual(
          (await claimJobs(db, 'worker-a', 30, [type], { [newType()]: 3 })).map((j) => j.id),
          [ids[0]],
        );
        assert.deepEqual(
          (await claimJobs(db, 'worker-a', 30, [type])).map((j) => j.id),
          [ids[1]],
        );
      });

      it('never batches a retry or a job whose lease expired: each is claimed alone', async () => {
        const type = newType();
        const [retry1, first1, retry2, first2, first3, expired] = (await enqueue(type, 6)) as [string, string, string, string, string, string];
        // A queued job with an attempt behind it is a retry; a processing one with an expired lease lost its worker.
        await db.query(`UPDATE jobs SET attempts = 1, error = 'failed before' WHERE id = ANY($1::uuid[])`, [[retry1, retry2]]);
        const batch = { [type]: 5 };
        const claim = async () => (await claimJobs(db, 'worker-a', 30, [type], batch)).map((j) => [j.id, j.attempts]);
        assert.deepEqual(await claim(), [[retry1, 2]]);
        await db.query(
          `UPDATE jobs SET status = 'processing', attempts = 1, lease_owner = 'dead-worker', lease_expires_at = now() - interval '1 second'
           WHERE id = $1`,
          [expired],
        );
        assert.deepEqual(await claim(), [
          [first1, 1],
          [first2, 1],
          [first3, 1],
        ]);
        assert.deepEqual(await claim(), [[retry2, 2]]);
        assert.deepEqual(await claim(), [[expired, 2]]);
        assert.deepEqual(await claim(), []);
      });
    });

    describe('the embedded engine', () => {
      it('runs first attempts in batches whose heartbeat extends every lease, and a job claimed alone through run', async () => {
        const type = newType();
        const ids = await enqueue(type, 7);
        const batches: string[][] = [];
        const { engine, alone } = batchingEngine(type, async (jobs, control) => {
          const batchIds = jobs.map((j) => j.id);
          batches.push(batchIds);
          await db.query(`UPDATE jobs SET lease_expires_at = now() + interval '1 second' WHERE id = ANY($1::uuid[])`, [batchIds]);
          await control.heartbeat();
          const { rows } = await db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM jobs WHERE id = ANY($1::uuid[]) AND lease_expires_at > now() + interval '20 seconds'`,
            [batchIds],
          );
          assert.equal(rows[0]!.n, jobs.length, 'the heartbeat extended every lease of the batch');
          assert.equal(await completeJobs(db, batchIds, control.owner), jobs.length);
          return [];
        });
        assert.equal(await engine.drain([type]), 7);
        assert.deepEqual(batches, [ids.slice(0, 3), ids.slice(3, 6)]);
        assert.deepEqual(alone, [ids[6]]);
        for (const id of ids) assert.deepEqual([(await job(id)).status, (await job(id)).attempts], ['completed', 1]);
      });

      it('runs every job of a failed batch alone in the same attempt: each fails, retries and completes on its own, retries alone', async () => {
        const type = newType();
        const ids = await enqueue(type, 5, (i) => ({ poisoned: i === 1 }));
        const batches: string[][] = [];
        const alone: Array<[string, number]> = [];
        const failed: string[] = [];
        const engine = engineFor(type, {
          run: async (j, control) => {
            alone.push([j.id, j.attempts]);
            if (j.payload.poisoned) throw new Error('This job cannot be done.');
            await completeJob(db, j.id, control.owner);
          },
          batch: {
            max: 3,
            run: async (jobs, control) => {
              batches.push(jobs.map((j) => j.id));
              if (jobs.some((j) => j.payload.poisoned)) throw new Error('One job of the batch spoils it.');
              await completeJobs(
                db,
                jobs.map((j) => j.id),
                control.owner,
              );
              return [];
            },
          },
          failed: (_tx, j) => {
            failed.push(j.id);
            return Promise.resolve();
          },
        });
        await engine.drain([type]);
        const [j1, poisoned, j3, j4, j5] = ids as [string, string, string, string, string];
        // The retry of the poisoned job is due at once, but the next batch holds first attempts only.
        assert.deepEqual(batches, [
          [j1, poisoned, j3],
          [j4, j5],
        ]);
        assert.deepEqual(alone, [
          [j1, 1],
          [poisoned, 1],
          [j3, 1],
          [poisoned, 2],
        ]);
        for (const id of [j1, j3, j4, j5]) assert.deepEqual([(await job(id)).status, (await job(id)).attempts], ['completed', 1]);
        const bad = await job(poisoned);
        assert.deepEqual([bad.status, bad.attempts, bad.error], ['failed', 2, 'This job cannot be done.']);
        assert.deepEqual(failed, [poisoned]);
      });

      it('runs the jobs a batch hands back one by one', async () => {
        const type = newType();
        const ids = await enqueue(type, 3);
        const { engine, alone } = batchingEngine(type, async (jobs, control) => {
          await completeJobs(db, [jobs[0]!.id, jobs[2]!.id], control.owner);
          return [jobs[1]!];
        });
        await engine.drain([type]);
        assert.deepEqual(alone, [ids[1]]);
        for (const id of ids) assert.equal((await job(id)).status, 'completed');
      });

      it('leaves a job whose lease was lost in a batch to its new worker, and runs the others alone', async () => {
        const type = newType();
        const [j1, stolen, j3] = (await enqueue(type, 3)) as [string, string, string];
        let lost: unknown;
        const { engine, alone } = batchingEngine(type, async (_jobs, control) => {
          await db.query(`UPDATE jobs SET lease_owner = 'another-worker' WHERE id = $1`, [stolen]);
          try {
            await control.heartbeat();
          } catch (err) {
            lost = err;
            throw err;
          }
          return [];
        });
        await engine.drain([type]);
        assert.ok(lost instanceof LeaseLostError);
        assert.deepEqual(alone, [j1, j3]);
        assert.deepEqual([(await job(j1)).status, (await job(j3)).status], ['completed', 'completed']);
        const taken = await job(stolen);
        assert.deepEqual([taken.status, taken.lease_owner, taken.attempts], ['processing', 'another-worker', 1]);
      });
    });
  });
}
