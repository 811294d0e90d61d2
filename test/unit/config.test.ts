import assert from 'node:assert/strict';
import path from 'node:path';
import { DEFAULT_GRAPH_POLICY, graphPolicyOf } from '../../core/adapters/flat-index/vector-graph.js';
import { ConfigError, loadConfig } from '../../core/config.js';

describe('config', () => {
  it('has embedded defaults', () => {
    const c = loadConfig({});
    assert.equal(c.port, 8080);
    assert.equal(c.dataDir, path.resolve('./data'));
    assert.deepEqual(c.database, { kind: 'embedded', sharedBuffers: '128MB' });
    assert.deepEqual(loadConfig({ PGLITE_SHARED_BUFFERS: '1GB' }).database, { kind: 'embedded', sharedBuffers: '1GB' });
    assert.equal(c.apiKeyPrefix, 'lore');
    assert.equal(c.migrateOnStart, true);
    assert.equal(c.adminToken, undefined);
  });

  it('uses PostgreSQL when DATABASE_URL is set, and does not migrate it on start by default', () => {
    const c = loadConfig({ DATABASE_URL: 'postgres://u@h:5432/db', DATABASE_POOL_SIZE: '4' });
    assert.deepEqual(c.database, { kind: 'postgres', url: 'postgres://u@h:5432/db', poolSize: 4 });
    assert.equal(c.migrateOnStart, false);
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://u@h/db', MIGRATE_ON_START: 'true' }).migrateOnStart, true);
  });

  it('picks the vector and keyword indexes: in memory embedded, in the database with DATABASE_URL; keywords in memory need the flat vector index', () => {
    const embedded = loadConfig({});
    assert.equal(embedded.vectorIndex.kind, 'flat');
    assert.equal(embedded.keywordIndex, 'flat');
    assert.equal(loadConfig({ KEYWORD_INDEX: 'postgres' }).keywordIndex, 'postgres');
    assert.equal(loadConfig({ VECTOR_INDEX: 'pgvector' }).keywordIndex, 'postgres');
    const server = loadConfig({ DATABASE_URL: 'postgres://u@h/db' });
    assert.equal(server.vectorIndex.kind, 'pgvector');
    assert.equal(server.keywordIndex, 'postgres');
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://u@h/db', VECTOR_INDEX: 'flat' }).keywordIndex, 'flat');
    assert.throws(() => loadConfig({ VECTOR_INDEX: 'pgvector', KEYWORD_INDEX: 'flat' }), (e: Error) => e instanceof ConfigError && /KEYWORD_INDEX: flat needs VECTOR_INDEX=flat/.test(e.message));
    assert.throws(() => loadConfig({ KEYWORD_INDEX: 'lucene' }), ConfigError);
  });

  it("gives the flat index's graphs the policy the VECTOR_GRAPH_* settings say, or none", () => {
    assert.deepEqual(graphPolicyOf(loadConfig({}).vectorIndex), DEFAULT_GRAPH_POLICY);
    const policy = graphPolicyOf(loadConfig({ VECTOR_GRAPH_MIN_MB: '64', VECTOR_GRAPH_EF_SEARCH: '1600', VECTOR_GRAPH_EF_CONSTRUCTION: '256' }).vectorIndex);
    assert.deepEqual(policy, { ...DEFAULT_GRAPH_POLICY, minBytes: 64 * 2 ** 20, expansionSearch: 1600, expansionAdd: 256 });
    assert.equal(graphPolicyOf(loadConfig({ VECTOR_GRAPH_MIN_MB: '0' }).vectorIndex), null);
  });

  it('treats empty values as unset', () => {
    assert.equal(loadConfig({ PORT: '', DATABASE_URL: '' }).port, 8080);
  });

  for (const [name, value] of [
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['ADMIN_TOKEN', 'short'],
    ['API_KEY_PREFIX', 'Bad_Prefix'],
    ['LOG_LEVEL', 'loud'],
    ['PUBLIC_BASE_URL', 'ftp://x'],
    ['METRICS_ENABLED', 'maybe'],
    ['TRANSLATION_ENGINES', 'google'],
    ['TRANSLATION_ENGINES', 'none,apertium'],
    ['APERTIUM_ROUTES', 'es-fr'],
    ['APERTIUM_ROUTES', 'es-fr:pt'],
    ['APERTIUM_ROUTES', 'es-es:direct'],
    ['APERTIUM_ROUTES', 'es-fr:fr'],
    ['APERTIUM_ROUTES', 'es-xx:ca'],
    ['LIBRETRANSLATE_URL', 'not a url'],
    ['PGLITE_SHARED_BUFFERS', "1GB'; x"],
    ['PGLITE_SHARED_BUFFERS', 'lots'],
    ['VECTOR_GRAPH_EF_CONSTRUCTION', '8'],
    ['VECTOR_GRAPH_EF_CONSTRUCTION', 'wide'],
  ] as const) {
    it(`refuses ${name}=${value} with a one-line message naming it`, () => {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (err: unknown) => {
          assert.ok(err instanceof ConfigError);
          assert.ok(err.message.startsWith(`Invalid configuration: ${name}: `), err.message);
          assert.ok(!err.message.includes('\n'));
          return true;
        },
      );
    });
  }

  it('picks translation engines: auto by default, none, or a list whose HTTP engines need their settings', () => {
    assert.equal(loadConfig({}).translation.engines, 'auto');
    assert.deepEqual(loadConfig({ TRANSLATION_ENGINES: 'none' }).translation.engines, []);
    const c = loadConfig({
      TRANSLATION_ENGINES: 'apertium, libretranslate,deepl,apertium',
      LIBRETRANSLATE_URL: 'http://lt:5000',
      DEEPL_API_KEY: 'key:fx',
    });
    assert.deepEqual(c.translation.engines, ['apertium', 'libretranslate', 'deepl']);
    assert.deepEqual(c.translation.libreTranslate, { url: 'http://lt:5000', apiKey: undefined });
    assert.deepEqual(c.translation.deepl, { url: undefined, apiKey: 'key:fx' });
    assert.deepEqual(c.translation.apertium, { binary: 'apertium', timeoutMs: 20_000, concurrency: 2, dataDir: '/usr/share/apertium', routes: {} });
    assert.deepEqual(loadConfig({ APERTIUM_ROUTES: ' es-fr:direct, en-fr:es,fr-it:ca ' }).translation.apertium.routes, {
      'es-fr': 'direct',
      'en-fr': 'es',
      'fr-it': 'ca',
    });
    assert.throws(() => loadConfig({ TRANSLATION_ENGINES: 'libretranslate' }), /LIBRETRANSLATE_URL: required/);
    assert.throws(() => loadConfig({ TRANSLATION_ENGINES: 'deepl' }), /DEEPL_API_KEY: required/);
  });
});
