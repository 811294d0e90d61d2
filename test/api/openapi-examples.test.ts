import assert from 'node:assert/strict';
import { EXAMPLE_KNOWLEDGE_BASE_ID } from '../../api/schemas.js';
import { TEST_ADMIN_TOKEN, type TestApp, client, createTenant, startTestApp, waitForJob } from '../support/app.js';
import { spoken } from '../support/audio-fixtures.js';
import { testDatabases } from '../support/databases.js';

interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
  required?: boolean;
  example?: string;
  schema?: { const?: string; enum?: string[] };
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { example?: unknown; schema: { properties?: Record<string, { format?: string }> } }> };
}

/** What the test made so far, for the path parameters and the ids in the examples. */
type Made = Record<string, string>;

/**
 * How to run one operation's example as a reader would: the tenant whose admin key it uses (the
 * Enterprise tenant with the add-ons, or a Standard one for the plan changes), its path and query
 * parameters from what earlier operations made, what must be arranged first that no example of the
 * reference makes (a corpus, an annual plan), and what to keep of the answer.
 */
interface Run {
  tenant?: 'enterprise' | 'standard' | 'none';
  params?: (made: Made) => Record<string, string>;
  query?: (made: Made) => Record<string, string>;
  arrange?: (made: Made) => Promise<void>;
  keep?: (body: any, made: Made) => void;
  /** The status expected instead of a 2xx, when the deployment decides it (not the example). */
  status?: () => Promise<number | undefined>;
}

/** The files a reader picks for a multipart example's file parts. */
const FILES: Record<string, () => Promise<{ data: Uint8Array; name: string }>> = {
  uploadDocument: () => Promise.resolve({ data: Buffer.from('# Travel policy\n\nBook trains for trips under 600 km.\n'), name: 'travel-policy.md' }),
  transcribe: async () => ({ data: await spoken('Staff get twenty five days of paid leave a year.'), name: 'meeting.wav' }),
};

