import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { OpenAiReportGenerator } from '../../core/adapters/openai.report-generator.js';
import { OpenAiTranscriber } from '../../core/adapters/openai.transcriber.js';
import { SUPPORTED_LANGUAGES } from '../../core/translation/translation.schema.js';
import { TEST_ADMIN_TOKEN, type TestApp, client, createTenant, errorBody, startTestApp, waitForJob } from '../support/app.js';
import { type AudioFormat, MEETING_LINES, joinedLibrivox, spoken, wordErrorRate } from '../support/audio-fixtures.js';
import { TestClock } from '../support/clock.js';
import { testDatabases } from '../support/databases.js';
import { FakeOpenAiAddonsServer } from '../support/fake-openai-addons.server.js';
import { pollUntil } from '../support/poll.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const RAW_SECRET = 'a-receiver-secret-of-some-length';
const STANDARD_SECRET = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;

const MEETING = MEETING_LINES.slice(0, 6).join('\n');

const ENV = {
  CALLBACK_ALLOWED_NETWORKS: '127.0.0.1/32',
  CALLBACK_RETRY_SCHEDULE: '0.2,0.2,0.2',
  REPORT_MAX_CHARS: '5000',
  TRANSCRIPTION_MAX_SECONDS: '120',
};

async function addonTenant(app: TestApp, addons: string[] = ['transcription', 'report_generation'], plan: 'standard' | 'enterprise' = 'standard') {
  const t = await createTenant(app, plan);
  const res = await client(app.url, TEST_ADMIN_TOKEN)('PATCH', `/internal/v1/tenants/${t.id}`, { addons });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { ...t, api: client(app.url, t.key) };
}

function audioForm(audio: Buffer | undefined, fields: Record<string, string> = {}, name = 'speech.wav'): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (audio) form.append('audio', new Blob([audio]), name);
  return form;
}

