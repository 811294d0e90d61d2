import assert from 'node:assert/strict';
import { SsrfSafeHttpClient } from '../../core/adapters/ssrf-safe.http-client.js';
import { TEST_ADMIN_TOKEN, type TestApp, client, createTenant, ingest, startTestApp, waitForJob } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import { fetchAccessToken, politeFetch, registerOAuthClient } from '../support/oauth.js';
import { pollUntil } from '../support/poll.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/** One sample of the text format: a metric name, its labels, its value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** GET /metrics, parsed. */
async function scrape(app: TestApp): Promise<Sample[]> {
  const res = await client(app.url)('GET', '/metrics');
  assert.equal(res.status, 200);
  return parseMetrics(res.body as string);
}

function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, l[2]!]));
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

/** The value of the series with exactly these labels (0 when it does not exist yet). */
function valueOf(samples: Sample[], name: string, labels: Record<string, string>): number {
  const wanted = Object.entries(labels);
  const found = samples.find(
    (s) => s.name === name && Object.keys(s.labels).length === wanted.length && wanted.every(([k, v]) => s.labels[k] === v),
  );
  return found?.value ?? 0;
}

/** How much each series grew between two scrapes. */
function growth(before: Sample[], after: Sample[]) {
  return (name: string, labels: Record<string, string>) => valueOf(after, name, labels) - valueOf(before, name, labels);
}

/** Spanish passages: an English query over them runs a translated leg (Apertium, en-es). */
const SPANISH = [
  'El gato duerme en la cocina todas las tardes.',
  'El perro corre por el jardín con su pelota roja.',
  'El tren sale de la estación a las ocho de la mañana.',
];

/** The values each domain label may take: small fixed sets, never an id. */
const LABEL_VALUES: Record<string, readonly string[]> = {
  mode: ['hybrid', 'vector', 'keyword'],
  translated: ['true', 'false'],
  source: ['text', 'upload', 'corpus'],
  type: ['ingestion', 'transcription', 'report_generation', 'corpus_ingestion', 'billing_period', 'callback_delivery'],
  outcome: ['completed', 'failed', 'retry', 'lease_lost', 'translated', 'delivered', 'blocked'],
  scope: ['ip', 'key_query', 'key_documents', 'tenant_query', 'sub_tenant_query', 'user_query', 'oauth_authentication', 'portal_sign_in', 'portal_password_reset', 'portal_invitation', 'mcp_sse_sessions'],
  engine: ['apertium', 'libretranslate', 'deepl'],
  reason: ['unavailable', 'failed'],
  le: [],
};

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

