import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { deleteTenant } from '../../core/accounts/account.repository.js';
import type { Queryable } from '../../core/db/database.js';
import { MIGRATIONS_DIR, migrate } from '../../core/db/migrator.js';
import { openPgliteDatabase } from '../../core/db/pglite.database.js';
import { deleteDocument, insertDocument } from '../../core/documents/document.repository.js';
import { insertKnowledgeBase } from '../../core/knowledge-bases/knowledge-base.repository.js';
import { insertTenant } from '../../core/tenants/tenant.repository.js';
import { tenantScope } from '../../core/shared/scope.js';
import { MIN_LANGUAGE_SHARE } from '../../core/translation/query-translation.service.js';
import { documentLanguageShares } from '../../core/translation/translation.repository.js';
import { testDatabases } from '../support/databases.js';

/**
 * The per-knowledge-base document counts by language (migration 0019) that query translation reads
 * instead of counting a knowledge base's documents on every query: exact after every kind of write.
 */

interface Count {
  knowledge_base_id: string;
  language: string;
  documents: number;
}

async function tenant(db: Queryable): Promise<string> {
  return (await insertTenant(db, { name: 'languages', plan: 'enterprise' })).id;
}

async function knowledgeBase(db: Queryable, tenantId: string): Promise<string> {
  return (await insertKnowledgeBase(db, tenantScope(tenantId), { name: 'kb', dimensions: 48, translationConfig: {} })).id;
}

/** A document being indexed (not counted until it is ready with a language). */
async function document(db: Queryable, tenantId: string, knowledgeBaseId: string): Promise<string> {
  const { id } = await insertDocument(db, tenantScope(tenantId), {
    knowledgeBaseId,
    title: 'doc',
    content: 'text',
    contentBytes: 4,
    tags: {},
    anonymized: false,
    source: 'text',
    fileBytes: 0,
    chunkCount: 1,
  });
  return id;
}

async function set(db: Queryable, documentId: string, status: 'processing' | 'ready' | 'failed', language: string | null): Promise<void> {
  await db.query('UPDATE documents SET status = $2, language = $3 WHERE id = $1', [documentId, status, language]);
}

async function readyDocument(db: Queryable, tenantId: string, knowledgeBaseId: string, language: string | null): Promise<string> {
  const id = await document(db, tenantId, knowledgeBaseId);
  await set(db, id, 'ready', language);
  return id;
}

const order = (a: Count, b: Count) => `${a.knowledge_base_id}/${a.language}`.localeCompare(`${b.knowledge_base_id}/${b.language}`);

async function counters(db: Queryable, tenantIds: string[]): Promise<Count[]> {
  const { rows } = await db.query<Count>(
    'SELECT knowledge_base_id, language, documents::int AS documents FROM knowledge_base_languages WHERE tenant_id = ANY($1::uuid[])',
    [tenantIds],
  );
  return rows.sort(order);
}

/** The same counted afresh over the documents. */
async function counted(db: Queryable, tenantIds: string[]): Promise<Count[]> {
  const { rows } = await db.query<Count>(
    `SELECT knowledge_base_id, language, count(*)::int AS documents FROM documents
     WHERE tenant_id = ANY($1::uuid[]) AND status = 'ready' AND language IS NOT NULL GROUP BY 1, 2`,
    [tenantIds],
  );
  return rows.sort(order);
}

async function assertExact(db: Queryable, tenantIds: string[], after: string): Promise<Count[]> {
  const now = await counters(db, tenantIds);
  assert.deepEqual(now, await counted(db, tenantIds), `counters after ${after}`);
  return now;
}