for (const database of testDatabases()) {
  describe(`the API reference's request examples, executed as shown [${database.name}]`, function () {
    this.timeout(300_000);
    let app: TestApp;
    before(async () => {
      app = await startTestApp(await database.get());
    });
    after(() => app.close());

    it('succeed for every operation, in an order a reader would go', async () => {
      const doc = (await client(app.url)('GET', '/v1/openapi.json')).body as { paths: Record<string, Record<string, Operation>> };
      const enterprise = await createTenant(app, 'enterprise');
      const added = await client(app.url, TEST_ADMIN_TOKEN)('PATCH', `/internal/v1/tenants/${enterprise.id}`, { addons: ['transcription', 'report_generation'] });
      assert.equal(added.status, 200);
      const standard = await createTenant(app, 'standard');
      const keys = { enterprise: enterprise.key, standard: standard.key, none: undefined };
      const admin = client(app.url, TEST_ADMIN_TOKEN);

      const runs: Array<[string, Run]> = [
        ['getLiveness', { tenant: 'none' }],
        ['getReadiness', { tenant: 'none' }],
        ['getIndexHealth', { tenant: 'none' }],
        ['createKnowledgeBase', { keep: (b, m) => (m.kb_id = b.id) }],
        ['listKnowledgeBases', {}],
        ['updateKnowledgeBase', { params: (m) => ({ kb_id: m.kb_id! }) }],
        ['ingestDocument', { keep: (b, m) => Object.assign(m, { document: b.document_id, job: b.job_id }) }],
        ['uploadDocument', { keep: (b, m) => (m.uploaded = b.document_id) }],
        ['getJob', { params: (m) => ({ id: m.job! }) }],
        ['listKnowledgeBaseDocuments', { params: (m) => ({ kb_id: m.kb_id! }) }],
        ['getDocument', { params: (m) => ({ id: m.document! }) }],
        ['downloadDocument', { params: (m) => ({ id: m.uploaded! }) }],
        ['query', { arrange: async (m) => void (await waitForJob(app, enterprise.key, m.job!)) }],
        ['getUsage', {}],
        ['getUsageBreakdown', {}],
        ['getActiveUsers', {}],
        ['createSubTenant', { keep: (b, m) => (m.sub_tenant = b.id) }],
        ['listSubTenants', {}],
        ['getSubTenant', { params: (m) => ({ id: m.sub_tenant! }) }],
        ['updateSubTenant', { params: (m) => ({ id: m.sub_tenant! }) }],
        ['createSubTenantKey', { params: (m) => ({ id: m.sub_tenant! }), keep: (b, m) => (m.sub_tenant_key = b.id) }],
        ['listSubTenantKeys', { params: (m) => ({ id: m.sub_tenant! }) }],
        ['revokeSubTenantKey', { params: (m) => ({ id: m.sub_tenant!, key_id: m.sub_tenant_key! }) }],
        ['getSubTenantUsage', { params: (m) => ({ id: m.sub_tenant! }) }],
        ['setUserPreferences', { params: (m) => ({ id: m.sub_tenant!, user_id: 'user-42' }) }],
        ['createApiKey', { keep: (b, m) => (m.api_key = b.id) }],
        ['listApiKeys', {}],
        ['revokeApiKey', { params: (m) => ({ id: m.api_key! }) }],
        ['translate', {}],
        ['translateBatch', {}],
        ['detectLanguage', {}],
        ['getTranslationHealth', {}],
        ['listTranslationLanguages', {}],
        ['getTenantSettings', {}],
        ['updateTenantSettings', {}],
        ['getDpaStatus', {}],
        ['acceptDpa', {}],
        ['listCorpora', {}],
        [
          'acceptCorpusDua',
          {
            // A platform corpus with a data use agreement is the instance operator's to make.
            arrange: async (m) => {
              const corpus = await admin('POST', '/internal/v1/corpora', { slug: 'eu-law', name: 'EU law', requires_dua: true, plans: ['enterprise'] });
              assert.equal(corpus.status, 201, JSON.stringify(corpus.body));
              m.slug = 'eu-law';
            },
            params: (m) => ({ slug: m.slug! }),
          },
        ],
        ['getAddonHealth', {}],
        ['transcribe', {}],
        ['generateReport', { keep: (b, m) => (m.report_job = b.job_id) }],
        ['getJobResult', { params: (m) => ({ id: m.report_job! }), arrange: async (m) => void (await waitForJob(app, enterprise.key, m.report_job!)) }],
        ['getBillingUsage', { tenant: 'standard' }],
        ['listBillingEvents', { tenant: 'standard' }],
        ['getBillingStatus', { tenant: 'standard' }],
        ['setBillingDetails', { tenant: 'standard' }],
        ['setBillingInterval', { tenant: 'standard' }],
        ['upgradePlan', { tenant: 'standard' }],
        ['downgradePlan', { tenant: 'standard' }],
        ['cancelPlan', { tenant: 'standard' }],
        ['retractCancellation', { tenant: 'standard' }],
        [
          'renewAnnualPlan',
          {
            tenant: 'standard',
            // The annual interval set above starts with the next period; renewing needs it in force.
            arrange: async () => void (await app.db.query(`UPDATE tenants SET billing_interval = 'annual', scheduled_interval = NULL WHERE id = $1`, [standard.id])),
          },
        ],
        [
          'exportAccount',
          {
            keep: (b, m) => {
              const url = new URL(b.download_url);
              Object.assign(m, { export: url.pathname.split('/').pop(), expires: url.searchParams.get('expires'), signature: url.searchParams.get('signature') });
            },
          },
        ],
        ['downloadAccountExport', { tenant: 'none', params: (m) => ({ id: m.export! }), query: (m) => ({ expires: m.expires!, signature: m.signature! }) }],
        ['deleteDocument', { params: (m) => ({ id: m.document! }) }],
        ['deleteSubTenant', { params: (m) => ({ id: m.sub_tenant! }) }],
        ['deleteAccount', {}],
      ];

      const operations = new Map<string, { method: string; path: string; op: Operation }>();
      for (const [path, methods] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(methods)) operations.set(op.operationId, { method, path, op });
      }
      assert.deepEqual(
        [...operations.keys()].sort(),
        runs.map(([id]) => id).sort(),
        'every operation of the document is run here (a new one needs its entry)',
      );

      const made: Made = {};
      for (const [operationId, run] of runs) {
        const { method, path, op } = operations.get(operationId)!;
        await run.arrange?.(made);
        const params = run.params?.(made) ?? {};
        const url = new URL(app.url + path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? assert.fail(`${operationId}: no ${name}`))));
        for (const [name, value] of Object.entries(run.query?.(made) ?? {})) url.searchParams.set(name, value);
        const headers: Record<string, string> = {};
        const key = keys[run.tenant ?? 'enterprise'];
        if (key) headers.authorization = `Bearer ${key}`;
        for (const p of op.parameters ?? []) {
          if (p.in === 'header' && p.required) headers[p.name] = p.example ?? p.schema?.const ?? p.schema?.enum?.[0] ?? assert.fail(`${operationId}: no example for header ${p.name}`);
        }
        // The examples name a knowledge base; the reader's is the one made above.
        const own = (value: unknown) => JSON.parse(JSON.stringify(value).replaceAll(EXAMPLE_KNOWLEDGE_BASE_ID, made.kb_id ?? '')) as unknown;
        let body: string | FormData | undefined;
        const [mediaType, media] = Object.entries(op.requestBody?.content ?? {})[0] ?? [];
        if (mediaType === 'application/json') {
          assert.ok(media!.example !== undefined, `${operationId} has no example`);
          headers['content-type'] = 'application/json';
          body = JSON.stringify(own(media!.example));
        } else if (mediaType === 'multipart/form-data') {
          const example = own(media!.example) as Record<string, string>;
          body = new FormData();
          for (const [name, schema] of Object.entries(media!.schema.properties ?? {})) {
            if (schema.format === 'binary') {
              const file = await FILES[operationId]!();
              body.append(name, new Blob([file.data]), file.name);
            } else if (example[name] !== undefined) {
              body.append(name, example[name]);
            }
          }
        }
        const res = await fetch(url, { method: method.toUpperCase(), headers, body });
        const text = await res.text();
        const expected = await run.status?.();
        if (expected) assert.equal(res.status, expected, `${operationId}: ${text.slice(0, 500)}`);
        else assert.ok(res.status >= 200 && res.status < 300, `${operationId}: ${res.status} ${text.slice(0, 500)}`);
        run.keep?.((res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text, made);
      }
    });
  });
}