for (const database of testDatabases()) {
  describe(`domain metrics on /metrics [${database.name}]`, function () {
    this.timeout(120_000);
    let app: TestApp;
    let receiver: WebhookReceiver;
    // Callbacks to rebinding.test resolve to the receiver when the URL is checked, then to the cloud
    // metadata address: the DNS rebinding the SSRF guard refuses at delivery.
    const resolutions = new Map<string, number>();
    const resolve = (hostname: string) => {
      const n = (resolutions.get(hostname) ?? 0) + 1;
      resolutions.set(hostname, n);
      return Promise.resolve(hostname === 'rebinding.test' && n > 1 ? ['169.254.169.254'] : ['127.0.0.1']);
    };

    before(async () => {
      app = await startTestApp(await database.get(), {
        env: { CALLBACK_ALLOWED_NETWORKS: '127.0.0.1/32', CALLBACK_RETRY_SCHEDULE: '0.2,0.2,0.2' },
        adapters: { outboundHttp: new SsrfSafeHttpClient({ allowedNetworks: ['127.0.0.1/32'], timeoutMs: 5_000, resolve }) },
      });
      receiver = await WebhookReceiver.start();
    });
    after(async () => {
      await app.close();
      await receiver.close();
    });

    /** A tenant's query, ingestion (a text and an upload), a translated query, and a 429 of each query limit. */
    async function exercise() {
      const t = await createTenant(app, 'standard');
      const api = client(app.url, t.key);
      const kb = (await api('POST', '/v1/knowledge-bases', { name: 'metrics' })).body.id as string;
      const text = await ingest(app, t.key, { knowledge_base_id: kb, title: 'Tea', content: 'Green tea is brewed at eighty degrees for two minutes. '.repeat(30) });
      const form = new FormData();
      form.append('metadata', JSON.stringify({ knowledge_base_id: kb }));
      form.append('file', new Blob(['Black tea is brewed with boiling water.\n\nIt steeps for four minutes.'], { type: 'text/plain' }), 'black-tea.txt');
      const uploaded = await api('POST', '/v1/documents/upload', form);
      assert.equal(uploaded.status, 202, JSON.stringify(uploaded.body));
      const upload = await waitForJob(app, t.key, uploaded.body.job_id as string);
      assert.equal(upload.status, 'completed');
      const answered = await api('POST', '/v1/query', { query: 'How hot is the water for green tea?' });
      assert.equal(answered.status, 200);

      const spanish = (await api('POST', '/v1/knowledge-bases', { name: 'es' })).body.id as string;
      for (const [i, content] of SPANISH.entries()) await ingest(app, t.key, { knowledge_base_id: spanish, title: `es ${i}`, content });
      const translated = await api('POST', '/v1/query', { query: 'The cat sleeps in the kitchen.', knowledge_base_ids: [spanish] });
      assert.equal(translated.status, 200);
      assert.ok(translated.body.metadata, 'the query ran a translated leg');

      // One query a minute per end user, then one a minute for the whole tenant.
      const admin = client(app.url, TEST_ADMIN_TOKEN);
      assert.equal((await admin('PATCH', `/internal/v1/tenants/${t.id}`, { per_user_rate_limit_per_min: 1 })).status, 200);
      const strict = client(app.url, t.key, { strict: true });
      const user = { 'x-user-id': `end-user-of-${t.id}` };
      assert.equal((await strict('POST', '/v1/query', { query: 'tea' }, user)).status, 200);
      const perUser = await strict('POST', '/v1/query', { query: 'tea' }, user);
      assert.equal(perUser.status, 429);
      assert.equal(perUser.body.error, 'per_user_rate_limit_exceeded');
      assert.equal((await admin('PATCH', `/internal/v1/tenants/${t.id}`, { limit_overrides: { query_rate_limit_per_min: 1 } })).status, 200);
      const perTenant = await strict('POST', '/v1/query', { query: 'tea' });
      assert.equal(perTenant.status, 429);
      assert.equal(perTenant.body.error, 'rate_limit_exceeded');
      return { tenant: t, kbs: [kb, spanish], documents: [text.documentId, uploaded.body.document_id as string], text: text.job, upload, user: user['x-user-id'] };
    }

    it('counts a query, an ingestion and a 429 with their labels, and the counts grow', async () => {
      const before = await scrape(app);
      const run = await exercise();
      const grew = growth(before, await scrape(app));

      // Queries: two plain answers (the first query, and the per-user limit's first), one translated.
      assert.equal(grew('lore_query_duration_seconds_count', { mode: 'hybrid', translated: 'false' }), 2);
      assert.equal(grew('lore_query_duration_seconds_count', { mode: 'hybrid', translated: 'true' }), 1);
      assert.ok(grew('lore_query_duration_seconds_sum', { mode: 'hybrid', translated: 'true' }) > 0);
      assert.ok(grew('lore_translation_duration_seconds_count', { engine: 'apertium', outcome: 'translated' }) >= 1);

      // Ingestion: every chunk of each document, by how it came; the jobs by both job metrics.
      assert.ok(run.text.total_chunks > 1);
      assert.equal(grew('lore_ingested_chunks_total', { source: 'text' }), run.text.total_chunks + SPANISH.length);
      assert.equal(grew('lore_ingested_chunks_total', { source: 'upload' }), run.upload.total_chunks);
      const documents = 2 + SPANISH.length;
      assert.equal(grew('lore_jobs_total', { type: 'ingestion', outcome: 'completed' }), documents);
      assert.equal(grew('lore_job_duration_seconds_count', { type: 'ingestion', outcome: 'completed' }), documents);
      assert.equal(grew('lore_job_attempts_total', { type: 'ingestion', outcome: 'completed' }), documents);
      assert.equal(grew('lore_job_attempt_duration_seconds_count', { type: 'ingestion', outcome: 'completed' }), documents);

      // Each 429 by the limit that refused it.
      assert.equal(grew('lore_rate_limit_rejections_total', { scope: 'user_query' }), 1);
      assert.equal(grew('lore_rate_limit_rejections_total', { scope: 'tenant_query' }), 1);
      assert.equal(grew('lore_rate_limit_rejections_total', { scope: 'key_query' }), 0);
    });

    it('counts the 429s of OAuth authentication and of MCP streams by their own scopes', async () => {
      const t = await createTenant(app, 'standard');
      const credentials = await registerOAuthClient(app, t.id, ['mcp:read']);
      const token = (await fetchAccessToken(app.url, credentials)).access_token;
      const before = await scrape(app);

      // Wrong secrets, until the client's budget of failures for this address is spent.
      const guess = () =>
        politeFetch(`${app.url}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'client_credentials', client_id: credentials.client_id, client_secret: 'wrong-guess' }),
        });
      const statuses: number[] = [];
      while (statuses.at(-1) !== 429 && statuses.length < 20) statuses.push((await guess()).status);
      assert.deepEqual(new Set(statuses), new Set([401, 429]));

      // Streams up to the per-client cap, then one more.
      const controller = new AbortController();
      const stream = () => politeFetch(`${app.url}/mcp/sse`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal: controller.signal });
      try {
        let refused: Response | undefined;
        for (let i = 0; i < 25 && !refused; i++) {
          const res = await stream();
          if (res.status === 429) refused = res;
          else assert.equal(res.status, 200);
        }
        assert.equal(((await refused?.json()) as { error?: string } | undefined)?.error, 'too_many_sessions');
      } finally {
        controller.abort();
      }

      const grew = growth(before, await scrape(app));
      assert.equal(grew('lore_rate_limit_rejections_total', { scope: 'oauth_authentication' }), 1);
      assert.equal(grew('lore_rate_limit_rejections_total', { scope: 'mcp_sse_sessions' }), 1);
    });

    it('never puts a tenant, knowledge base, document or end user in a label', async () => {
      const run = await exercise();
      const res = await client(app.url)('GET', '/metrics');
      const text = res.body as string;
      for (const id of [run.tenant.id, run.tenant.key, ...run.kbs, ...run.documents, run.text.id, run.upload.id, run.user]) {
        assert.ok(!text.includes(id), `/metrics names ${id}`);
      }
      assert.doesNotMatch(text, UUID);
      const lore = parseMetrics(text).filter((s) => s.name.startsWith('lore_') && !s.name.startsWith('lore_http_'));
      assert.ok(lore.length > 10);
      for (const sample of lore) {
        for (const [label, value] of Object.entries(sample.labels)) {
          const allowed = LABEL_VALUES[label];
          assert.ok(allowed, `${sample.name} has a label ${label}`);
          if (label !== 'le') assert.ok(allowed.includes(value), `${sample.name}{${label}="${value}"}`);
        }
      }
    });

    it('counts callback deliveries by outcome: delivered, retry, failed, and blocked by the SSRF guard', async () => {
      const t = await createTenant(app, 'standard');
      assert.equal((await client(app.url, TEST_ADMIN_TOKEN)('PATCH', `/internal/v1/tenants/${t.id}`, { addons: ['report_generation'] })).status, 200);
      const api = client(app.url, t.key);
      const report = async (callbackUrl: string, ends: 'delivered' | 'failed') => {
        const res = await api('POST', '/v1/reports/generate', {
          transcript: 'Anna: We ship the release on Friday.\nBen: I will update the changelog.',
          callback_url: callbackUrl,
          callback_secret: 'a-receiver-secret-of-some-length',
        });
        assert.equal(res.status, 202, JSON.stringify(res.body));
        return pollUntil(`the callback to be ${ends}`, async () => {
          const job = await waitForJob(app, t.key, res.body.job_id as string);
          return job.delivery?.status === ends && job;
        });
      };
      const before = await scrape(app);
      receiver.answers.push(503);
      assert.equal((await report(receiver.url, 'delivered')).delivery?.attempts, 2);
      receiver.answers.push(404);
      assert.equal((await report(receiver.url, 'failed')).delivery?.attempts, 1);
      const rebound = await report(receiver.url.replace('127.0.0.1', 'rebinding.test'), 'failed');
      assert.match(rebound.delivery?.last_error ?? '', /169\.254\.169\.254/);
      const grew = growth(before, await scrape(app));
      for (const outcome of ['delivered', 'retry', 'failed', 'blocked']) {
        assert.equal(grew('lore_callback_deliveries_total', { outcome }), 1, outcome);
        assert.equal(grew('lore_callback_delivery_duration_seconds_count', { outcome }), 1, outcome);
      }
      assert.equal(grew('lore_jobs_total', { type: 'callback_delivery', outcome: 'completed' }), 3);
      assert.equal(grew('lore_job_attempts_total', { type: 'callback_delivery', outcome: 'retry' }), 1);
    });
  });
}
