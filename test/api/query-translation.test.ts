import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { TEST_ADMIN_TOKEN, type TestApp, client, createKey, createTenant, ingest, startTestApp, waitForCorpusJob } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import { keyContext } from '../../bench/support.js';
import type { Embedder } from '../../core/ports/embedder.js';
import type { QueryRequest } from '../../core/search/search.schema.js';
import { SearchService } from '../../core/search/search.service.js';

/** Spanish passages, one per topic; the English queries share no words with them. */
const SPANISH = [
  'El gato duerme en la cocina todas las tardes.',
  'El perro corre por el jardín con su pelota roja.',
  'El tren sale de la estación a las ocho de la mañana.',
  'La panadería vende pan fresco y pasteles de chocolate.',
  'Los niños leen libros en la biblioteca de la escuela.',
  'El médico trabaja en el hospital durante la noche.',
];
const GERMAN = 'Die Katze schläft jeden Nachmittag in der Küche.';
const BULGARIAN = 'Котката спи в кухнята всеки следобед.';

type Api = ReturnType<typeof client>;

for (const database of testDatabases()) {
  describe(`query translation [${database.name}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(await database.get());
    });
    after(() => app.close());

    async function tenantWith(contents: string[], options: { plan?: 'standard' | 'enterprise' | 'free'; kb?: Record<string, unknown> } = {}) {
      const t = await createTenant(app, options.plan ?? 'standard');
      const api = client(app.url, t.key);
      const kb = (await api('POST', '/v1/knowledge-bases', { name: 'kb', ...options.kb })).body.id as string;
      for (const [i, content] of contents.entries()) await ingest(app, t.key, { knowledge_base_id: kb, title: `doc ${i}`, content });
      return { t, api, kb };
    }

    const query = (api: Api, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      api('POST', '/v1/query', { top_k: 3, ...body }, headers);

    it('searches with the query translated into the documents’ language and fuses the rankings', async () => {
      const { t, api } = await tenantWith(SPANISH);
      const res = await query(api, { query: 'The cat sleeps in the kitchen.' });
      assert.equal(res.status, 200);
      assert.equal(res.body.results[0].content, SPANISH[0]);
      assert.equal(res.body.results[0].content_original, undefined);
      assert.deepEqual(Object.keys(res.body.metadata).sort(), ['translation_config_source', 'translation_latency_ms']);
      assert.equal(res.body.metadata.translation_config_source, 'instance_default');
      assert.ok(Number.isInteger(res.body.metadata.translation_latency_ms) && res.body.metadata.translation_latency_ms >= 0);
      const scores = res.body.results.map((r: { score: number }) => r.score);
      assert.deepEqual(scores, [...scores].sort((a, b) => b - a));
      // Counted once as a query; the translated characters are in the ledger without a second request.
      const usage = await client(app.url, t.key)('GET', '/v1/billing/usage');
      assert.equal(usage.body.query_count, 1);
      assert.equal(usage.body.total_requests, 1);
      const ledger = await app.db.query<{ event_type: string; input_chars: number }>(
        "SELECT event_type, input_chars::int FROM usage_events WHERE tenant_id = $1 AND event_type IN ('query', 'query_translation') ORDER BY event_type",
        [t.id],
      );
      assert.deepEqual(ledger.rows, [{ event_type: 'query', input_chars: 0 }, { event_type: 'query_translation', input_chars: 'The cat sleeps in the kitchen.'.length }]);
      // A query in the documents' own language needs no translation, and says nothing about it.
      const spanish = await query(api, { query: 'El perro corre por el jardín' });
      assert.equal(spanish.body.results[0].content, SPANISH[1]);
      assert.equal(spanish.body.metadata, undefined);
      // source_language names the query's language instead of detecting it.
      const told = await query(api, { query: 'The train leaves the station', source_language: 'en' });
      assert.equal(told.body.results[0].content, SPANISH[2]);
      assert.equal(told.body.metadata.translation_config_source, 'instance_default');
    });

    it('weighs the translation above the query as asked when the query’s language is none of the knowledge base’s', async () => {
      // A Spanish page naming an English band: the English query's words match it as they are.
      const band = 'El grupo The Kitchen Cats toca en la plaza del pueblo todos los sábados por la noche.';
      const { api } = await tenantWith([SPANISH[0]!, band]);
      const res = await query(api, { query: 'The cat sleeps in the kitchen.' });
      assert.equal(res.status, 200);
      const contents = res.body.results.map((r: { content: string }) => r.content);
      assert.deepEqual(contents, [SPANISH[0], band], 'first in the translated search, second in the untranslated one: ahead');
      assert.ok(res.body.results[0].score > res.body.results[1].score, 'not a tie broken by chunk id');
    });

    it('finds documents by every translation a bilingual dictionary gives the query’s words, not only the one the translation chose', async () => {
      // Apertium translates "Save the file" as "Salvar la lima" (a file for nails); its dictionary
      // also has "guardar" for "save" and "archivo" for "file", as the manual says.
      const manual = 'Para guardar el archivo, elija Guardar en el menú Archivo.';
      const nails = 'La lima de uñas está en el cajón del baño, junto al espejo.';
      const { t, api } = await tenantWith([nails, manual, SPANISH[0]!]);
      const res = await query(api, { query: 'Save the file' });
      assert.equal(res.status, 200);
      assert.equal(res.body.metadata.translation_config_source, 'instance_default');
      assert.equal(res.body.results[0].content, manual);
      // The look-up went through the tenant's translation cache, next to the translation.
      const cached = await app.db.query<{ translated_text: string }>('SELECT translated_text FROM translation_cache WHERE tenant_id = $1', [t.id]);
      assert.ok(cached.rows.some((r) => r.translated_text.includes('archivo')));
      assert.ok(cached.rows.some((r) => r.translated_text === 'Salvar la lima'));
      // The same query again, from the cache: the same answer.
      assert.deepEqual((await query(api, { query: 'Save the file' })).body.results, res.body.results);
    });

    it('finds a query’s names as spelled in a translated search, not only as the translation has them', async () => {
      // Apertium translates "Platform service Extensions" as "Prórrogas de servicio de la
      // programa"; the Spanish manual names the service as it is called in every language.
      const manual = 'Servicio Platform: la propiedad Extensions devuelve las extensiones instaladas.';
      const office = 'La oficina del programa de becas ofrece un servicio de prórrogas en la plataforma.';
      const { api } = await tenantWith([office, manual, ...SPANISH]);
      const res = await query(api, { query: 'Platform service Extensions' });
      assert.equal(res.status, 200);
      assert.equal(res.body.metadata.translation_config_source, 'instance_default');
      assert.deepEqual(
        res.body.results.slice(0, 2).map((r: { content: string }) => r.content),
        [manual, office],
      );
      // A capitalised word counts as a name only beside another: the same words in lower case are translated alone.
      const lower = await query(api, { query: 'platform service extensions' });
      assert.equal(lower.body.results[0].content, office);
    });

    it('searches a knowledge base of two languages in each, weighing its share, and what a search only found as nearest little', async () => {
      // A quarter of the documents are English, so Spanish and English are both the knowledge base's
      // languages: the French query is searched in Spanish (weighing 1) and in English (a third of
      // Spanish's share: 0.5), and as asked (0.5). The Spanish manual holds both words as Apertium
      // translates them ("grabar", "fichero") and leads the Spanish search; the English page holds
      // "file" and leads the English one. The other two pages match nothing, and each search returns
      // them as its nearest: they weigh a quarter (FILLER_WEIGHT), or the one all three searches
      // ranked second outranked the manual.
      const manual = 'Para grabar el fichero, elija Grabar en el menú Fichero.';
      const english = 'Each file in the folder has a name and a size.';
      const { t, api } = await tenantWith([manual, SPANISH[0]!, SPANISH[1]!, english]);
      const res = await query(api, { query: 'Enregistrer le fichier', source_language: 'fr' });
      assert.equal(res.status, 200);
      const contents = res.body.results.map((r: { content: string }) => r.content);
      assert.equal(contents[0], manual);
      assert.ok(contents.includes(english), JSON.stringify(contents));
      assert.ok(res.body.results[0].score > res.body.results[1].score, 'ahead, not a tie broken by chunk id');
      // Translated into both languages (the look-ups too), metered as one query translation.
      const cached = await app.db.query<{ translated_text: string }>('SELECT translated_text FROM translation_cache WHERE tenant_id = $1', [t.id]);
      const texts = cached.rows.map((r) => r.translated_text);
      assert.equal(texts.length, 4, 'a translation and a look-up per language');
      assert.ok(texts.includes('Grabar el fichero') && texts.includes('Record the file'), JSON.stringify(texts));
      const ledger = await app.db.query("SELECT 1 FROM usage_events WHERE tenant_id = $1 AND event_type = 'query_translation'", [t.id]);
      assert.equal(ledger.rows.length, 1);
      // With a second, Spanish-only knowledge base the query is searched twice translated (English
      // over the first; Spanish over both), translated into each language, and metered, once.
      const spanishOnly = (await api('POST', '/v1/knowledge-bases', { name: 'es' })).body.id as string;
      await ingest(app, t.key, { knowledge_base_id: spanishOnly, title: 'grabar', content: 'Grabar el fichero en el disco lleva unos segundos.' });
      const both = await query(api, { query: 'Enregistrer le document', source_language: 'fr' });
      assert.equal(both.status, 200);
      const metered = await app.db.query<{ input_chars: number }>(
        "SELECT input_chars::int FROM usage_events WHERE tenant_id = $1 AND event_type = 'query_translation' ORDER BY input_chars",
        [t.id],
      );
      assert.deepEqual(metered.rows.map((r) => r.input_chars), [2 * 'Enregistrer le fichier'.length, 2 * 'Enregistrer le document'.length]);
    });

    it('weighs each search by its languages’ share of the knowledge base: a query in the main language keeps its own matches first', async () => {
      // Fifteen Spanish documents and three English ones (17 %): English is one of the knowledge
      // base's languages, so a Spanish query is also searched in English. The Spanish search's
      // first four hold the query's words, the English search's first three are the English pages.
      // At equal weights they took every other place from the Spanish search's; weighing what they
      // speak for (a fifth as many documents), they come after its matches.
      const cats = [
        'Mi gato come pescado en la cocina.',
        'El gato del vecino duerme en el jardín.',
        'La cocina de la abuela huele a pan.',
      ];
      const more = [
        'La farmacia abre los domingos por la mañana.',
        'El museo guarda cuadros antiguos de la ciudad.',
        'El autobús número siete llega tarde cuando llueve.',
        'La piscina municipal cierra en invierno.',
        'Los vecinos plantan tomates en el huerto comunitario.',
        'El mercado de pescado se llena antes del amanecer.',
      ];
      const english = [
        'The cat sleeps in the kitchen every afternoon.',
        'A kitchen cat sleeps near the warm oven.',
        'Cats sleep most of the day, often in the kitchen.',
      ];
      const { api } = await tenantWith([...SPANISH, ...cats, ...more, ...english]);
      const res = await query(api, { query: 'El gato duerme en la cocina', source_language: 'es', top_k: 4 });
      assert.equal(res.status, 200);
      assert.equal(res.body.metadata.translation_config_source, 'instance_default', 'translated into English');
      const contents: string[] = res.body.results.map((r: { content: string }) => r.content);
      assert.equal(contents[0], SPANISH[0]);
      assert.ok(res.body.results[0].score > res.body.results[1].score, 'ahead, not a tie broken by chunk id');
      assert.deepEqual([...contents].sort(), [SPANISH[0]!, ...cats].sort());
      // The English search's best match still ranks among the Spanish search's ten.
      const ten = await query(api, { query: 'El gato duerme en la cocina', source_language: 'es', top_k: 10 });
      assert.ok(ten.body.results.some((r: { content: string }) => english.includes(r.content)), JSON.stringify(ten.body.results));
    });

    it('tells a search’s matches from the lexical embedder’s mere nearest; an embedder of meaning’s results all match', async () => {
      const { t } = await tenantWith(SPANISH);
      const { db, adapters } = app.services;
      const ctx = await keyContext(app.services, t.key, pino({ level: 'silent' }));
      const request: QueryRequest = { query: 'gato', top_k: 3, source_language: 'es', translate_response: false };
      assert.equal(adapters.embedder.lexical, true);
      const lexical = await new SearchService(db, adapters.embedder, adapters.vectorIndex, adapters.keywordIndex, adapters.decompounder, adapters.synonymDictionary ?? null).query(ctx, request);
      assert.equal(lexical.results[0]!.content, SPANISH[0]);
      assert.deepEqual(lexical.matched, [true, false, false], 'only the first holds the word');
      // The same vectors from an embedder not flagged lexical: its nearest are meanings, so matches.
      const meaningful: Embedder = { id: adapters.embedder.id, embed: (texts, options) => adapters.embedder.embed(texts, options) };
      const meaning = await new SearchService(db, meaningful, adapters.vectorIndex, adapters.keywordIndex, adapters.decompounder, adapters.synonymDictionary ?? null).query(ctx, request);
      assert.deepEqual(meaning.matched, [true, true, true]);
    });

    it('does not translate into a language that only a few of the knowledge base’s documents are in', async () => {
      const english = Array.from({ length: 10 }, (_, i) => `The library opens at ${i + 8} in the morning and closes late in the evening.`);
      // One Spanish document of eleven (9 %): below the share that makes Spanish a language of the knowledge base.
      const { t, api } = await tenantWith([...english, SPANISH[0]!]);
      const res = await query(api, { query: 'When does the library open in the morning?' });
      assert.equal(res.status, 200);
      assert.equal(res.body.metadata, undefined);
      const ledger = await app.db.query("SELECT 1 FROM usage_events WHERE tenant_id = $1 AND event_type = 'query_translation'", [t.id]);
      assert.equal(ledger.rows.length, 0);
      // One more Spanish document (2 of 12, 17 %) and Spanish counts: the query is translated again,
      // and the Spanish search's best match ranks among the English search's ten (weighing the
      // least: it speaks for a fifth as many documents).
      const kb = (await api('GET', '/v1/knowledge-bases')).body[0].id as string;
      await ingest(app, t.key, { knowledge_base_id: kb, title: 'second', content: SPANISH[1]! });
      const again = await query(api, { query: 'The cat sleeps in the kitchen.', top_k: 10 });
      assert.equal(again.body.metadata.translation_config_source, 'instance_default');
      assert.ok(again.body.results.some((r: { content: string }) => r.content === SPANISH[0]));
    });

    it('query_translation never searches with the query as it is; preferred_language chooses the language', async () => {
      const never = await tenantWith(SPANISH, { kb: { translation_config: { query_translation: 'never' } } });
      const res = await query(never.api, { query: 'The cat sleeps in the kitchen.' });
      assert.equal(res.status, 200);
      assert.equal(res.body.metadata, undefined);
      // An English knowledge base that prefers Spanish: the query is translated into Spanish anyway.
      const preferred = await tenantWith(['The bakery sells fresh bread.'], { kb: { translation_config: { preferred_language: 'es' } } });
      const translated = await query(preferred.api, { query: 'The cat sleeps in the kitchen.' });
      assert.equal(translated.body.metadata.translation_config_source, 'knowledge_base');
    });

    it('response_translation: always, on_request with translate_response, never; translated items keep content_original', async () => {
      const { api } = await tenantWith(SPANISH);
      await api('PATCH', '/v1/tenant/settings', { translation_config: { response_translation: 'always' } });
      const always = await query(api, { query: 'The cat sleeps in the kitchen.', top_k: 2 });
      const [first] = always.body.results;
      assert.equal(first.content_original, SPANISH[0]);
      assert.match(first.content, /cat/i);
      assert.ok(always.body.results.every((r: { content_original?: string }) => typeof r.content_original === 'string'));
      assert.equal(always.body.metadata.translation_config_source, 'tenant');
      // translate_response false declines even where always applies (query translation still happens).
      const declined = await query(api, { query: 'The cat sleeps in the kitchen.', translate_response: false });
      assert.ok(declined.body.results.every((r: { content_original?: string }) => r.content_original === undefined));

      await api('PATCH', '/v1/tenant/settings', { translation_config: { response_translation: 'on_request' } });
      const notAsked = await query(api, { query: 'The cat sleeps in the kitchen.' });
      assert.ok(notAsked.body.results.every((r: { content_original?: string }) => r.content_original === undefined));
      const asked = await query(api, { query: 'The cat sleeps in the kitchen.', translate_response: true });
      assert.ok(asked.body.results.every((r: { untranslated?: unknown }) => r.untranslated === undefined));
      assert.equal(asked.body.results[0].content_original, SPANISH[0]);
      assert.equal(asked.body.metadata.translation_config_source, 'request');

      await api('PATCH', '/v1/tenant/settings', { translation_config: { response_translation: 'never' } });
      const never = await query(api, { query: 'The cat sleeps in the kitchen.', translate_response: true });
      assert.ok(never.body.results.every((r: { content_original?: string }) => r.content_original === undefined));
      // Results already in the query's language are left alone.
      await api('PATCH', '/v1/tenant/settings', { translation_config: { response_translation: 'always' } });
      const same = await query(api, { query: 'El gato duerme en la cocina' });
      assert.ok(same.body.results.every((r: { content_original?: string }) => r.content_original === undefined));
      assert.equal(same.body.metadata, undefined);
    });

    it('the knowledge base’s settings come before the tenant’s, the end user’s before both, the request first', async () => {
      const t = await createTenant(app, 'enterprise');
      const api = client(app.url, t.key);
      const sub = (await api('POST', '/v1/sub-tenants', { name: 'Sub' })).body;
      const subKey = (await api('POST', `/v1/sub-tenants/${sub.id}/api-keys`, { role: 'write' })).body.key as string;
      const subApi = client(app.url, subKey);
      const kb = (await subApi('POST', '/v1/knowledge-bases', { name: 'es' })).body.id as string;
      for (const [i, content] of SPANISH.entries()) await ingest(app, subKey, { knowledge_base_id: kb, title: `d${i}`, content });
      const q = { query: 'The cat sleeps in the kitchen.', top_k: 1 };
      const translatedBy = async (headers: Record<string, string> = {}, body: Record<string, unknown> = {}) => {
        const res = await query(subApi, { ...q, ...body }, headers);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        return res.body.results[0].content_original ? res.body.metadata.translation_config_source : null;
      };
      assert.equal(await translatedBy(), null);
      await api('PATCH', '/v1/tenant/settings', { translation_config: { response_translation: 'always' } });
      assert.equal(await translatedBy(), 'tenant');
      const patched = await api('PATCH', `/v1/sub-tenants/${sub.id}`, { translation_config: { response_translation: 'never' } });
      assert.deepEqual(patched.body.translation_config, { response_translation: 'never' });
      assert.equal(await translatedBy(), null);
      await api('PATCH', `/v1/sub-tenants/${sub.id}`, { translation_config: { response_translation: 'always' } });
      assert.equal(await translatedBy(), 'sub_tenant');
      // The tenant's own key searching the sub-tenant's knowledge base: the sub-tenant's settings apply to it too.
      const byTenantKey = await query(api, { ...q, knowledge_base_ids: [kb] });
      assert.equal(byTenantKey.body.results[0].content_original, SPANISH[0]);
      assert.equal(byTenantKey.body.metadata.translation_config_source, 'sub_tenant');
      await subApi('PATCH', `/v1/knowledge-bases/${kb}`, { translation_config: { response_translation: 'never' } });
      assert.equal(await translatedBy(), null);
      await subApi('PATCH', `/v1/knowledge-bases/${kb}`, { translation_config: { response_translation: 'on_request' } });
      assert.equal(await translatedBy({}, { translate_response: true }), 'request');
      await api('PATCH', `/v1/sub-tenants/${sub.id}/users/anna/preferences`, { translation_config: { response_translation: 'always' } });
      assert.equal(await translatedBy({ 'x-user-id': 'anna' }), 'user');
      assert.equal(await translatedBy({ 'x-user-id': 'bob' }), null);
      assert.equal(await translatedBy({ 'x-user-id': 'anna' }, { translate_response: false }), null);
      assert.equal((await api('PATCH', `/v1/sub-tenants/${sub.id}`, { translation_config: { response_translation: 'maybe' } })).status, 422);
    });

    it('with several knowledge bases, metadata names the most specific level that decided a translation', async () => {
      const { t, api, kb } = await tenantWith(SPANISH.slice(0, 3));
      const second = (await api('POST', '/v1/knowledge-bases', { name: 'two', translation_config: { preferred_language: 'es' } })).body.id as string;
      await ingest(app, t.key, { knowledge_base_id: second, title: 'x', content: 'La biblioteca abre los lunes.' });
      const both = await query(api, { query: 'The library opens on Mondays.' });
      assert.equal(both.body.metadata.translation_config_source, 'knowledge_base');
      const first = await query(api, { query: 'The library opens on Mondays.', knowledge_base_ids: [kb] });
      assert.equal(first.body.metadata.translation_config_source, 'instance_default');
    });

    it('fallback_behaviour: passthrough answers untranslated results, error answers 503 translation_unavailable (not counted)', async () => {
      // Nothing here translates English into Bulgarian: no Apertium pair, no FreeDict dictionary
      // installed, and this app without the catalogue dictionaries.
      const bare = await startTestApp(await database.get(), { env: { CATALOGUE_DICTIONARY_DIR: 'none' } });
      // Closed before the next test: its job engine would otherwise take other apps' jobs from the shared database.
      try {
        const t = await createTenant(bare, 'standard');
        const api = client(bare.url, t.key);
        const kb = (await api('POST', '/v1/knowledge-bases', { name: 'kb' })).body.id as string;
        await ingest(bare, t.key, { knowledge_base_id: kb, title: 'doc', content: BULGARIAN });
        const passthrough = await query(api, { query: 'The cat sleeps in the kitchen.', translate_response: true });
        assert.equal(passthrough.status, 200);
        assert.equal(passthrough.body.results[0].content, BULGARIAN);
        assert.equal(passthrough.body.results[0].content_original, undefined);
        // Each result passed through says it was not translated, and why.
        assert.deepEqual(passthrough.body.results[0].untranslated, { language: 'bg', reason: 'unsupported_pair' });
        assert.equal(passthrough.body.metadata, undefined);
        // Not asked for, no response translation and no notice.
        const notAsked = await query(api, { query: 'The cat sleeps in the kitchen.' });
        assert.equal(notAsked.body.results[0].untranslated, undefined);
        await api('PATCH', '/v1/tenant/settings', { translation_config: { fallback_behaviour: 'error' } });
        const error = await query(api, { query: 'The cat sleeps in the kitchen.' });
        assert.equal(error.status, 503);
        assert.equal(error.body.error, 'translation_unavailable');
        // The two answered queries are counted, the refused one is not.
        assert.equal((await api('GET', '/v1/billing/usage')).body.query_count, 2);
        // No translation needed, no error.
        assert.equal((await query(api, { query: 'Котката спи в кухнята' })).status, 200);
      } finally {
        await bare.close();
      }
    });

    it('where no engine translates the pair, searches with the words a bilingual dictionary translates (FreeDict, English to German)', async () => {
      // Apertium has no English–German pair; Debian's dict-freedict-eng-deu has the words.
      const manual = 'Um die Datei zu drucken, wählen Sie im Menü Datei den Befehl Drucken.';
      const { t, api } = await tenantWith([GERMAN, manual, 'Der Zug fährt um acht Uhr vom Bahnhof ab.']);
      const res = await query(api, { query: 'print the file' });
      assert.equal(res.status, 200);
      assert.equal(res.body.results[0].content, manual);
      assert.equal(res.body.metadata.translation_config_source, 'instance_default');
      // Metered as a translation of the query: its characters in, the words' translations out.
      const ledger = await app.db.query<{ input_chars: number; output_chars: number }>(
        "SELECT input_chars::int, output_chars::int FROM usage_events WHERE tenant_id = $1 AND event_type = 'query_translation'",
        [t.id],
      );
      assert.equal(ledger.rows.length, 1);
      assert.equal(ledger.rows[0]!.input_chars, 'print the file'.length);
      assert.ok(ledger.rows[0]!.output_chars > 0);
    });

    it('where only the catalogue dictionaries translate the pair (English to Bulgarian), searches with their software words', async () => {
      const folders = 'Отворете папката, за да видите файловете в нея.';
      const { t, api } = await tenantWith([
        BULGARIAN,
        'Влакът тръгва от гарата в осем часа сутринта.',
        folders,
        'Децата четат книги в училищната библиотека.',
        'Лекарят работи в болницата през нощта.',
      ]);
      // No engine, no FreeDict: "open" is "отвори", "отваряне"; "folder" "папка", "папката" in the catalogues' software words.
      const res = await query(api, { query: 'open the folder' });
      assert.equal(res.status, 200);
      // The translated search ranks it first (weight 1 / (60 + 1)); the query as asked, which shares
      // no word with these documents, weighs 0.5 and ranks the others by chance.
      const found = (res.body.results as Array<{ content: string; score: number }>).find((r) => r.content === folders);
      assert.ok(found && found.score >= 1 / 61 - 1e-12, JSON.stringify(res.body.results));
      assert.equal(res.body.metadata.translation_config_source, 'instance_default');
      const ledger = await app.db.query<{ input_chars: number }>(
        "SELECT input_chars::int FROM usage_events WHERE tenant_id = $1 AND event_type = 'query_translation'",
        [t.id],
      );
      assert.deepEqual(ledger.rows, [{ input_chars: 'open the folder'.length }]);
    });

    it('Free tenants get query translation but no response translation', async () => {
      const { api } = await tenantWith(SPANISH.slice(0, 2), { plan: 'free', kb: { translation_config: { response_translation: 'always' } } });
      const res = await query(api, { query: 'The cat sleeps in the kitchen.' });
      assert.equal(res.status, 200);
      assert.equal(res.body.results[0].content, SPANISH[0]);
      assert.equal(res.body.results[0].content_original, undefined);
      assert.equal(res.body.metadata.translation_config_source, 'instance_default');
      assert.equal((await query(api, { query: 'x', translate_response: true })).body.error, 'free_tier_restriction');
    });

    it('never leaks another tenant’s documents or translations', async () => {
      const a = await tenantWith(['El gato duerme en la cocina todas las tardes.']);
      const b = await tenantWith(['El coche rojo está en la calle.']);
      await a.api('PATCH', '/v1/tenant/settings', { translation_config: { response_translation: 'always' } });
      await b.api('PATCH', '/v1/tenant/settings', { translation_config: { response_translation: 'always' } });
      const resA = await query(a.api, { query: 'The cat sleeps in the kitchen.', top_k: 10 });
      assert.deepEqual(resA.body.results.map((r: { content_original: string }) => r.content_original), ['El gato duerme en la cocina todas las tardes.']);
      const resB = await query(b.api, { query: 'The cat sleeps in the kitchen.', top_k: 10 });
      assert.deepEqual(resB.body.results.map((r: { content_original: string }) => r.content_original), ['El coche rojo está en la calle.']);
      assert.ok(!JSON.stringify(resB.body).includes('gato'));
      const cache = async (tenantId: string) =>
        (await app.db.query<{ translated_text: string }>('SELECT translated_text FROM translation_cache WHERE tenant_id = $1 ORDER BY 1', [tenantId])).rows.map(
          (r) => r.translated_text,
        );
      // Each cache holds the tenant's own query translation, dictionary look-up and passages' translations only.
      const [cacheA, cacheB] = [await cache(a.t.id), await cache(b.t.id)];
      assert.equal(cacheA.length, 3);
      assert.equal(cacheB.length, 3);
      assert.ok(cacheA.some((text) => /afternoon|evening/i.test(text)) && !cacheA.some((text) => /car\b|street/i.test(text)));
      assert.ok(cacheB.some((text) => /car\b|street/i.test(text)) && !cacheB.some((text) => /afternoon|evening/i.test(text)));
    });

    it('translates platform corpus results too', async () => {
      const admin = client(app.url, TEST_ADMIN_TOKEN);
      const slug = `qt-${randomBytes(4).toString('hex')}`;
      assert.equal((await admin('POST', '/internal/v1/corpora', { slug, name: 'Recetas', plans: ['enterprise'] })).status, 201);
      try {
        const load = await admin('POST', `/internal/v1/corpora/${slug}/records`, {
          records: [{ source_record_id: 'r1', content: 'La sopa de tomate se sirve caliente con pan.' }],
        });
        assert.equal(load.status, 202);
        const job = await waitForCorpusJob(admin, slug, load.body.job_id);
        assert.equal(job.status, 'completed', JSON.stringify(job));
        const t = await createTenant(app, 'enterprise');
        const api = client(app.url, await createKey(app, t.key, 'read'));
        const res = await query(api, { query: 'La sopa de tomate', source_language: 'es', translate_response: true, top_k: 5 }, {});
        assert.equal(res.status, 200);
        const corpusItem = res.body.results.find((r: { source: string }) => r.source === slug);
        assert.ok(corpusItem, JSON.stringify(res.body));
        // The query is Spanish and so is the record: nothing to translate.
        assert.equal(corpusItem.content_original, undefined);
        const english = await query(api, { query: 'The tomato soup is served hot.', translate_response: true, corpora: [slug] });
        const translated = english.body.results.find((r: { source: string }) => r.source === slug);
        assert.equal(translated.content_original, 'La sopa de tomate se sirve caliente con pan.');
        assert.match(translated.content, /tomato/i);
        assert.equal(translated.source_record_id, 'r1');
        assert.equal(english.body.metadata.translation_config_source, 'request');
      } finally {
        await admin('DELETE', `/internal/v1/corpora/${slug}`);
      }
    });
  });
}
