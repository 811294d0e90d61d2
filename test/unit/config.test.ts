import assert from 'node:assert/strict';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../core/config.js';

describe('config', () => {
  it('has embedded defaults', () => {
    const c = loadConfig({});
    assert.equal(c.port, 8080);
    assert.equal(c.dataDir, path.resolve('./data'));
    assert.deepEqual(c.database, { kind: 'embedded' });
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
});