describe('knowledge-base language counters', () => {
  for (const database of testDatabases()) {
    describe(`[${database.name}]`, () => {
      it('equal a fresh count of ready documents by language after inserts, readiness, changes, failures, deletes and cascades', async () => {
        const db = await database.get();
        const t = await tenant(db);
        const other = await tenant(db);
        const [a, b, c] = [await knowledgeBase(db, t), await knowledgeBase(db, t), await knowledgeBase(db, other)];

        const pending = await document(db, t, a);
        assert.deepEqual(await assertExact(db, [t], 'a document being indexed'), []);
        await set(db, pending, 'ready', 'en');
        const en2 = await readyDocument(db, t, a, 'en');
        const fr = await readyDocument(db, t, a, 'fr');
        await readyDocument(db, t, a, null);
        await readyDocument(db, t, b, 'de');
        await readyDocument(db, t, b, 'de');
        await readyDocument(db, other, c, 'it');
        assert.deepEqual(
          (await assertExact(db, [t], 'documents becoming ready')).map((r) => [r.knowledge_base_id, r.language, r.documents]),
          [
            [a, 'en', 2],
            [a, 'fr', 1],
            [b, 'de', 2],
          ].sort((x, y) => `${x[0]}/${x[1]}`.localeCompare(`${y[0]}/${y[1]}`)),
        );

        await set(db, fr, 'ready', 'nl');
        await assertExact(db, [t], 'a language changed');
        await set(db, en2, 'failed', 'en');
        await assertExact(db, [t], 'a ready document failing');
        await deleteDocument(db, tenantScope(t), pending);
        await assertExact(db, [t], 'a document deleted');
        assert.ok(!(await counters(db, [t])).some((r) => r.knowledge_base_id === a && r.language === 'en'), 'a count at 0 leaves no row');

        await db.query('DELETE FROM knowledge_bases WHERE id = $1', [b]);
        await assertExact(db, [t], "a knowledge base's deletion");
        assert.ok(!(await counters(db, [t])).some((r) => r.knowledge_base_id === b));

        await deleteTenant(db, tenantScope(t));
        assert.deepEqual(await counters(db, [t]), [], "a tenant's deletion");
        await assertExact(db, [other], "another tenant's deletion");
      });

      it('give each knowledge base the languages that hold at least the minimum share of its documents, to its own tenant only', async () => {
        const db = await database.get();
        const t = await tenant(db);
        const other = await tenant(db);
        const [mixed, stray] = [await knowledgeBase(db, t), await knowledgeBase(db, t)];
        // 10 % French: a language of the knowledge base; 1 of 20 (5 %): a stray document.
        for (let i = 0; i < 9; i++) await readyDocument(db, t, mixed, 'en');
        await readyDocument(db, t, mixed, 'fr');
        for (let i = 0; i < 19; i++) await readyDocument(db, t, stray, 'es');
        await readyDocument(db, t, stray, 'en');
        assert.equal(MIN_LANGUAGE_SHARE, 0.1);
        const languages = await documentLanguageShares(db, tenantScope(t), [mixed, stray], MIN_LANGUAGE_SHARE);
        // Each with its share of all the knowledge base's documents (the stray one's included).
        assert.deepEqual(languages.get(mixed), new Map([['en', 0.9], ['fr', 0.1]]));
        assert.deepEqual(languages.get(stray), new Map([['es', 0.95]]));
        assert.deepEqual(await documentLanguageShares(db, tenantScope(other), [mixed, stray], MIN_LANGUAGE_SHARE), new Map(), 'another tenant reads none');
      });
    });
  }

  it('are filled by the migration from the documents already indexed', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'lore-migrations-'));
    const db = await openPgliteDatabase('memory://');
    try {
      for (const f of await fs.readdir(MIGRATIONS_DIR)) {
        if (f < '0019') await fs.copyFile(path.join(MIGRATIONS_DIR, f), path.join(dir, f));
      }
      await migrate(db, dir);
      const t = await tenant(db);
      const kb = await knowledgeBase(db, t);
      await readyDocument(db, t, kb, 'en');
      await readyDocument(db, t, kb, 'en');
      await readyDocument(db, t, kb, 'ro');
      await document(db, t, kb);
      await migrate(db);
      assert.equal((await assertExact(db, [t], 'the migration')).length, 2);
      await readyDocument(db, t, kb, 'ro');
      await assertExact(db, [t], 'a document indexed after the migration');
    } finally {
      await db.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
