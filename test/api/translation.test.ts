import assert from 'node:assert/strict';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type TestApp, client, createKey, createTenant, startTestApp } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import { FakeDeepLServer } from '../support/fake-deepl.server.js';
import { fakeTranslation } from '../support/fake-http.server.js';
import { FakeLibreTranslateServer } from '../support/fake-libretranslate.server.js';

const APERTIUM_PAIRS = [
  ...['en', 'es', 'fr', 'it'].flatMap((s) => ['en', 'es', 'fr', 'it'].filter((t) => t !== s).map((t) => `${s}-${t}`)),
  'ro-en', 'ro-es', 'ro-fr', 'ro-it',
].sort();

const pairs = (list: Array<{ source: string; target: string }>) => list.map((p) => `${p.source}-${p.target}`).sort();

for (const database of testDatabases()) {
  describe(`translation [${database.name}]`, () => {
    describe('with Apertium (the default when installed)', () => {
      let app: TestApp;
      before(async () => {
        app = await startTestApp(await database.get());
      });
      after(() => app.close());

      it('translates a text, directly and through Spanish, and detects the source with auto', async () => {
        const t = await createTenant(app);
        const api = client(app.url, await createKey(app, t.key, 'read'));
        const res = await api('POST', '/v1/translate', { text: 'The cat is on the table.', source: 'en', target: 'es' });
        assert.equal(res.status, 200);
        assert.deepEqual(Object.keys(res.body).sort(), ['latency_ms', 'source', 'target', 'translated_text']);
        assert.equal(res.body.translated_text, 'El gato es en la mesa.');
        assert.equal(res.body.source, 'en');
        assert.equal(res.body.target, 'es');
        assert.ok(Number.isInteger(res.body.latency_ms) && res.body.latency_ms >= 0);
        const auto = await api('POST', '/v1/translate', { text: 'La maison est grande et le jardin est beau.', source: 'auto', target: 'it' });
        assert.equal(auto.status, 200);
        assert.equal(auto.body.source, 'fr');
        assert.match(auto.body.translated_text, /casa/);
        // Apertium's eng-spa leaves two spaces where it drops a word ("25 días  de"): one is kept, through French too.
        for (const target of ['es', 'fr']) {
          const leave = await api('POST', '/v1/translate', { text: 'Staff get 25 days of paid leave a year.', source: 'en', target });
          assert.doesNotMatch(leave.body.translated_text, / {2}/, leave.body.translated_text);
          assert.match(leave.body.translated_text, /^\S.*\.$/);
        }
        const same = await api('POST', '/v1/translate', { text: 'Unchanged text.', source: 'en', target: 'en' });
        assert.equal(same.body.translated_text, 'Unchanged text.');
      });

      it('translates a batch in order', async () => {
        const t = await createTenant(app);
        const api = client(app.url, t.key);
        const res = await api('POST', '/v1/translate/batch', { texts: ['The house is big.', 'The dog is here.', ''], source: 'en', target: 'es' });
        assert.equal(res.status, 200);
        assert.deepEqual(Object.keys(res.body).sort(), ['latency_ms', 'source', 'target', 'translations']);
        assert.equal(res.body.translations.length, 3);
        assert.match(res.body.translations[0], /casa/);
        assert.match(res.body.translations[1], /perro/);
        assert.equal(res.body.translations[2], '');
        const hundred = await api('POST', '/v1/translate/batch', { texts: Array.from({ length: 100 }, (_, i) => `House ${i}.`), source: 'en', target: 'es' });
        assert.equal(hundred.status, 200);
        assert.equal(hundred.body.translations[99], 'Casa 99.');
      });

      it('answers the spec error codes', async () => {
        const t = await createTenant(app);
        const api = client(app.url, t.key);
        const expectError = async (path: string, body: unknown, status: number, code: string) => {
          const res = await api('POST', path, body);
          assert.equal(res.status, status, `${JSON.stringify(body).slice(0, 80)}: ${JSON.stringify(res.body)}`);
          assert.equal(res.body.error, code);
          return res.body;
        };
        // Length: 5,000 characters (code points) per text, also inside a batch.
        assert.equal((await api('POST', '/v1/translate', { text: 'é'.repeat(5000), source: 'fr', target: 'fr' })).status, 200);
        assert.equal((await api('POST', '/v1/translate', { text: '😀'.repeat(5000), source: 'en', target: 'en' })).status, 200);
        const tooLong = await expectError('/v1/translate', { text: 'a'.repeat(5001), source: 'en', target: 'es' }, 400, 'text_too_long');
        assert.equal(tooLong.max_chars, 5000);
        const inBatch = await expectError('/v1/translate/batch', { texts: ['ok', 'a'.repeat(5001)], source: 'en', target: 'es' }, 400, 'text_too_long');
        assert.equal(inBatch.index, 1);
        await expectError('/v1/detect', { text: 'a'.repeat(5001) }, 400, 'text_too_long');
        // Batch size: 1-100 texts, a 400 of its own rather than a validation failure.
        await expectError('/v1/translate/batch', { texts: [], source: 'en', target: 'es' }, 400, 'invalid_batch_size');
        await expectError('/v1/translate/batch', { texts: Array.from({ length: 101 }, () => 'x'), source: 'en', target: 'es' }, 400, 'invalid_batch_size');
        // Languages.
        await expectError('/v1/translate', { text: 'x', source: 'pl', target: 'es' }, 400, 'unsupported_language');
        await expectError('/v1/translate', { text: 'x', source: 'en', target: 'auto' }, 400, 'unsupported_language');
        await expectError('/v1/translate', { text: 'x', source: 'EN', target: 'es' }, 400, 'unsupported_language');
        await expectError('/v1/translate/batch', { texts: ['x'], source: 'en', target: 'xx' }, 400, 'unsupported_language');
        await expectError('/v1/translate', { text: 'これは日本語の文章です。', source: 'auto', target: 'en' }, 400, 'unsupported_language');
        // A pair no configured engine serves.
        const pair = await expectError('/v1/translate', { text: 'Hallo Welt', source: 'de', target: 'en' }, 400, 'unsupported_language_pair');
        assert.deepEqual([pair.source, pair.target], ['de', 'en']);
        await expectError('/v1/translate/batch', { texts: ['x'], source: 'es', target: 'ro' }, 400, 'unsupported_language_pair');
        // Malformed bodies stay validation failures.
        for (const body of [{ source: 'en', target: 'es' }, { text: 3, source: 'en', target: 'es' }, { text: 'x', source: 'en', target: 'es', extra: 1 }]) {
          await expectError('/v1/translate', body, 422, 'validation_failed');
        }
        await expectError('/v1/translate/batch', { texts: 'x', source: 'en', target: 'es' }, 422, 'validation_failed');
        await expectError('/v1/translate/batch', { texts: [1], source: 'en', target: 'es' }, 422, 'validation_failed');
        await expectError('/v1/detect', {}, 422, 'validation_failed');
      });

      it('detects languages with any key, and answers null with confidence 0 for text in none of them', async () => {
        const t = await createTenant(app);
        const read = client(app.url, await createKey(app, t.key, 'read'));
        const cases: Array<[string, string | null]> = [
          ['The weather is lovely today and we are going to the beach.', 'en'],
          ['Het weer is vandaag prachtig en we gaan naar het strand.', 'nl'],
          ['Das Wetter ist heute herrlich und wir gehen an den Strand.', 'de'],
          ['Времето днес е прекрасно и отиваме на плажа.', 'bg'],
          ['Vremea este minunată astăzi și mergem la plajă.', 'ro'],
          ['今日はとても良い天気なので、海に行きます。', null],
          ['12345 67890', null],
        ];
        for (const [text, language] of cases) {
          const res = await read('POST', '/v1/detect', { text });
          assert.equal(res.status, 200);
          assert.deepEqual(Object.keys(res.body).sort(), ['confidence', 'language']);
          assert.equal(res.body.language, language, text);
          if (language) assert.ok(res.body.confidence > 0.2 && res.body.confidence <= 1, `${text}: ${res.body.confidence}`);
          else assert.equal(res.body.confidence, 0);
        }
        // Short texts eld alone takes for English or for none: the catalogue dictionaries' words decide, unsure.
        for (const [text, language] of [['Documents vierges', 'fr'], ['pegar resultados de fórmulas', 'es'], ['Menüs Kontextmenüs aktivieren', 'de']]) {
          const res = await read('POST', '/v1/detect', { text });
          assert.equal(res.body.language, language, text);
          assert.ok(res.body.confidence > 0 && res.body.confidence <= 0.25, `${text}: ${res.body.confidence}`);
        }
        assert.equal((await client(app.url)('POST', '/v1/detect', { text: 'x' })).status, 401);
      });

      it('reports the 16 Apertium pairs as loaded: degraded health, and only those as languages', async () => {
        const t = await createTenant(app);
        const read = client(app.url, await createKey(app, t.key, 'read'));
        const health = await read('GET', '/v1/translation/health');
        assert.equal(health.status, 200);
        assert.equal(health.body.status, 'degraded');
        assert.equal(health.body.models_total, 56);
        assert.equal(health.body.models_loaded, 16);
        assert.deepEqual(health.body.engines, ['apertium']);
        assert.equal(health.body.models.length, 56);
        assert.deepEqual(pairs(health.body.models.filter((m: { status: string }) => m.status === 'loaded')), APERTIUM_PAIRS);
        assert.deepEqual(health.body.models.find((m: { source: string; target: string }) => m.source === 'fr' && m.target === 'it'), {
          source: 'fr', target: 'it', status: 'loaded', engine: 'apertium', pivot: 'es',
        });
        assert.deepEqual(health.body.models.find((m: { source: string; target: string }) => m.source === 'it' && m.target === 'en'), {
          source: 'it', target: 'en', status: 'loaded', engine: 'apertium', pivot: 'es',
        });
        assert.deepEqual(health.body.models.find((m: { source: string; target: string }) => m.source === 'nl' && m.target === 'de'), {
          source: 'nl', target: 'de', status: 'unavailable', engine: null, pivot: null,
        });
        const languages = await read('GET', '/v1/translation/languages');
        assert.equal(languages.status, 200);
        assert.deepEqual(pairs(languages.body), APERTIUM_PAIRS);
        assert.ok(languages.body.every((p: object) => Object.keys(p).sort().join() === 'source,target'));
      });

      it('caches translations per tenant and meters characters in and out', async () => {
        const t = await createTenant(app);
        const other = await createTenant(app);
        const api = client(app.url, t.key);
        const text = 'The garden is green.';
        const first = await api('POST', '/v1/translate', { text, source: 'en', target: 'es' });
        const second = await api('POST', '/v1/translate', { text, source: 'en', target: 'es' });
        assert.equal(second.body.translated_text, first.body.translated_text);
        const cacheRows = async (tenantId: string) =>
          (await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM translation_cache WHERE tenant_id = $1', [tenantId])).rows[0]!.n;
        assert.equal(await cacheRows(t.id), 1);
        assert.equal(await cacheRows(other.id), 0);
        // The cache holds no source text.
        const stored = await app.db.query<{ key_hash: string; translated_text: string }>('SELECT key_hash, translated_text FROM translation_cache WHERE tenant_id = $1', [t.id]);
        assert.match(stored.rows[0]!.key_hash, /^[0-9a-f]{64}$/);
        assert.equal(stored.rows[0]!.translated_text, first.body.translated_text);
        await client(app.url, other.key)('POST', '/v1/translate', { text, source: 'en', target: 'es' });
        assert.equal(await cacheRows(other.id), 1);

        await api('POST', '/v1/translate/batch', { texts: ['One house.', 'Two houses.'], source: 'en', target: 'fr' });
        const events = await app.db.query<{ quantity: number; input_chars: number; output_chars: number; input_tokens: number }>(
          "SELECT quantity::int, input_chars::int, output_chars::int, input_tokens::int FROM usage_events WHERE tenant_id = $1 AND event_type = 'translation' ORDER BY occurred_at",
          [t.id],
        );
        assert.equal(events.rows.length, 3);
        assert.deepEqual(events.rows[0], { quantity: 1, input_chars: text.length, output_chars: first.body.translated_text.length, input_tokens: Math.ceil(text.length / 4) });
        assert.equal(events.rows[2]!.input_chars, 'One house.'.length + 'Two houses.'.length);
        const billing = await api('GET', '/v1/billing/usage');
        assert.equal(billing.body.total_requests, 3);
        // Refused requests are not metered.
        await api('POST', '/v1/translate', { text: 'x', source: 'de', target: 'en' });
        assert.equal((await api('GET', '/v1/billing/usage')).body.total_requests, 3);
      });

      it('requires a read key for translation and health', async () => {
        assert.equal((await client(app.url)('POST', '/v1/translate', { text: 'x', source: 'en', target: 'es' })).status, 401);
        assert.equal((await client(app.url)('GET', '/v1/translation/health')).status, 401);
        assert.equal((await client(app.url)('GET', '/v1/translation/languages')).status, 401);
      });
    });

    describe('tenant settings', () => {
      let app: TestApp;
      before(async () => {
        app = await startTestApp(await database.get(), { env: { TRANSLATION_ENGINES: 'none' } });
      });
      after(() => app.close());

      it('reads and replaces the translation config with an admin key', async () => {
        const t = await createTenant(app);
        const api = client(app.url, t.key);
        assert.deepEqual((await api('GET', '/v1/tenant/settings')).body, { translation_config: {} });
        const config = { query_translation: 'never', response_translation: 'always', preferred_language: 'de', fallback_behaviour: 'error' };
        const patched = await api('PATCH', '/v1/tenant/settings', { translation_config: config });
        assert.equal(patched.status, 200);
        assert.deepEqual(patched.body, { translation_config: config });
        assert.deepEqual((await api('GET', '/v1/tenant/settings')).body, { translation_config: config });
        // PATCH replaces the object: fields left out are unset.
        await api('PATCH', '/v1/tenant/settings', { translation_config: { preferred_language: 'nl' } });
        assert.deepEqual((await api('GET', '/v1/tenant/settings')).body, { translation_config: { preferred_language: 'nl' } });
        await api('PATCH', '/v1/tenant/settings', { translation_config: {} });
        assert.deepEqual((await api('GET', '/v1/tenant/settings')).body, { translation_config: {} });
        // The instance operator sees the same object.
        assert.deepEqual((await client(app.url, 'test-admin-token-0123456789abcdef')('GET', `/internal/v1/tenants/${t.id}`)).body.translation_config, {});
      });

      it('validates every field (422) and needs an admin key', async () => {
        const t = await createTenant(app);
        const api = client(app.url, t.key);
        for (const body of [
          {},
          { translation_config: 'auto' },
          { translation_config: { query_translation: 'always' } },
          { translation_config: { response_translation: 'sometimes' } },
          { translation_config: { preferred_language: 'pl' } },
          { translation_config: { fallback_behaviour: 'retry' } },
          { translation_config: { colour: 'blue' } },
          { translation_config: {}, other: 1 },
        ]) {
          const res = await api('PATCH', '/v1/tenant/settings', body);
          assert.equal(res.status, 422, JSON.stringify(body));
          assert.equal(res.body.error, 'validation_failed');
        }
        for (const role of ['read', 'write'] as const) {
          const key = client(app.url, await createKey(app, t.key, role));
          assert.equal((await key('GET', '/v1/tenant/settings')).body.error, 'insufficient_role');
          assert.equal((await key('PATCH', '/v1/tenant/settings', { translation_config: {} })).status, 403);
        }
      });

      it('refuses response_translation always on the Free plan (403 free_tier_restriction)', async () => {
        const free = await createTenant(app, 'free');
        const api = client(app.url, free.key);
        const denied = await api('PATCH', '/v1/tenant/settings', { translation_config: { response_translation: 'always' } });
        assert.equal(denied.status, 403);
        assert.equal(denied.body.error, 'free_tier_restriction');
        assert.deepEqual((await api('GET', '/v1/tenant/settings')).body, { translation_config: {} });
        const allowed = await api('PATCH', '/v1/tenant/settings', { translation_config: { response_translation: 'on_request', query_translation: 'auto' } });
        assert.equal(allowed.status, 200);
      });

      it('with translation off: 503 translation_unavailable, health disabled, no languages; detection still works', async () => {
        const t = await createTenant(app);
        const api = client(app.url, t.key);
        const res = await api('POST', '/v1/translate', { text: 'The cat.', source: 'en', target: 'es' });
        assert.equal(res.status, 503);
        assert.equal(res.body.error, 'translation_unavailable');
        assert.equal((await api('POST', '/v1/translate/batch', { texts: ['x'], source: 'en', target: 'es' })).body.error, 'translation_unavailable');
        // Requests that are wrong in themselves say so first.
        assert.equal((await api('POST', '/v1/translate', { text: 'x', source: 'pl', target: 'es' })).body.error, 'unsupported_language');
        const health = await api('GET', '/v1/translation/health');
        assert.equal(health.body.status, 'disabled');
        assert.equal(health.body.models_loaded, 0);
        assert.equal(health.body.models_total, 56);
        assert.deepEqual(health.body.engines, []);
        assert.ok(health.body.models.every((m: { status: string }) => m.status === 'unavailable'));
        assert.deepEqual((await api('GET', '/v1/translation/languages')).body, []);
        assert.equal((await api('POST', '/v1/detect', { text: 'Le chat est sur la table de la cuisine.' })).body.language, 'fr');
      });
    });

    describe('with LibreTranslate and DeepL (fakes)', () => {
      let app: TestApp;
      let lt: FakeLibreTranslateServer;
      let deepl: FakeDeepLServer;
      before(async () => {
        lt = await FakeLibreTranslateServer.start({ apiKey: 'lt-key' });
        deepl = await FakeDeepLServer.start({ apiKey: 'dl-key' });
        deepl.sources = ['EN', 'DE'];
        deepl.targets = ['EN-GB', 'DE'];
        app = await startTestApp(await database.get(), {
          env: {
            TRANSLATION_ENGINES: 'libretranslate,deepl,apertium',
            LIBRETRANSLATE_URL: lt.url,
            LIBRETRANSLATE_API_KEY: 'lt-key',
            DEEPL_URL: deepl.url,
            DEEPL_API_KEY: 'dl-key',
            TRANSLATION_HEALTH_TTL_SECONDS: '0',
          },
        });
      });
      after(async () => {
        await app.close();
        await lt.close();
        await deepl.close();
      });

      it('uses the best engine per pair: DeepL where it has the pair, else LibreTranslate', async () => {
        const t = await createTenant(app);
        const api = client(app.url, t.key);
        assert.equal((await api('POST', '/v1/translate', { text: 'Hallo', source: 'de', target: 'en' })).body.translated_text, '[en-gb] Hallo');
        assert.equal((await api('POST', '/v1/translate', { text: 'Hallo', source: 'de', target: 'bg' })).body.translated_text, '[bg] Hallo');
        const batch = await api('POST', '/v1/translate/batch', { texts: ['a', 'b'], source: 'nl', target: 'ro' });
        assert.deepEqual(batch.body.translations, [fakeTranslation('a', 'ro'), fakeTranslation('b', 'ro')]);
        const health = await api('GET', '/v1/translation/health');
        assert.equal(health.body.status, 'healthy');
        assert.equal(health.body.models_loaded, 56);
        assert.deepEqual(health.body.engines, ['deepl', 'libretranslate', 'apertium']);
        assert.equal(health.body.models.find((m: { source: string; target: string }) => m.source === 'en' && m.target === 'de').engine, 'deepl');
        assert.equal(health.body.models.find((m: { source: string; target: string }) => m.source === 'en' && m.target === 'es').engine, 'libretranslate');
        assert.equal((await api('GET', '/v1/translation/languages')).body.length, 56);
      });

      it('serves repeated texts from the cache without asking the engine again', async () => {
        const t = await createTenant(app);
        const api = client(app.url, t.key);
        const before = lt.translations.length;
        await api('POST', '/v1/translate/batch', { texts: ['cache me', 'cache me', 'new'], source: 'fr', target: 'nl' });
        assert.equal(lt.translations.length, before + 1);
        assert.deepEqual(lt.translations.at(-1)!.body.q, ['cache me', 'new']);
        const again = await api('POST', '/v1/translate/batch', { texts: ['new', 'cache me'], source: 'fr', target: 'nl' });
        assert.deepEqual(again.body.translations, ['[nl] new', '[nl] cache me']);
        assert.equal(lt.translations.length, before + 1);
      });

      it('answers 503 when the engines cannot be reached and 500 without details when they break', async () => {
        const t = await createTenant(app);
        const api = client(app.url, t.key);
        lt.failNext(3, { status: 503 });
        const unavailable = await api('POST', '/v1/translate', { text: 'x', source: 'nl', target: 'bg' });
        assert.equal(unavailable.status, 503);
        assert.equal(unavailable.body.error, 'translation_unavailable');
        lt.failNext(1, { status: 200, body: { translatedText: 42 } });
        const failed = await api('POST', '/v1/translate', { text: 'y', source: 'nl', target: 'bg' });
        assert.equal(failed.status, 500);
        assert.equal(failed.body.error, 'translation_failed');
        assert.equal(failed.body.message, 'The translation failed.');
        assert.ok(!JSON.stringify(failed.body).includes('LibreTranslate') && !JSON.stringify(failed.body).includes(lt.url));
        // A failing engine gives way to the next one that has the pair.
        lt.failNext(3, { status: 502 });
        assert.match((await api('POST', '/v1/translate', { text: 'The house is big.', source: 'en', target: 'es' })).body.translated_text, /casa/);
        // Not metered when it failed.
        assert.equal((await api('GET', '/v1/billing/usage')).body.total_requests, 1);
      });
    });

    describe('with an Apertium that hangs or crashes', () => {
      let dir: string;
      before(async () => {
        dir = await mkdtemp(path.join(tmpdir(), 'lore-fake-apertium-'));
      });
      after(() => rm(dir, { recursive: true, force: true }));

      it('answers 500 translation_failed without internal detail', async () => {
        const programs: Array<[string, string]> = [
          ['hangs', 'sleep 30'],
          ['crashes', 'echo "lt-proc: /usr/share/apertium/x.bin: Segmentation fault" >&2; exit 139'],
        ];
        for (const [name, body] of programs) {
          const binary = path.join(dir, name);
          await writeFile(binary, `#!/bin/sh\nif [ "$1" = "-l" ]; then echo "eng-spa"; exit 0; fi\n${body}\n`);
          await chmod(binary, 0o755);
          const app = await startTestApp(await database.get(), {
            jobs: false,
            env: { TRANSLATION_ENGINES: 'apertium', APERTIUM_BINARY: binary, APERTIUM_TIMEOUT_MS: '300' },
          });
          try {
            const t = await createTenant(app);
            const res = await client(app.url, t.key)('POST', '/v1/translate', { text: 'The cat.', source: 'en', target: 'es' });
            assert.equal(res.status, 500, name);
            assert.deepEqual(Object.keys(res.body).sort(), ['error', 'message', 'request_id']);
            assert.equal(res.body.error, 'translation_failed');
            assert.ok(!/apertium|segmentation|timed out/i.test(res.body.message));
          } finally {
            await app.close();
          }
        }
      });
    });
  });
}
