import assert from 'node:assert/strict';
import { LEXICAL_FUSION } from '../../core/search/fusion.js';
import { randomBytes } from 'node:crypto';
import {
  TEST_ADMIN_TOKEN,
  type TestApp,
  client,
  createKey,
  createTenant,
  ingest,
  startTestApp,
  waitForCorpusJob,
} from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import { LexicalEmbedder } from '../../core/adapters/lexical.embedder.js';
import type { Embedder } from '../../core/ports/embedder.js';

type Api = ReturnType<typeof client>;
interface RecordInput {
  source_record_id: string;
  content: string;
  metadata?: Record<string, unknown>;
}

const PLATFORM_FIELDS = ['content', 'metadata', 'score', 'source', 'source_record_id'];
const TENANT_FIELDS = ['chunk_id', 'chunk_index', 'content', 'document_id', 'document_tags', 'document_title', 'knowledge_base_id', 'score', 'source'];

for (const database of testDatabases()) {
  describe(`platform corpora [${database.name}]`, () => {
    let app: TestApp;
    let admin: Api;
    // Corpora belong to the whole instance, and the test database is shared by every suite: each
    // test makes its own, and all are deleted at the end so no other suite's queries meet them.
    const created: string[] = [];

    before(async () => {
      // Threshold 0: every search walks the HNSW index where pgvector exists, as a large corpus does.
      app = await startTestApp(await database.get(), { env: { VECTOR_EXACT_SCAN_THRESHOLD: '0' } });
      admin = client(app.url, TEST_ADMIN_TOKEN);
    });
    after(async () => {
      for (const slug of created) await admin('DELETE', `/internal/v1/corpora/${slug}`);
      await app.close();
    });

    function newSlug(prefix = 'c'): string {
      return `${prefix}-${randomBytes(4).toString('hex')}`;
    }

    async function createCorpus(body: Record<string, unknown> = {}): Promise<string> {
      const slug = (body.slug as string | undefined) ?? newSlug();
      const res = await admin('POST', '/internal/v1/corpora', { name: `Corpus ${slug}`, plans: ['standard', 'enterprise'], ...body, slug });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      created.push(slug);
      return slug;
    }

    async function load(slug: string, records: RecordInput[], on: TestApp = app): Promise<any> {
      const res = await client(on.url, TEST_ADMIN_TOKEN)('POST', `/internal/v1/corpora/${slug}/records`, { records });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      const job = await waitForCorpusJob(admin, slug, res.body.job_id);
      assert.equal(job.status, 'completed', JSON.stringify(job));
      return { ...res.body, job };
    }

    async function tenant(plan: 'free' | 'payg' | 'standard' | 'enterprise' = 'standard') {
      const t = await createTenant(app, plan);
      const api = client(app.url, t.key);
      const kb = (await api('POST', '/v1/knowledge-bases', { name: 'own' })).body.id as string;
      return { ...t, api, kb };
    }

    const query = async (api: Api, body: Record<string, unknown>) => {
      const res = await api('POST', '/v1/query', body);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.results as any[];
    };
    const fromCorpus = (results: any[], slug: string) => results.filter((r) => r.source === slug);

    it('documents the public corpus endpoints and query fields in OpenAPI, and none of the internal ones', async () => {
      const doc = (await client(app.url)('GET', '/v1/openapi.json')).body;
      assert.equal(doc.paths['/v1/corpora'].get.operationId, 'listCorpora');
      const accept = doc.paths['/v1/corpora/{slug}/accept-dua'].post;
      assert.equal(accept.operationId, 'acceptCorpusDua');
      assert.match(accept.description, /Minimum role: admin/);
      for (const status of ['200', '403', '404']) assert.ok(accept.responses[status], status);
      assert.ok(accept.parameters.some((p: { in: string; name: string }) => p.in === 'header' && p.name === 'x-accepted-by'));
      assert.ok(!Object.keys(doc.paths).some((path) => path.includes('/internal/')));
      const corpus = doc.components.schemas.Corpus;
      assert.deepEqual(Object.keys(corpus.properties).sort(), ['accepted', 'accessible', 'license_info', 'name', 'requires_dua', 'slug']);
      const request = doc.components.schemas.QueryRequest.properties;
      assert.deepEqual(request.corpora.items, { type: 'string', minLength: 1, maxLength: 63 });
      assert.equal(request.metadata_filter.additionalProperties.type, 'string');
      const item = doc.components.schemas.QueryResultItem.properties;
      assert.ok(item.source_record_id && item.metadata);
    });

    it('creates, lists, reads, updates and deletes corpora through the internal admin API', async () => {
      const slug = newSlug();
      const res = await admin('POST', '/internal/v1/corpora', {
        slug,
        name: 'EU case law',
        license_info: 'CC BY 4.0',
        requires_dua: true,
        plans: ['enterprise'],
      });
      assert.equal(res.status, 201);
      created.push(slug);
      assert.deepEqual(Object.keys(res.body).sort(), [
        'chunk_count', 'created_at', 'dimensions', 'id', 'license_info', 'name', 'plans', 'records', 'requires_dua', 'slug', 'updated_at',
      ]);
      assert.equal(res.body.slug, slug);
      assert.equal(res.body.name, 'EU case law');
      assert.equal(res.body.license_info, 'CC BY 4.0');
      assert.equal(res.body.requires_dua, true);
      assert.deepEqual(res.body.plans, ['enterprise']);
      assert.equal(res.body.dimensions, 1024);
      assert.deepEqual(res.body.records, { pending: 0, ready: 0, failed: 0 });
      assert.equal(res.body.chunk_count, 0);

      const again = await admin('POST', '/internal/v1/corpora', { slug, name: 'Other', plans: [] });
      assert.equal(again.status, 409);
      assert.equal(again.body.error, 'corpus_exists');

      assert.deepEqual((await admin('GET', `/internal/v1/corpora/${slug}`)).body, res.body);
      const listed = (await admin('GET', '/internal/v1/corpora')).body.corpora;
      assert.ok(listed.some((c: { slug: string }) => c.slug === slug));
      const slugs = listed.map((c: { slug: string }) => c.slug);
      assert.deepEqual(slugs, [...slugs].sort());

      const patched = await admin('PATCH', `/internal/v1/corpora/${slug}`, {
        name: 'EU case law (2024)',
        license_info: 'CC BY-SA 4.0',
        requires_dua: false,
        plans: ['standard', 'enterprise'],
      });
      assert.equal(patched.status, 200);
      assert.equal(patched.body.name, 'EU case law (2024)');
      assert.equal(patched.body.license_info, 'CC BY-SA 4.0');
      assert.equal(patched.body.requires_dua, false);
      assert.deepEqual(patched.body.plans, ['standard', 'enterprise']);
      for (const body of [{}, { dimensions: 384 }, { slug: 'renamed' }, { plans: ['gold'] }, { name: '' }]) {
        assert.equal((await admin('PATCH', `/internal/v1/corpora/${slug}`, body)).status, 422, JSON.stringify(body));
      }

      assert.equal((await admin('DELETE', `/internal/v1/corpora/${slug}`)).status, 204);
      for (const [method, path] of [
        ['GET', `/internal/v1/corpora/${slug}`],
        ['PATCH', `/internal/v1/corpora/${slug}`],
        ['DELETE', `/internal/v1/corpora/${slug}`],
        ['GET', `/internal/v1/corpora/${slug}/jobs`],
        ['POST', `/internal/v1/corpora/${slug}/records`],
        ['GET', '/internal/v1/corpora/NOT_A_SLUG'],
      ] as const) {
        const body = method === 'PATCH' ? { name: 'x' } : method === 'POST' ? { records: [{ source_record_id: 'a', content: 'b' }] } : undefined;
        const gone = await admin(method, path, body);
        assert.equal(gone.status, 404, `${method} ${path}`);
        assert.equal(gone.body.error, 'not_found');
      }
    });

    it('validates corpora and record loads', async () => {
      for (const body of [
        { name: 'x', plans: [] },
        { slug: 'Upper', name: 'x', plans: [] },
        { slug: '-dash', name: 'x', plans: [] },
        { slug: 'tenant', name: 'x', plans: [] },
        { slug: 'a'.repeat(64), name: 'x', plans: [] },
        { slug: newSlug(), plans: [] },
        { slug: newSlug(), name: 'x' },
        { slug: newSlug(), name: 'x', plans: ['gold'] },
        { slug: newSlug(), name: 'x', plans: ['free', 'free'] },
        { slug: newSlug(), name: 'x', plans: [], dimensions: 0 },
        { slug: newSlug(), name: 'x', plans: [], dimensions: 4097 },
        { slug: newSlug(), name: 'x', plans: [], requires_dua: 'yes' },
        { slug: newSlug(), name: 'x', plans: [], colour: 'red' },
      ]) {
        const res = await admin('POST', '/internal/v1/corpora', body);
        assert.equal(res.status, 422, JSON.stringify(body));
        assert.equal(res.body.error, 'validation_failed');
      }
      const slug = await createCorpus();
      for (const records of [
        [],
        [{ source_record_id: '', content: 'x' }],
        [{ source_record_id: 'a', content: '   ' }],
        [{ source_record_id: 'a' }],
        [{ source_record_id: 'a', content: 'x', metadata: { nested: { deep: 1 } } }],
        [{ source_record_id: 'a', content: 'x', metadata: { list: ['a'] } }],
        [{ source_record_id: 'a', content: 'x', metadata: { empty: null } }],
        [{ source_record_id: 'a', content: 'x', title: 'unknown field' }],
        [{ source_record_id: 'a', content: 'x' }, { source_record_id: 'a', content: 'y' }],
        [{ source_record_id: 'a'.repeat(501), content: 'x' }],
      ]) {
        const res = await admin('POST', `/internal/v1/corpora/${slug}/records`, { records });
        assert.equal(res.status, 422, JSON.stringify(records));
      }
      // Nothing was stored or queued by the refused loads.
      assert.deepEqual((await admin('GET', `/internal/v1/corpora/${slug}/jobs`)).body, { jobs: [] });
    });

    it('requires the admin token for every internal corpus endpoint', async () => {
      const slug = await createCorpus();
      const t = await createTenant(app);
      for (const token of [undefined, 'wrong-token', t.key]) {
        const api = client(app.url, token);
        for (const [method, path, body] of [
          ['POST', '/internal/v1/corpora', { slug: newSlug(), name: 'x', plans: [] }],
          ['GET', '/internal/v1/corpora'],
          ['GET', `/internal/v1/corpora/${slug}`],
          ['PATCH', `/internal/v1/corpora/${slug}`, { name: 'x' }],
          ['DELETE', `/internal/v1/corpora/${slug}`],
          ['POST', `/internal/v1/corpora/${slug}/records`, { records: [{ source_record_id: 'a', content: 'b' }] }],
          ['GET', `/internal/v1/corpora/${slug}/records/a`],
          ['DELETE', `/internal/v1/corpora/${slug}/records/a`],
          ['GET', `/internal/v1/corpora/${slug}/jobs`],
          ['GET', `/internal/v1/corpora/${slug}/jobs/00000000-0000-4000-8000-000000000000`],
        ] as const) {
          assert.equal((await api(method, path, body)).status, 401, `${method} ${path}`);
        }
      }
      assert.equal((await admin('GET', `/internal/v1/corpora/${slug}`)).status, 200);
    });

    it('loads records through a corpus_ingestion job, replaces records by id, and deletes them', async () => {
      const slug = await createCorpus();
      const long = Array.from({ length: 40 }, (_, i) => `Sentence ${i} of the long record explains glacier formation in detail.`).join(' ');
      const res = await admin('POST', `/internal/v1/corpora/${slug}/records`, {
        records: [
          { source_record_id: 'glaciers', content: long, metadata: { kind: 'long' } },
          { source_record_id: 'tides', content: 'Tides are caused by the gravitational pull of the moon.' },
        ],
      });
      assert.equal(res.status, 202);
      assert.deepEqual(Object.keys(res.body).sort(), ['job_id', 'records', 'total_chunks']);
      assert.equal(res.body.records, 2);
      assert.ok(res.body.total_chunks >= 3, 'the long record is split into several chunks');
      const job = await waitForCorpusJob(admin, slug, res.body.job_id);
      assert.deepEqual(Object.keys(job).sort(), [
        'attempts', 'completed_at', 'corpus', 'created_at', 'error', 'id', 'job_type', 'processed_chunks', 'records', 'status', 'total_chunks',
      ]);
      assert.equal(job.status, 'completed');
      assert.equal(job.job_type, 'corpus_ingestion');
      assert.equal(job.corpus, slug);
      assert.equal(job.records, 2);
      assert.equal(job.processed_chunks, res.body.total_chunks);
      assert.equal(job.error, null);
      assert.deepEqual((await admin('GET', `/internal/v1/corpora/${slug}/jobs`)).body.jobs.map((j: { id: string }) => j.id), [job.id]);
      assert.equal((await admin('GET', `/internal/v1/corpora/${slug}/jobs/00000000-0000-4000-8000-000000000000`)).status, 404);
      assert.equal((await admin('GET', `/internal/v1/corpora/${slug}/jobs/not-a-uuid`)).status, 404);

      const corpus = (await admin('GET', `/internal/v1/corpora/${slug}`)).body;
      assert.deepEqual(corpus.records, { pending: 0, ready: 2, failed: 0 });
      assert.equal(corpus.chunk_count, res.body.total_chunks);
      const record = (await admin('GET', `/internal/v1/corpora/${slug}/records/tides`)).body;
      assert.deepEqual(Object.keys(record).sort(), ['chunk_count', 'content_bytes', 'created_at', 'error', 'metadata', 'source_record_id', 'status', 'updated_at']);
      assert.equal(record.status, 'ready');
      assert.equal(record.chunk_count, 1);
      assert.equal(record.content_bytes, 'Tides are caused by the gravitational pull of the moon.'.length);

      const t = await tenant();
      const best = async (q: string) => (await query(t.api, { query: q, corpora: [slug], top_k: 1 }))[0];
      assert.equal((await best('moon gravitational pull tides')).source_record_id, 'tides');
      assert.equal((await best('glacier formation')).source_record_id, 'glaciers');

      // Loading a record again replaces it: the old text is no longer found, the new one is.
      const reload = await load(slug, [{ source_record_id: 'tides', content: 'Neap tides happen at the first and third quarter moon.', metadata: { v: 2 } }]);
      assert.equal(reload.records, 1);
      const tides = (await query(t.api, { query: 'gravitational pull neap quarter tides', corpora: [slug], top_k: 10 })).filter(
        (r) => r.source_record_id === 'tides',
      );
      assert.deepEqual(tides.map((r) => [r.content, r.metadata]), [['Neap tides happen at the first and third quarter moon.', { v: 2 }]]);
      assert.equal((await admin('GET', `/internal/v1/corpora/${slug}`)).body.chunk_count, res.body.total_chunks);

      assert.equal((await admin('DELETE', `/internal/v1/corpora/${slug}/records/tides`)).status, 204);
      assert.equal((await admin('DELETE', `/internal/v1/corpora/${slug}/records/tides`)).status, 404);
      assert.equal((await admin('GET', `/internal/v1/corpora/${slug}/records/tides`)).status, 404);
      const left = await query(t.api, { query: 'neap tides quarter moon', corpora: [slug], top_k: 10 });
      assert.ok(left.length > 0 && left.every((r) => r.source_record_id === 'glaciers'));
      assert.equal((await admin('GET', `/internal/v1/corpora/${slug}`)).body.chunk_count, res.body.total_chunks - 1);
    });

    it('lists corpora to any key with accessible (plan) and accepted (DUA)', async () => {
      const open = await createCorpus({ plans: ['free', 'standard'], license_info: 'Public domain' });
      const dua = await createCorpus({ plans: ['standard'], requires_dua: true, license_info: 'Research use only' });
      const closed = await createCorpus({ plans: ['enterprise'] });
      const t = await tenant('standard');
      const read = client(app.url, await createKey(app, t.key, 'read'));
      const res = await read('GET', '/v1/corpora');
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body), ['corpora']);
      const mine = (body: any) => body.corpora.filter((c: { slug: string }) => [open, dua, closed].includes(c.slug));
      assert.deepEqual(mine(res.body), [
        { slug: open, name: `Corpus ${open}`, license_info: 'Public domain', requires_dua: false, accepted: false, accessible: true },
        { slug: dua, name: `Corpus ${dua}`, license_info: 'Research use only', requires_dua: true, accepted: false, accessible: true },
        { slug: closed, name: `Corpus ${closed}`, license_info: '', requires_dua: false, accepted: false, accessible: false },
      ].sort((a, b) => a.slug.localeCompare(b.slug)));
      const free = await createTenant(app, 'free');
      const freeView = mine((await client(app.url, free.key)('GET', '/v1/corpora')).body);
      assert.deepEqual(freeView.map((c: { slug: string; accessible: boolean }) => [c.slug, c.accessible]).sort(), [[closed, false], [dua, false], [open, true]].sort());
      assert.equal((await client(app.url)('GET', '/v1/corpora')).status, 401);

      assert.equal((await t.api('POST', `/v1/corpora/${dua}/accept-dua`)).status, 200);
      const accepted = mine((await read('GET', '/v1/corpora')).body).find((c: { slug: string }) => c.slug === dua);
      assert.equal(accepted.accepted, true);
    });

    it('accepts a DUA (admin), records who, when and which key; 404 unknown, 403 not on the plan', async () => {
      const slug = await createCorpus({ plans: ['standard'], requires_dua: true });
      const enterpriseOnly = await createCorpus({ plans: ['enterprise'], requires_dua: true });
      const t = await tenant('standard');
      const res = await t.api('POST', `/v1/corpora/${slug}/accept-dua`, undefined, { 'x-accepted-by': '  Jane Doe, legal  ' });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { status: 'ok' });
      const [ownKey] = (await t.api('GET', '/v1/auth/keys')).body;
      const rows = async () =>
        (
          await app.db.query<{ accepted_by: string | null; api_key_id: string; accepted_at: Date }>(
            `SELECT a.accepted_by, a.api_key_id, a.accepted_at FROM corpus_dua_acceptances a JOIN corpora c ON c.id = a.corpus_id
             WHERE a.tenant_id = $1 AND c.slug = $2`,
            [t.id, slug],
          )
        ).rows;
      const [first] = await rows();
      assert.equal(first!.accepted_by, 'Jane Doe, legal');
      assert.equal(first!.api_key_id, ownKey.id);
      assert.ok(Date.now() - first!.accepted_at.getTime() < 60_000);
      // Accepting again is fine and keeps the first record.
      const otherAdmin = client(app.url, await createKey(app, t.key, 'admin'));
      assert.deepEqual((await otherAdmin('POST', `/v1/corpora/${slug}/accept-dua`)).body, { status: 'ok' });
      assert.deepEqual(await rows(), [first]);
      // The acceptance is part of the account export.
      const exported = (await t.api('POST', '/v1/account/export')).body;
      assert.deepEqual(exported.account.corpus_dua_acceptances, [
        { corpus: slug, accepted_by: 'Jane Doe, legal', api_key_id: ownKey.id, accepted_at: first!.accepted_at.toISOString() },
      ]);

      const unknown = await t.api('POST', `/v1/corpora/${newSlug('missing')}/accept-dua`);
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.error, 'not_found');
      assert.equal((await t.api('POST', '/v1/corpora/Not%20A%20Slug/accept-dua')).status, 404);
      const denied = await t.api('POST', `/v1/corpora/${enterpriseOnly}/accept-dua`);
      assert.equal(denied.status, 403);
      assert.equal(denied.body.error, 'corpus_not_available_on_plan');
      assert.deepEqual([denied.body.corpus, denied.body.plan], [enterpriseOnly, 'standard']);

      for (const role of ['read', 'write'] as const) {
        const res = await client(app.url, await createKey(app, t.key, role))('POST', `/v1/corpora/${slug}/accept-dua`);
        assert.equal(res.status, 403);
        assert.equal(res.body.error, 'insufficient_role');
      }
      const long = await t.api('POST', `/v1/corpora/${slug}/accept-dua`, undefined, { 'x-accepted-by': 'x'.repeat(201) });
      assert.equal(long.status, 422);
      assert.equal((await client(app.url)('POST', `/v1/corpora/${slug}/accept-dua`)).status, 401);
    });

    it('searches a corpus once its DUA is accepted', async () => {
      const slug = await createCorpus({ plans: ['standard'], requires_dua: true });
      await load(slug, [{ source_record_id: 'r1', content: 'Mangrove forests protect tropical coastlines from storm surges.' }]);
      const t = await tenant('standard');
      const q = { query: 'mangrove forests storm surges coastlines' };
      assert.deepEqual(fromCorpus(await query(t.api, q), slug), []);
      const named = await t.api('POST', '/v1/query', { ...q, corpora: [slug] });
      assert.equal(named.status, 403);
      assert.equal(named.body.error, 'dua_not_accepted');
      assert.equal((await t.api('POST', `/v1/corpora/${slug}/accept-dua`)).status, 200);
      assert.deepEqual(fromCorpus(await query(t.api, q), slug).map((r) => r.source_record_id), ['r1']);
      assert.deepEqual(fromCorpus(await query(t.api, { ...q, corpora: [slug] }), slug).map((r) => r.source_record_id), ['r1']);
      // Requiring a DUA later hides the corpus from tenants that have not accepted it, not from this one.
      const other = await createCorpus({ plans: ['standard'] });
      await load(other, [{ source_record_id: 'r2', content: 'Mangrove roots filter salt from seawater.' }]);
      const late = await tenant('standard');
      assert.equal(fromCorpus(await query(late.api, { query: 'mangrove roots salt' }), other).length, 1);
      await admin('PATCH', `/internal/v1/corpora/${other}`, { requires_dua: true });
      assert.deepEqual(fromCorpus(await query(late.api, { query: 'mangrove roots salt' }), other), []);
    });

    it('finds corpus records by words typed without their accents', async () => {
      const slug = await createCorpus({ plans: ['standard'] });
      await load(slug, [
        { source_record_id: 'fr1', content: 'Sélectionnez un élément de la fenêtre principale pour afficher ses propriétés.' },
        { source_record_id: 'fr2', content: 'Le tableau affiche les valeurs de chaque colonne et leur somme en bas.' },
      ]);
      // The keyword index holds the folded spellings' lexemes (French stems keep accents: 'élément').
      const { rows } = await app.services.db.query<{ tsv: string }>(
        `SELECT pc.tsv::text AS tsv FROM platform_chunks pc JOIN corpora c ON c.id = pc.corpus_id WHERE c.slug = $1 AND pc.source_record_id = 'fr1'`,
        [slug],
      );
      assert.match(rows[0]!.tsv, /'élément':\d+/);
      assert.match(rows[0]!.tsv, /'element':\d+/);
      assert.match(rows[0]!.tsv, /'fenetr':\d+/);
      const t = await tenant('standard');
      const found = fromCorpus(await query(t.api, { query: 'element fenetre proprietes', corpora: [slug] }), slug);
      assert.equal(found[0]?.source_record_id, 'fr1');
    });

    it('searches only corpora the plan gives access to', async () => {
      const slug = await createCorpus({ plans: ['enterprise'] });
      await load(slug, [{ source_record_id: 'r1', content: 'Basalt columns form when thick lava flows cool and contract.' }]);
      const q = { query: 'basalt columns lava cooling' };
      const standard = await tenant('standard');
      const enterprise = await tenant('enterprise');
      assert.deepEqual(fromCorpus(await query(standard.api, q), slug), []);
      const named = await standard.api('POST', '/v1/query', { ...q, corpora: [slug] });
      assert.equal(named.status, 403);
      assert.equal(named.body.error, 'corpus_not_available_on_plan');
      // Knowledge bases and corpora are read at once; an unknown knowledge base is still reported first.
      const both = await standard.api('POST', '/v1/query', { ...q, corpora: [slug], knowledge_base_ids: ['00000000-0000-4000-8000-000000000000'] });
      assert.equal(both.status, 404);
      assert.match(both.body.message, /knowledge base/);
      assert.equal(fromCorpus(await query(enterprise.api, q), slug).length, 1);

      await admin('PATCH', `/internal/v1/corpora/${slug}`, { plans: ['standard', 'enterprise'] });
      assert.equal(fromCorpus(await query(standard.api, q), slug).length, 1);
      // A plan change of the tenant changes its access with it.
      await admin('PATCH', `/internal/v1/tenants/${standard.id}`, { plan: 'payg' });
      assert.deepEqual(fromCorpus(await query(standard.api, q), slug), []);
      await admin('PATCH', `/internal/v1/corpora/${slug}`, { plans: [] });
      assert.deepEqual(fromCorpus(await query(enterprise.api, q), slug), []);
      const unknown = await enterprise.api('POST', '/v1/query', { ...q, corpora: [newSlug('missing')] });
      assert.equal(unknown.status, 404);
    });

    it('returns platform items with source, content, score, source_record_id and metadata only', async () => {
      const slug = await createCorpus();
      await load(slug, [
        { source_record_id: 'ECLI:NL:HR:2019:1', content: 'The supreme court ruled on liability for defective drones.', metadata: { court: 'HR', year: 2019, final: true } },
      ]);
      const t = await tenant();
      await ingest(app, t.key, { knowledge_base_id: t.kb, title: 'Drone policy', content: 'Our drone policy covers liability for defective drones.' });
      const results = await query(t.api, { query: 'liability defective drones supreme court' });
      const platform = results.find((r) => r.source === slug);
      assert.deepEqual(Object.keys(platform).sort(), PLATFORM_FIELDS);
      assert.equal(platform.source_record_id, 'ECLI:NL:HR:2019:1');
      assert.equal(platform.content, 'The supreme court ruled on liability for defective drones.');
      assert.deepEqual(platform.metadata, { court: 'HR', year: 2019, final: true });
      assert.ok(platform.score > 0);
      const own = results.find((r) => r.source === 'tenant');
      assert.deepEqual(Object.keys(own).sort(), TENANT_FIELDS);
      assert.equal(own.document_title, 'Drone policy');
    });

    it('filters platform results by metadata_filter (exact text values, all must hold) and refuses malformed filters', async () => {
      const slug = await createCorpus();
      const records: RecordInput[] = [];
      // 300 records share the words; one in thirty is Dutch, so a filter that ran after a top-k cut
      // of the candidates (50 or 3 × top_k) would find only a few of them.
      for (let i = 0; i < 300; i++) {
        records.push({
          source_record_id: `ruling-${i}`,
          content: `Ruling ${i}: the court weighed tenancy deposit disputes between landlords and tenants.`,
          metadata: { jurisdiction: i % 30 === 0 ? 'NL' : 'BE', year: 2000 + (i % 3), published: i % 4 === 0 },
        });
      }
      await load(slug, records);
      const ids = (filter: (m: Record<string, unknown>) => boolean) =>
        records.filter((r) => filter(r.metadata!)).map((r) => r.source_record_id).sort();
      const q = { query: 'tenancy deposit disputes landlords', corpora: [slug] };
      const empty = client(app.url, (await createTenant(app)).key);

      const nl = await query(empty, { ...q, top_k: 10, metadata_filter: { jurisdiction: 'NL' } });
      assert.deepEqual(nl.map((r) => r.source_record_id).sort(), ids((m) => m.jurisdiction === 'NL'));
      assert.equal((await query(empty, { ...q, top_k: 4, metadata_filter: { jurisdiction: 'NL' } })).length, 4);
      const be2001 = await query(empty, { ...q, top_k: 100, metadata_filter: { jurisdiction: 'BE', year: '2001' } });
      assert.deepEqual(be2001.map((r) => r.source_record_id).sort(), ids((m) => m.jurisdiction === 'BE' && m.year === 2001));
      const published = await query(empty, { ...q, top_k: 100, metadata_filter: { published: 'true', jurisdiction: 'NL' } });
      assert.deepEqual(published.map((r) => r.source_record_id).sort(), ids((m) => m.published === true && m.jurisdiction === 'NL'));
      assert.deepEqual(await query(empty, { ...q, metadata_filter: { jurisdiction: 'nl' } }), []);
      assert.deepEqual(await query(empty, { ...q, metadata_filter: { court: 'HR' } }), []);
      assert.equal((await query(empty, { ...q, metadata_filter: {} })).length, 10);

      // metadata_filter leaves the tenant's own documents alone (tag filters are for those).
      const t = await tenant();
      await ingest(app, t.key, { knowledge_base_id: t.kb, title: 'Deposits', content: 'Our tenancy deposit disputes handbook for landlords.' });
      const mixed = await query(t.api, { ...q, top_k: 20, metadata_filter: { jurisdiction: 'NL' } });
      assert.deepEqual(mixed.filter((r) => r.source === 'tenant').map((r) => r.document_title), ['Deposits']);
      assert.ok(fromCorpus(mixed, slug).every((r) => r.metadata.jurisdiction === 'NL'));
      const tagged = await query(t.api, { ...q, top_k: 20, filters: { 'tags.x': 'y' } });
      assert.ok(tagged.length > 0 && tagged.every((r) => r.source === slug), 'tag filters leave corpus results alone');

      for (const metadata_filter of [
        { year: 2001 },
        { published: true },
        { jurisdiction: { $eq: 'NL' } },
        { jurisdiction: ['NL', 'BE'] },
        { jurisdiction: null },
        { '': 'x' },
        { ['k'.repeat(65)]: 'x' },
        'jurisdiction=NL',
        ['NL'],
      ]) {
        const res = await t.api('POST', '/v1/query', { ...q, metadata_filter });
        assert.equal(res.status, 422, JSON.stringify(metadata_filter));
        assert.equal(res.body.error, 'validation_failed');
        assert.ok(res.body.fields.some((f: { field: string }) => f.field.startsWith('body.metadata_filter')), JSON.stringify(res.body.fields));
      }
      for (const corpora of ['all', [''], [1], Array.from({ length: 101 }, (_, i) => `c${i}`)]) {
        assert.equal((await t.api('POST', '/v1/query', { ...q, corpora })).status, 422, JSON.stringify(corpora).slice(0, 80));
      }
    });

    it('fuses platform and tenant results into one ranking by relevance', async () => {
      const slug = await createCorpus();
      await load(slug, [
        { source_record_id: 'volcano', content: 'Volcanoes erupt when magma from the mantle rises through cracks in the crust of the earth.' },
        { source_record_id: 'cheese', content: 'Hard cheeses are aged for months in cool caves with high humidity.' },
      ]);
      const t = await tenant();
      for (const [title, content] of [
        ['bread', 'Sourdough bread rises because wild yeast and lactic acid bacteria ferment the dough slowly.'],
        ['compiler', 'A compiler translates source code into machine code; an interpreter executes it line by line.'],
        ['revolution', 'The French Revolution began in 1789 and abolished the feudal privileges of the nobility.'],
        ['geology', 'Earthquakes happen when tectonic plates in the crust of the earth slip along faults.'],
      ]) {
        await ingest(app, t.key, { knowledge_base_id: t.kb, title: title!, content: content! });
      }
      const sources = (results: any[]) => results.map((r) => (r.source === 'tenant' ? r.document_title : `${r.source}:${r.source_record_id}`));
      const ranked = async (q: string, extra: Record<string, unknown> = {}) =>
        sources(await query(t.api, { query: q, corpora: [slug], top_k: 6, ...extra }));

      // The corpus's best match first, the tenant's related document next, ahead of the other corpus record.
      const volcano = await query(t.api, { query: 'volcanoes erupt magma crust earth', corpora: [slug], top_k: 6 });
      assert.deepEqual(sources(volcano).slice(0, 2), [`${slug}:volcano`, 'geology']);
      assert.ok(sources(volcano).indexOf(`${slug}:cheese`) > 1);
      const scores = volcano.map((r) => r.score);
      assert.deepEqual(scores, [...scores].sort((a, b) => b - a));
      // At most both retrievers' first place (the lexical embedder's fusion weights).
      const best = LEXICAL_FUSION.weights[0]! / (LEXICAL_FUSION.k + 1) + LEXICAL_FUSION.weights[1]! / (LEXICAL_FUSION.k + 1);
      assert.ok(scores[0] <= best && scores[0] > scores[1], JSON.stringify(scores));
      // A tenant document that matches better ranks above every corpus record.
      assert.equal((await ranked('sourdough bread wild yeast ferment'))[0], 'bread');
      assert.deepEqual(new Set((await ranked('cheese aged in caves, bread with yeast')).slice(0, 2)), new Set([`${slug}:cheese`, 'bread']));

      // knowledge_base_ids restricts only the tenant part; corpora: [] leaves the corpora out.
      assert.ok((await ranked('volcanoes magma', { knowledge_base_ids: [t.kb] })).includes(`${slug}:volcano`));
      const noCorpora = await query(t.api, { query: 'volcanoes magma crust', corpora: [], top_k: 10 });
      assert.ok(noCorpora.length === 4 && noCorpora.every((r) => r.source === 'tenant'));
      // A tenant without knowledge bases still gets corpus results.
      const empty = client(app.url, (await createTenant(app)).key);
      assert.deepEqual(sources(await query(empty, { query: 'volcanoes magma', corpora: [slug], top_k: 1 })), [`${slug}:volcano`]);
    });

    it("never shows one tenant's documents to another through a corpus, nor corpus chunks as documents", async () => {
      const slug = await createCorpus();
      const shared = 'Quantum tunnelling lets particles cross energy barriers they classically could not.';
      const loaded = await load(slug, [{ source_record_id: 'qt', content: shared }]);
      const a = await tenant();
      const b = await tenant();
      const docA = await ingest(app, a.key, { knowledge_base_id: a.kb, title: 'A secret', content: `${shared} Project Falcon.` });
      // Every corpus the plan gives access to is searched (vector search always finds neighbours).
      const resultsB = await query(b.api, { query: 'quantum tunnelling energy barriers Project Falcon', top_k: 100 });
      assert.deepEqual(fromCorpus(resultsB, slug).map((r) => r.source_record_id), ['qt']);
      assert.ok(resultsB.every((r) => r.source !== 'tenant' && r.document_id === undefined));
      assert.ok(!JSON.stringify(resultsB).includes('Falcon'));
      assert.ok(!JSON.stringify(resultsB).includes(docA.documentId));
      const resultsA = await query(a.api, { query: 'quantum tunnelling energy barriers Project Falcon', corpora: [slug], top_k: 100 });
      assert.deepEqual(resultsA.map((r) => r.source).sort(), [slug, 'tenant']);
      assert.equal(resultsA.find((r) => r.source === 'tenant').document_id, docA.documentId);

      // Corpus chunks are not tenant documents: not listed, not readable, not deletable, not a place to write.
      const { rows } = await app.db.query<{ id: string; corpus_id: string }>(
        "SELECT pc.id, pc.corpus_id FROM platform_chunks pc JOIN corpora c ON c.id = pc.corpus_id WHERE c.slug = $1",
        [slug],
      );
      const [chunk] = rows;
      assert.deepEqual((await b.api('GET', `/v1/knowledge-bases/${b.kb}/documents`)).body, []);
      for (const [method, path] of [
        ['GET', `/v1/documents/${chunk!.id}`],
        ['DELETE', `/v1/documents/${chunk!.id}`],
        ['GET', `/v1/knowledge-bases/${chunk!.corpus_id}/documents`],
        ['GET', `/v1/jobs/${loaded.job_id}`],
      ] as const) {
        assert.equal((await b.api(method, path)).status, 404, `${method} ${path}`);
      }
      assert.equal((await b.api('POST', '/v1/documents', { knowledge_base_id: chunk!.corpus_id, title: 'x', content: 'y' })).status, 404);
      assert.equal((await b.api('POST', '/v1/query', { query: 'x', knowledge_base_ids: [chunk!.corpus_id] })).status, 404);
      assert.equal((await b.api('POST', `/v1/corpora/${slug}/records`, { records: [] })).status, 404);
      assert.equal((await b.api('GET', '/v1/usage')).body.chunks.used, 0, 'corpus chunks do not count against tenants');
    });

    it('lets sub-tenant keys see and search the corpora of their parent; only the parent accepts DUAs', async () => {
      const slug = await createCorpus({ plans: ['enterprise'], requires_dua: true });
      await load(slug, [{ source_record_id: 'r1', content: 'Coral reefs bleach when sea temperatures stay high for weeks.' }]);
      const parent = await tenant('enterprise');
      await ingest(app, parent.key, { knowledge_base_id: parent.kb, title: 'Parent only', content: 'Coral reef bleaching notes of the parent.' });
      const sub = (await parent.api('POST', '/v1/sub-tenants', { name: 'Customer' })).body.id as string;
      const subKey = (await parent.api('POST', `/v1/sub-tenants/${sub}/api-keys`, { role: 'write' })).body.key as string;
      const subApi = client(app.url, subKey);
      const view = async () => (await subApi('GET', '/v1/corpora')).body.corpora.find((c: { slug: string }) => c.slug === slug);
      assert.deepEqual([(await view()).accessible, (await view()).accepted], [true, false]);
      const refused = await subApi('POST', `/v1/corpora/${slug}/accept-dua`);
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error, 'insufficient_role');
      const q = { query: 'coral reefs bleach sea temperatures', top_k: 100 };
      assert.deepEqual(fromCorpus(await query(subApi, q), slug), []);
      assert.equal((await subApi('POST', '/v1/query', { ...q, corpora: [slug] })).body.error, 'dua_not_accepted');

      assert.equal((await parent.api('POST', `/v1/corpora/${slug}/accept-dua`)).status, 200);
      assert.equal((await view()).accepted, true);
      const subResults = await query(subApi, q);
      assert.deepEqual(fromCorpus(subResults, slug).map((r) => r.source_record_id), ['r1']);
      assert.ok(subResults.every((r) => r.source !== 'tenant'), "the parent's documents stay the parent's");
      assert.deepEqual((await query(parent.api, { ...q, corpora: [slug] })).map((r) => r.source).sort(), [slug, 'tenant']);
    });

    it('counts and bills a query with platform results like any other', async () => {
      const slug = await createCorpus({ plans: ['payg'] });
      await load(slug, [{ source_record_id: 'r1', content: 'Honeybees communicate the direction of flowers with a waggle dance.' }]);
      const t = await tenant('payg');
      const res = await t.api('POST', '/v1/query', { query: 'honeybees waggle dance' });
      assert.equal(res.body.results[0].source, slug);
      const { rows } = await app.db.query<{ n: number; cost: number; output: number }>(
        `SELECT count(*)::int AS n, sum(cost_microcents)::int AS cost, sum(output_tokens)::int AS output
         FROM usage_events WHERE tenant_id = $1 AND event_type = 'query'`,
        [t.id],
      );
      assert.deepEqual(rows[0], { n: 1, cost: 400_000, output: Math.ceil(res.body.results[0].content.length / 4) });
      assert.equal((await t.api('GET', '/v1/usage')).body.queries_this_period.used, 1);
      assert.equal(res.headers.get('x-ratelimit-limit'), '100');
    });

    it('searches corpora of other dimensions, and keeps the vector indexes healthy', async () => {
      const slug = await createCorpus({ dimensions: 384 });
      await load(slug, [{ source_record_id: 'r1', content: 'Lichens are partnerships of fungi and algae living as one organism.' }]);
      const t = await tenant();
      assert.deepEqual(fromCorpus(await query(t.api, { query: 'lichens fungi algae partnership' }), slug).map((r) => r.source_record_id), ['r1']);
      const { rows } = await app.db.query<{ dimensions: number; n: number }>(
        'SELECT pc.dimensions, cardinality(pc.embedding::real[]) AS n FROM platform_chunks pc JOIN corpora c ON c.id = pc.corpus_id WHERE c.slug = $1',
        [slug],
      );
      assert.deepEqual(rows, [{ dimensions: 384, n: 384 }]);
      const health = await client(app.url)('GET', '/health/index');
      const pgvector = (await app.db.query("SELECT 1 FROM pg_extension WHERE extname = 'vector'")).rows.length > 0;
      const hnsw = await app.db.query("SELECT 1 FROM pg_indexes WHERE indexname = 'idx_platform_chunks_embedding_d384'");
      if (app.services.adapters.vectorIndex.kind === 'flat') {
        // The in-process index holds every dimension; the database keeps no HNSW graph nobody searches.
        assert.equal(health.status, 200);
        assert.deepEqual(health.body, { idx_chunks_embedding: 'ok', idx_platform_chunks_embedding: 'ok' });
        assert.equal(hnsw.rows.length, 0);
      } else if (pgvector) {
        assert.equal(health.status, 200);
        assert.deepEqual(health.body, { idx_chunks_embedding: 'ok', idx_platform_chunks_embedding: 'ok' });
        assert.equal(hnsw.rows.length, 1);
      } else {
        // A PostgreSQL without pgvector has no HNSW indexes: corpora are searched by exact scan, which serves.
        assert.equal(health.status, 200);
        assert.deepEqual(health.body, { idx_chunks_embedding: 'ok', idx_platform_chunks_embedding: 'ok' });
        assert.equal(hnsw.rows.length, 0);
      }
    });

    it('deletes a corpus with its chunks, jobs and acceptances', async () => {
      const slug = await createCorpus({ requires_dua: true });
      const loaded = await load(slug, [{ source_record_id: `r1-${slug}`, content: 'Tardigrades survive the vacuum of space.' }]);
      const t = await tenant();
      await t.api('POST', `/v1/corpora/${slug}/accept-dua`);
      assert.equal(fromCorpus(await query(t.api, { query: 'tardigrades vacuum space' }), slug).length, 1);
      assert.equal((await admin('DELETE', `/internal/v1/corpora/${slug}`)).status, 204);
      assert.deepEqual(fromCorpus(await query(t.api, { query: 'tardigrades vacuum space' }), slug), []);
      assert.ok(!(await t.api('GET', '/v1/corpora')).body.corpora.some((c: { slug: string }) => c.slug === slug));
      const count = async (sql: string, value: string) => (await app.db.query<{ n: number }>(sql, [value])).rows[0]!.n;
      assert.equal(await count('SELECT count(*)::int AS n FROM jobs WHERE id = $1', loaded.job_id), 0);
      assert.equal(await count('SELECT count(*)::int AS n FROM corpus_records WHERE job_id = $1', loaded.job_id), 0);
      assert.equal(await count('SELECT count(*)::int AS n FROM corpus_dua_acceptances WHERE tenant_id = $1', t.id), 0);
      assert.equal(await count('SELECT count(*)::int AS n FROM platform_chunks WHERE source_record_id = $1', `r1-${slug}`), 0);
    });
  });

  describe(`platform corpus ingestion failures [${database.name}]`, () => {
    // This suite's engine is the only one running, so its refusing embedder is the one that runs the job.
    let app: TestApp;
    let admin: Api;
    const slug = `failing-${randomBytes(4).toString('hex')}`;
    before(async () => {
      const lexical = new LexicalEmbedder();
      const embedder: Embedder = {
        id: lexical.id,
        embed: async (texts, options) => {
          if (texts.some((t) => t.includes('POISON'))) throw new Error('The embedding endpoint refused the input.');
          return lexical.embed(texts, options);
        },
      };
      app = await startTestApp(await database.get(), { env: { JOB_MAX_ATTEMPTS: '1' }, adapters: { embedder } });
      admin = client(app.url, TEST_ADMIN_TOKEN);
    });
    after(async () => {
      await admin('DELETE', `/internal/v1/corpora/${slug}`);
      await app.close();
    });

    it('marks the records a job could not index as failed and takes their chunks out of search', async () => {
      assert.equal((await admin('POST', '/internal/v1/corpora', { slug, name: 'Failing', plans: ['standard'] })).status, 201);
      const good = await admin('POST', `/internal/v1/corpora/${slug}/records`, { records: [{ source_record_id: 'bad', content: 'Fine at first.' }] });
      assert.equal((await waitForCorpusJob(admin, slug, good.body.job_id)).status, 'completed');
      assert.equal((await admin('GET', `/internal/v1/corpora/${slug}`)).body.chunk_count, 1);
      // Reloading the record with content the embedder refuses: the job fails for good (one attempt).
      const res = await admin('POST', `/internal/v1/corpora/${slug}/records`, {
        records: [
          { source_record_id: 'bad', content: 'POISON record' },
          { source_record_id: 'fine', content: 'Aardvarks dig burrows at night.' },
        ],
      });
      const job = await waitForCorpusJob(admin, slug, res.body.job_id);
      assert.equal(job.status, 'failed');
      assert.equal(job.error, 'The embedding endpoint refused the input.');
      const record = (await admin('GET', `/internal/v1/corpora/${slug}/records/bad`)).body;
      assert.deepEqual([record.status, record.error], ['failed', 'The embedding endpoint refused the input.']);
      const corpus = (await admin('GET', `/internal/v1/corpora/${slug}`)).body;
      assert.deepEqual(corpus.records, { pending: 0, ready: 0, failed: 2 });
      assert.equal(corpus.chunk_count, 0);
      const t = await createTenant(app);
      const results = await client(app.url, t.key)('POST', '/v1/query', { query: 'fine at first', corpora: [slug] });
      assert.deepEqual(results.body.results, []);
    });
  });
}