for (const database of testDatabases()) {
  describe(`add-ons: transcription and reports [${database.name}]`, () => {
    let app: TestApp;
    let receiver: WebhookReceiver;
    before(async () => {
      app = await startTestApp(await database.get(), { env: ENV });
      receiver = await WebhookReceiver.start();
    });
    after(async () => {
      await app.close();
      await receiver.close();
    });

    it('refuses tenants without the add-on (403 addon_not_enabled naming it)', async () => {
      const t = await addonTenant(app, []);
      const transcribe = await t.api('POST', '/v1/transcribe', audioForm(await spoken('hello')));
      assert.equal(transcribe.status, 403);
      assert.deepEqual({ error: errorBody(transcribe).error, addon: transcribe.body.addon }, { error: 'addon_not_enabled', addon: 'transcription' });
      const report = await t.api('POST', '/v1/reports/generate', { transcript: MEETING });
      assert.equal(report.status, 403);
      assert.deepEqual({ error: report.body.error, addon: report.body.addon }, { error: 'addon_not_enabled', addon: 'report_generation' });
      const onlyReports = await addonTenant(app, ['report_generation']);
      assert.equal((await onlyReports.api('POST', '/v1/transcribe', audioForm(await spoken('hello')))).body.addon, 'transcription');
    });

    it('requires a write key', async () => {
      const t = await addonTenant(app);
      const keyRes = await t.api('POST', '/v1/auth/keys', { name: 'reader', role: 'read' });
      const read = client(app.url, keyRes.body.key as string);
      assert.equal((await read('POST', '/v1/reports/generate', { transcript: MEETING })).status, 403);
      assert.equal((await client(app.url)('POST', '/v1/reports/generate', { transcript: MEETING })).status, 401);
    });

    it('transcribes real recorded English speech with the local engine, segment by segment, and meters the audio seconds', async function () {
      // PocketSphinx takes about 45 s for these 49 s of speech on two idle cores; a busy machine needs more.
      this.timeout(180_000);
      const t = await addonTenant(app);
      // About 49 s of LibriVox readings: two segments of 30 s.
      const { wav, reference } = await joinedLibrivox(2);
      const res = await t.api('POST', '/v1/transcribe', audioForm(wav, { language: 'en' }));
      assert.equal(res.status, 202, JSON.stringify(res.body));
      const job = await waitForJob(app, t.key, res.body.job_id as string, 120_000);
      assert.equal(job.status, 'completed', job.error ?? '');
      assert.equal(job.job_type, 'transcription');
      assert.deepEqual([job.total_chunks, job.processed_chunks], [2, 2]);
      assert.equal(job.delivery?.status, 'none');
      const result = await t.api('GET', `/v1/jobs/${job.id}/result`);
      assert.equal(result.status, 200);
      assert.equal(result.body.result.language, 'en');
      assert.equal(result.body.result.segments.length, 2);
      assert.ok(Math.abs(result.body.result.duration_seconds - 49.46) < 0.5, String(result.body.result.duration_seconds));
      const wer = wordErrorRate(reference, result.body.result.text as string);
      // PocketSphinx's small US English model on 19th-century prose: far from perfect, far from noise.
      assert.ok(wer < 0.6, `word error rate ${wer.toFixed(2)}: ${result.body.result.text}`);
      const { rows } = await app.db.query<{ audio_seconds: number; quantity: number }>(
        "SELECT audio_seconds, quantity::int FROM usage_events WHERE tenant_id = $1 AND event_type = 'transcription'",
        [t.id],
      );
      assert.equal(rows.length, 1);
      assert.ok(Math.abs(rows[0]!.audio_seconds - 49.46) < 0.5);
      // Its input is gone once used.
      const kept = await app.db.query('SELECT 1 FROM addon_requests WHERE job_id = $1 AND audio IS NOT NULL', [job.id]);
      assert.equal(kept.rows.length, 0);
    });

    for (const format of ['mp3', 'ogg', 'flac', 'm4a'] as AudioFormat[]) {
      it(`accepts ${format} audio and transcribes it`, async () => {
        const t = await addonTenant(app);
        const res = await t.api('POST', '/v1/transcribe', audioForm(await spoken('the meeting starts at nine', { format }), {}, `speech.${format}`));
        assert.equal(res.status, 202, JSON.stringify(res.body));
        const job = await waitForJob(app, t.key, res.body.job_id as string, 60_000);
        assert.equal(job.status, 'completed', job.error ?? '');
        const result = await t.api('GET', `/v1/jobs/${job.id}/result`);
        assert.ok(result.body.result.duration_seconds > 1 && result.body.result.duration_seconds < 4, String(result.body.result.duration_seconds));
      });
    }

    it('answers every refused transcription request with its 400 and queues nothing', async () => {
      const t = await addonTenant(app);
      const speech = await spoken('hello there');
      const cases: Array<[FormData, string, Record<string, unknown>?]> = [
        [audioForm(undefined, { language: 'en' }), 'missing_audio'],
        [audioForm(Buffer.from('this is not audio at all, only text')), 'invalid_audio'],
        [audioForm(speech, { language: 'xx' }), 'unsupported_language'],
        // The local engine serves English only.
        [audioForm(speech, { language: 'de' }), 'unsupported_language'],
        [audioForm(speech, { callback_url: 'ftp://127.0.0.1/hook', callback_secret: RAW_SECRET }), 'invalid_callback_url'],
        [audioForm(speech, { callback_url: 'https://10.1.2.3/hook', callback_secret: RAW_SECRET }), 'invalid_callback_url'],
        [audioForm(speech, { callback_url: 'https://169.254.169.254/latest/meta-data', callback_secret: RAW_SECRET }), 'invalid_callback_url'],
        [audioForm(speech, { callback_url: 'not a url', callback_secret: RAW_SECRET }), 'invalid_callback_url'],
        [audioForm(speech, { callback_secret: RAW_SECRET }), 'invalid_callback_url'],
      ];
      for (const [form, code] of cases) {
        const res = await t.api('POST', '/v1/transcribe', form);
        assert.equal(res.status, 400, `${code}: ${JSON.stringify(res.body)}`);
        assert.equal(errorBody(res).error, code);
      }
      const noSecret = await t.api('POST', '/v1/transcribe', audioForm(speech, { callback_url: receiver.url }));
      assert.equal(noSecret.status, 422);
      assert.equal(errorBody(noSecret).fields?.[0]?.field, 'callback_secret');
      const { rows } = await app.db.query("SELECT 1 FROM jobs WHERE tenant_id = $1 AND job_type IN ('transcription', 'report_generation')", [t.id]);
      assert.equal(rows.length, 0);
    });

    it('measures the audio before queueing: audio_too_long with max_seconds', async () => {
      const t = await addonTenant(app);
      const { wav } = await joinedLibrivox(5); // about 124 s
      const res = await t.api('POST', '/v1/transcribe', audioForm(wav));
      assert.equal(res.status, 400);
      assert.equal(errorBody(res).error, 'audio_too_long');
      assert.equal(res.body.max_seconds, 120);
    });

    it('refuses a request over 25 MB with 413', async () => {
      const t = await addonTenant(app);
      const res = await t.api('POST', '/v1/transcribe', audioForm(Buffer.alloc(25 * 1024 * 1024 + 1)));
      assert.equal(res.status, 413);
    });

    it('generates a report, delivers it signed (Standard Webhooks) to the callback URL, and keeps it retrievable', async () => {
      const t = await addonTenant(app);
      const before = receiver.received.length;
      const res = await t.api('POST', '/v1/reports/generate', { transcript: MEETING, callback_url: receiver.url, callback_secret: STANDARD_SECRET });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      const jobId = res.body.job_id as string;
      const job = await pollUntil('the callback to be delivered', async () => {
        const j = await waitForJob(app, t.key, jobId);
        return j.delivery?.status === 'delivered' && j;
      });
      assert.deepEqual([job.job_type, job.status, job.total_chunks, job.processed_chunks], ['report_generation', 'completed', 1, 1]);
      assert.equal(job.delivery?.attempts, 1);
      assert.equal(job.delivery?.last_status_code, 200);
      const delivery = receiver.received.slice(before).find((r) => r.body.includes(jobId))!;
      const payload = new Webhook(STANDARD_SECRET).verify(delivery.body, delivery.headers as Record<string, string>) as Record<string, unknown>;
      assert.deepEqual(Object.keys(payload).sort(), ['completed_at', 'created_at', 'job_id', 'job_type', 'result', 'status']);
      assert.deepEqual([payload.job_id, payload.job_type, payload.status], [jobId, 'report_generation', 'completed']);
      assert.equal(delivery.headers['webhook-id'], `msg_${jobId}`);
      const report = payload.result as { language: string; title: string; decisions: string[]; action_items: { text: string; owner: string | null }[]; participants: string[] };
      assert.equal(report.language, 'en');
      assert.deepEqual(report.participants, ['Anna', 'Ben', 'Carla']);
      assert.ok(report.decisions.some((d) => d.includes('ship the release on Friday')));
      assert.ok(report.decisions.some((d) => d.includes('approved by the board')));
      assert.ok(report.action_items.some((a) => a.text.includes('update the changelog') && a.owner === 'Ben'));
      // A tampered body fails verification.
      assert.throws(() => new Webhook(STANDARD_SECRET).verify(delivery.body.replace('Anna', 'Anne'), delivery.headers as Record<string, string>));
      const result = await t.api('GET', `/v1/jobs/${jobId}/result`);
      assert.equal(result.status, 200);
      assert.deepEqual(result.body.result, report);
      // The secret is gone once delivery has ended, and never in an answer.
      const stored = await app.db.query('SELECT 1 FROM addon_requests WHERE job_id = $1 AND callback_secret IS NOT NULL', [jobId]);
      assert.equal(stored.rows.length, 0);
      assert.ok(!JSON.stringify(job).includes(STANDARD_SECRET));
      // Metered: one billable request, with its tokens in the billing usage.
      const usage = (await t.api('GET', '/v1/billing/usage')).body;
      assert.equal(usage.total_requests, 1);
      assert.ok(usage.total_input_tokens >= 60 && usage.total_output_tokens > 0, JSON.stringify(usage));
    });

    it('retries a callback on 5xx and 429 with the same webhook-id, and records every attempt', async () => {
      const t = await addonTenant(app);
      receiver.answers.push(503, 429);
      const before = receiver.received.length;
      const res = await t.api('POST', '/v1/reports/generate', { transcript: MEETING, callback_url: receiver.url, callback_secret: RAW_SECRET });
      const jobId = res.body.job_id as string;
      const job = await pollUntil('the third attempt to deliver', async () => {
        const j = await waitForJob(app, t.key, jobId);
        return j.delivery?.status === 'delivered' && j;
      });
      assert.equal(job.delivery?.attempts, 3);
      const attempts = receiver.received.slice(before).filter((r) => r.body.includes(jobId));
      assert.equal(attempts.length, 3);
      assert.equal(new Set(attempts.map((a) => a.headers['webhook-id'])).size, 1);
      for (const a of attempts) new Webhook(RAW_SECRET, { format: 'raw' }).verify(a.body, a.headers as Record<string, string>);
      const { rows } = await app.db.query<{ attempt: number; status_code: number }>(
        'SELECT attempt, status_code FROM callback_attempts WHERE job_id = $1 ORDER BY attempt',
        [jobId],
      );
      assert.deepEqual(rows.map((r) => [r.attempt, r.status_code]), [[1, 503], [2, 429], [3, 200]]);
    });

    it('gives up on a 4xx or a redirect at once, and on 5xx after the schedule; the job and its result stay', async () => {
      const t = await addonTenant(app);
      const outcomes: Array<[Array<number | { redirect: string }>, number, number | null]> = [
        [[404], 1, 404],
        [[{ redirect: 'http://169.254.169.254/' }], 1, 302],
        [[500, 500, 500, 500], 4, 500],
      ];
      for (const [answers, attempts, last] of outcomes) {
        receiver.answers.push(...answers);
        const res = await t.api('POST', '/v1/reports/generate', { transcript: MEETING, callback_url: receiver.url, callback_secret: RAW_SECRET });
        const job = await pollUntil('delivery to end', async () => {
          const j = await waitForJob(app, t.key, res.body.job_id as string);
          return j.delivery?.status === 'failed' && j;
        });
        assert.equal(job.status, 'completed');
        assert.deepEqual([job.delivery?.attempts, job.delivery?.last_status_code], [attempts, last]);
        assert.equal((await t.api('GET', `/v1/jobs/${job.id}/result`)).status, 200);
      }
    });

    it('answers the report errors: empty transcript, transcript_too_long with max_chars', async () => {
      const t = await addonTenant(app);
      const empty = await t.api('POST', '/v1/reports/generate', { transcript: '   ' });
      assert.equal(empty.status, 400);
      assert.equal(errorBody(empty).error, 'empty_transcript');
      const long = await t.api('POST', '/v1/reports/generate', { transcript: 'x'.repeat(5001) });
      assert.equal(long.status, 400);
      assert.deepEqual([long.body.error, long.body.max_chars], ['transcript_too_long', 5000]);
      const badUrl = await t.api('POST', '/v1/reports/generate', { transcript: MEETING, callback_url: 'http://localhost.invalid./x', callback_secret: RAW_SECRET });
      assert.equal(badUrl.status, 400);
      assert.equal(badUrl.body.error, 'invalid_callback_url');
      const missing = await t.api('POST', '/v1/reports/generate', {});
      assert.equal(missing.status, 422);
    });

    it('refuses a callback_url at an internal address in every spelling, the IPv4-compatible [::7f00:1] included, and queues nothing', async () => {
      const t = await addonTenant(app);
      const port = new URL(receiver.url).port;
      const before = receiver.received.length;
      // This suite allow-lists 127.0.0.1 for its receiver; that address's IPv4-compatible spellings stay refused.
      const internal = [
        `https://[::7f00:1]:${port}/hooks/lore`,
        `https://[::127.0.0.1]:${port}/hooks/lore`,
        `https://[::1]:${port}/hooks/lore`,
        `https://127.0.0.2:${port}/hooks/lore`,
        `https://[::ffff:127.0.0.2]:${port}/hooks/lore`,
        'https://[::a9fe:a9fe]/latest/meta-data', // 169.254.169.254
        'https://[::a00:1]/hook', // 10.0.0.1
        'https://[64:ff9b::a9fe:a9fe]/latest/meta-data', // NAT64
        'https://[2002:a00:1::1]/hook', // 6to4
      ];
      for (const callbackUrl of internal) {
        const res = await t.api('POST', '/v1/reports/generate', { transcript: MEETING, callback_url: callbackUrl, callback_secret: RAW_SECRET });
        assert.equal(res.status, 400, `${callbackUrl}: ${JSON.stringify(res.body)}`);
        assert.equal(errorBody(res).error, 'invalid_callback_url', callbackUrl);
      }
      const { rows } = await app.db.query("SELECT 1 FROM jobs WHERE tenant_id = $1 AND job_type = 'report_generation'", [t.id]);
      assert.equal(rows.length, 0);
      assert.equal(receiver.received.length, before);
    });

    it('writes reports in the transcript’s language', async () => {
      const t = await addonTenant(app);
      const german = [
        'Anna: Guten Morgen, wir besprechen heute die Veröffentlichung der neuen Version.',
        'Ben: Die Tests laufen und die Dokumentation ist fast fertig.',
        'Anna: Wir haben beschlossen, die Version am Freitag zu veröffentlichen.',
        'Ben: Ich werde das Änderungsprotokoll bis Donnerstag aktualisieren.',
      ].join('\n');
      const res = await t.api('POST', '/v1/reports/generate', { transcript: german });
      const job = await waitForJob(app, t.key, res.body.job_id as string);
      assert.equal(job.status, 'completed');
      const report = (await t.api('GET', `/v1/jobs/${job.id}/result`)).body.result;
      assert.equal(report.language, 'de');
      assert.match(report.title, /^Bericht/);
      assert.ok(report.decisions.some((d: string) => d.includes('beschlossen')));
    });

    it('keeps jobs, results and deliveries within their tenant and sub-tenant', async () => {
      const a = await addonTenant(app, ['report_generation'], 'enterprise');
      const b = await addonTenant(app);
      const subs = [];
      for (const name of ['One', 'Two']) {
        const sub = await a.api('POST', '/v1/sub-tenants', { name });
        assert.equal(sub.status, 201, JSON.stringify(sub.body));
        const key = await a.api('POST', `/v1/sub-tenants/${sub.body.id}/api-keys`, { name: 'k', role: 'write' });
        assert.equal(key.status, 201, JSON.stringify(key.body));
        subs.push(client(app.url, key.body.key as string));
      }
      const res = await subs[0]!('POST', '/v1/reports/generate', { transcript: MEETING });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      const jobId = res.body.job_id as string;
      await waitForJob(app, a.key, jobId);
      for (const stranger of [b.api, subs[1]!]) {
        assert.equal((await stranger('GET', `/v1/jobs/${jobId}`)).status, 404);
        assert.equal((await stranger('GET', `/v1/jobs/${jobId}/result`)).status, 404);
      }
      assert.equal((await subs[0]!('GET', `/v1/jobs/${jobId}/result`)).status, 200);
      assert.equal((await a.api('GET', `/v1/jobs/${jobId}/result`)).status, 200);
      const { rows } = await app.db.query<{ sub_tenant_id: string | null }>('SELECT sub_tenant_id FROM addon_requests WHERE job_id = $1', [jobId]);
      assert.notEqual(rows[0]?.sub_tenant_id, null);
      // An ingestion job has no result: 404.
      assert.equal((await a.api('GET', '/v1/jobs/00000000-0000-4000-8000-000000000000/result')).status, 404);
    });

    it('reports the engines’ health', async () => {
      const t = await addonTenant(app);
      const res = await t.api('GET', '/v1/addons/health');
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, {
        transcription: { status: 'healthy', engine: 'pocketsphinx', languages: ['en'] },
        report_generation: { status: 'healthy', engine: 'extractive' },
      });
    });
  });

  describe(`add-ons: instance settings and remote engines [${database.name}]`, () => {
    let fake: FakeOpenAiAddonsServer;
    before(async () => {
      fake = await FakeOpenAiAddonsServer.start();
    });
    after(() => fake.close());

    it('answers 503 scribe_api_not_available when the add-ons are off on the instance', async () => {
      const app = await startTestApp(await database.get(), { env: { ...ENV, SCRIBE_API_ENABLED: 'false' } });
      try {
        const t = await addonTenant(app);
        for (const res of [await t.api('POST', '/v1/reports/generate', { transcript: MEETING }), await t.api('POST', '/v1/transcribe', audioForm(await spoken('hi')))]) {
          assert.equal(res.status, 503);
          assert.equal(errorBody(res).error, 'scribe_api_not_available');
        }
        assert.equal((await t.api('GET', '/v1/addons/health')).body.transcription.status, 'disabled');
      } finally {
        await app.close();
      }
    });

    it('answers 503 transcription_unavailable and report_generation_unavailable when no engine answers', async () => {
      const down = 'http://127.0.0.1:9';
      const app = await startTestApp(await database.get(), {
        env: ENV,
        adapters: {
          transcriber: new OpenAiTranscriber({ baseUrl: down, model: 'whisper', languages: SUPPORTED_LANGUAGES, timeoutMs: 1000 }),
          reportGenerator: new OpenAiReportGenerator({ baseUrl: down, model: 'chat', timeoutMs: 1000 }),
        },
      });
      try {
        const t = await addonTenant(app);
        const transcribe = await t.api('POST', '/v1/transcribe', audioForm(await spoken('hi')));
        assert.deepEqual([transcribe.status, transcribe.body.error], [503, 'transcription_unavailable']);
        const report = await t.api('POST', '/v1/reports/generate', { transcript: MEETING });
        assert.deepEqual([report.status, report.body.error], [503, 'report_generation_unavailable']);
        assert.equal((await t.api('GET', '/v1/addons/health')).body.report_generation.status, 'unavailable');
      } finally {
        await app.close();
      }
    });

    it('uses an OpenAI-compatible transcription server for the languages it serves (fake server)', async () => {
      const app = await startTestApp(await database.get(), {
        env: ENV,
        adapters: { transcriber: new OpenAiTranscriber({ baseUrl: fake.url, model: 'whisper-1', languages: SUPPORTED_LANGUAGES, timeoutMs: 5000 }) },
      });
      try {
        const t = await addonTenant(app);
        const res = await t.api('POST', '/v1/transcribe', audioForm(await spoken('Guten Morgen zusammen', { voice: 'de' }), { language: 'de' }));
        assert.equal(res.status, 202, JSON.stringify(res.body));
        const job = await waitForJob(app, t.key, res.body.job_id as string);
        assert.equal(job.status, 'completed', job.error ?? '');
        const result = (await t.api('GET', `/v1/jobs/${job.id}/result`)).body.result;
        assert.deepEqual([result.language, result.text], ['de', 'guten morgen zusammen']);
        assert.ok(fake.transcriptions.length >= 1);
      } finally {
        await app.close();
      }
    });

    it('uses an OpenAI-compatible chat model for reports, asks once more for an invalid answer, then fails the job plainly (fake server)', async () => {
      const receiver = await WebhookReceiver.start();
      const app = await startTestApp(await database.get(), {
        env: ENV,
        adapters: { reportGenerator: new OpenAiReportGenerator({ baseUrl: fake.url, model: 'chat', timeoutMs: 5000 }) },
      });
      try {
        const t = await addonTenant(app);
        const valid = { language: 'en', title: 'Spring release', summary: 'The release ships Friday.', key_points: ['Tests are green'], decisions: ['Ship Friday'], action_items: [{ text: 'Update the changelog', owner: 'Ben' }], participants: ['Anna', 'Ben'] };
        fake.chatAnswers = ['not json at all', valid];
        const ok = await t.api('POST', '/v1/reports/generate', { transcript: MEETING });
        const done = await waitForJob(app, t.key, ok.body.job_id as string);
        assert.equal(done.status, 'completed', done.error ?? '');
        assert.deepEqual((await t.api('GET', `/v1/jobs/${done.id}/result`)).body.result, valid);
        const usage = (await t.api('GET', '/v1/billing/usage')).body;
        assert.deepEqual([usage.total_input_tokens, usage.total_output_tokens], [240, 90]);

        fake.chatAnswers = [{ title: 'missing fields' }];
        const bad = await t.api('POST', '/v1/reports/generate', { transcript: MEETING, callback_url: receiver.url, callback_secret: RAW_SECRET });
        const failed = await pollUntil('the failure to be delivered', async () => {
          const j = await waitForJob(app, t.key, bad.body.job_id as string);
          return j.delivery?.status === 'delivered' && j;
        });
        assert.equal(failed.status, 'failed');
        assert.equal(failed.error, 'The report model did not answer with a valid report, twice.');
        const payload = new Webhook(RAW_SECRET, { format: 'raw' }).verify(receiver.received.at(-1)!.body, receiver.received.at(-1)!.headers as Record<string, string>) as Record<string, unknown>;
        assert.deepEqual([payload.status, payload.error, payload.result], ['failed', failed.error, undefined]);
        assert.equal((await t.api('GET', `/v1/jobs/${failed.id}/result`)).status, 409);
      } finally {
        await app.close();
        await receiver.close();
      }
    });
  });
  // Its own block: a paused job engine, and no other engine on the database to take its jobs.
  describe(`add-ons: results before and after their time [${database.name}]`, () => {
    it('answers 409 result_not_available until the job completes, then the result, then 410 result_expired after the kept time', async () => {
      const clock = new TestClock();
      const app = await startTestApp(await database.get(), { jobs: false, env: { ...ENV, ADDON_RESULT_TTL_HOURS: '24' }, adapters: { clock } });
      try {
        const t = await addonTenant(app);
        const res = await t.api('POST', '/v1/reports/generate', { transcript: MEETING });
        const jobId = res.body.job_id as string;
        const queued = await t.api('GET', `/v1/jobs/${jobId}/result`);
        assert.deepEqual([queued.status, queued.body.error, queued.body.status], [409, 'result_not_available', 'queued']);
        const job = (await t.api('GET', `/v1/jobs/${jobId}`)).body;
        assert.deepEqual([job.status, job.result_expires_at, job.delivery.status], ['queued', null, 'none']);
        await app.runtime.engine.drain();
        const done = (await t.api('GET', `/v1/jobs/${jobId}`)).body;
        assert.equal(done.status, 'completed');
        assert.equal(new Date(done.result_expires_at).getTime(), clock.now().getTime() + 24 * 3600_000);
        assert.equal((await t.api('GET', `/v1/jobs/${jobId}/result`)).status, 200);
        clock.advance(24 * 3600_000 + 1000);
        const expired = await t.api('GET', `/v1/jobs/${jobId}/result`);
        assert.deepEqual([expired.status, expired.body.error], [410, 'result_expired']);
      } finally {
        await app.close();
      }
    });

    it('ends a delivery that can never be signed as failed, with its reason, and leaves the job and its result alone', async () => {
      const app = await startTestApp(await database.get(), { jobs: false, env: ENV });
      try {
        const t = await addonTenant(app);
        // Port 9 (discard): never reached, as no attempt can be signed.
        const res = await t.api('POST', '/v1/reports/generate', { transcript: MEETING, callback_url: 'http://127.0.0.1:9/hook', callback_secret: RAW_SECRET });
        const jobId = res.body.job_id as string;
        // A sealed secret that no longer opens, as after the instance's secrets were replaced.
        await app.db.query("UPDATE addon_requests SET callback_secret = decode('00', 'hex') WHERE job_id = $1", [jobId]);
        await app.runtime.engine.drain();
        const job = (await t.api('GET', `/v1/jobs/${jobId}`)).body;
        assert.equal(job.status, 'completed');
        assert.equal(job.delivery.status, 'failed');
        assert.equal(job.delivery.attempts, 0);
        assert.match(job.delivery.last_error, /could not be decrypted/);
        assert.equal((await t.api('GET', `/v1/jobs/${jobId}/result`)).status, 200);
        const { rows } = await app.db.query('SELECT 1 FROM addon_requests WHERE job_id = $1 AND callback_secret IS NOT NULL', [jobId]);
        assert.equal(rows.length, 0);
      } finally {
        await app.close();
      }
    });
  });
}
