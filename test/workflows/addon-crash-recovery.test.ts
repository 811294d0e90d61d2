import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { openPgliteDatabase } from '../../core/db/pglite.database.js';
import { type ApiClient, client, waitForJob } from '../support/app.js';
import { joinedLibrivox } from '../support/audio-fixtures.js';
import { pollUntil } from '../support/poll.js';
import { type ServerProcess, startServerProcess, stopServerProcess } from '../support/process.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const SECRET = 'crash-test-callback-secret';

describe('a Lore process killed during an add-on job or a callback retry', function () {
  this.timeout(240_000);
  let dataDir: string;
  let receiver: WebhookReceiver;
  let env: Record<string, string>;
  before(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'lore-addon-crash-'));
    receiver = await WebhookReceiver.start();
    env = { DATA_DIR: dataDir, LOG_LEVEL: 'info', CALLBACK_ALLOWED_NETWORKS: '127.0.0.1/32', CALLBACK_RETRY_SCHEDULE: '1,1,1,1' };
  });
  after(async () => {
    await receiver.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  async function tenant(server: ServerProcess): Promise<{ key: string; api: ApiClient }> {
    const token = (await fs.readFile(path.join(dataDir, 'admin-token'), 'utf8')).trim();
    const admin = client(server.url, token);
    const created = (await admin('POST', '/internal/v1/tenants', { name: 'crash', plan: 'enterprise' })).body;
    assert.equal((await admin('PATCH', `/internal/v1/tenants/${created.id}`, { addons: ['transcription', 'report_generation'] })).status, 200);
    return { key: created.api_key as string, api: client(server.url, created.api_key as string) };
  }

  it('resumes a transcription after the last recorded segment, and a callback on its schedule, each delivered under one webhook-id', async () => {
    const first = await startServerProcess(env);
    const t = await tenant(first);
    // Three segments of real speech: long enough to kill the job between two of them.
    const { wav } = await joinedLibrivox(3);
    const form = new FormData();
    form.append('audio', new Blob([wav]), 'reading.wav');
    form.append('language', 'en');
    form.append('callback_url', receiver.url);
    form.append('callback_secret', SECRET);
    // The receiver is down for the first two attempts.
    receiver.answers.push(503, 503);
    const accepted = await t.api('POST', '/v1/transcribe', form);
    assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
    const jobId = accepted.body.job_id as string;
    let seen: any;
    const started = await pollUntil(
      'the transcription to have recorded a segment',
      async () => {
        seen = (await t.api('GET', `/v1/jobs/${jobId}`)).body;
        return seen.status === 'processing' && seen.processed_chunks > 0 ? seen : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 100, lastSeen: () => JSON.stringify(seen) },
    );
    assert.ok(started.processed_chunks < started.total_chunks, 'killed in the middle');
    await stopServerProcess(first, 'SIGKILL');

    const second = await startServerProcess(env);
    try {
      // Once the first delivery attempt has been recorded, kill again: the retries are rows, not timers.
      await pollUntil(
        'the first delivery attempt',
        async () => {
          seen = (await client(second.url, t.key)('GET', `/v1/jobs/${jobId}`)).body;
          return seen.delivery?.attempts >= 1 ? seen : undefined;
        },
        { timeoutMs: 150_000, lastSeen: () => JSON.stringify(seen) },
      );
    } finally {
      await stopServerProcess(second, 'SIGKILL');
    }
    const third = await startServerProcess(env);
    let job: any;
    try {
      job = await pollUntil(
        'the callback to be delivered',
        async () => {
          const j = await waitForJob(third, t.key, jobId, 60_000);
          return j.delivery?.status === 'delivered' ? j : undefined;
        },
        { timeoutMs: 60_000 },
      );
      assert.equal(job.status, 'completed');
      assert.equal(job.attempts, 2, 'the transcription ran twice: before and after the first kill');
      assert.equal(job.delivery.attempts, 3);
      const deliveries = receiver.received.filter((r) => r.body.includes(jobId));
      assert.ok(deliveries.length >= 3, `${deliveries.length} deliveries`);
      assert.equal(new Set(deliveries.map((d) => d.headers['webhook-id'])).size, 1);
      const payload = new Webhook(SECRET, { format: 'raw' }).verify(deliveries.at(-1)!.body, deliveries.at(-1)!.headers as Record<string, string>) as any;
      assert.equal(payload.result.segments.length, job.total_chunks);
    } finally {
      await stopServerProcess(third);
    }
    // Every segment exactly once, in order.
    const db = await openPgliteDatabase(path.join(dataDir, 'pgdata'));
    try {
      const { rows } = await db.query<{ starts: number[] }>(
        "SELECT ARRAY(SELECT (s->>'start_seconds')::float8 FROM jsonb_array_elements(segments) s) AS starts FROM addon_requests WHERE job_id = $1",
        [jobId],
      );
      assert.deepEqual(rows[0]!.starts, Array.from({ length: job.total_chunks }, (_, i) => i * 30));
    } finally {
      await db.close();
    }
  });
});
