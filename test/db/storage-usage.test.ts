import { tenantScope } from '../../core/shared/scope.js';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { deleteTenant } from '../../core/accounts/account.repository.js';
import type { Database, Queryable } from '../../core/db/database.js';
import { MIGRATIONS_DIR, migrate } from '../../core/db/migrator.js';
import { openPgliteDatabase } from '../../core/db/pglite.database.js';
import { deleteDocument, insertDocument, storageUsage } from '../../core/documents/document.repository.js';
import type { Scope } from '../../core/shared/scope.js';
import { deleteSubTenant } from '../../core/sub-tenants/sub-tenant.repository.js';
import { testDatabases } from '../support/databases.js';
import { pollUntil } from '../support/poll.js';

interface Figures {
  tenant_id: string;
  sub_tenant_id: string | null;
  documents: number;
  storage_bytes: number;
  chunks: number;
}

async function tenant(db: Queryable): Promise<string> {
  const { rows } = await db.query<{ id: string }>("INSERT INTO tenants (name, plan) VALUES ('storage usage', 'enterprise') RETURNING id");
  return rows[0]!.id;
}

async function subTenant(db: Queryable, tenantId: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>("INSERT INTO sub_tenants (tenant_id, name) VALUES ($1, 'customer') RETURNING id", [tenantId]);
  return rows[0]!.id;
}

async function knowledgeBase(db: Queryable, tenantId: string, subTenantId: string | null = null): Promise<{ id: string; tenantId: string; subTenantId: string | null }> {
  const { rows } = await db.query<{ id: string }>(
    "INSERT INTO knowledge_bases (tenant_id, sub_tenant_id, name, dimensions) VALUES ($1, $2, 'kb', 48) RETURNING id",
    [tenantId, subTenantId],
  );
  return { id: rows[0]!.id, tenantId, subTenantId };
}

async function document(
  db: Queryable,
  kb: { id: string; tenantId: string; subTenantId: string | null },
  size: { contentBytes: number; fileBytes?: number; chunks: number },
): Promise<string> {
  const { id } = await insertDocument(db, { tenantId: kb.tenantId, subTenantId: kb.subTenantId }, {
    knowledgeBaseId: kb.id,
    title: 'doc',
    content: 'x'.repeat(size.contentBytes),
    contentBytes: size.contentBytes,
    tags: {},
    anonymized: false,
    source: size.fileBytes ? 'upload' : 'text',
    fileBytes: size.fileBytes ?? 0,
    chunkCount: size.chunks,
  });
  return id;
}

const byOwner = (a: Figures, b: Figures) => `${a.tenant_id}/${a.sub_tenant_id ?? ''}`.localeCompare(`${b.tenant_id}/${b.sub_tenant_id ?? ''}`);

/** The counter rows of these tenants; rows that deletes brought back to zero count as no row. */
async function counters(db: Queryable, tenantIds: string[]): Promise<Figures[]> {
  const { rows } = await db.query<Figures>(
    `SELECT tenant_id, sub_tenant_id, documents, storage_bytes, chunks FROM storage_usage
     WHERE tenant_id = ANY($1::uuid[]) AND (documents, storage_bytes, chunks) <> (0, 0, 0)`,
    [tenantIds],
  );
  return rows.sort(byOwner);
}

/** The same figures summed afresh over the documents. */
async function sums(db: Queryable, tenantIds: string[]): Promise<Figures[]> {
  const { rows } = await db.query<Figures>(
    `SELECT tenant_id, sub_tenant_id, count(*)::bigint AS documents, sum(content_bytes + file_bytes)::bigint AS storage_bytes,
            sum(chunk_count)::bigint AS chunks
     FROM documents WHERE tenant_id = ANY($1::uuid[]) GROUP BY tenant_id, sub_tenant_id`,
    [tenantIds],
  );
  return rows.sort(byOwner);
}

/** What storageUsage answered before the counters: a sum over the scope's documents. */
async function summedUsage(db: Queryable, scope: Scope) {
  const { rows } = await db.query<{ documents: number; storage: number; chunks: number }>(
    `SELECT count(*)::bigint AS documents, COALESCE(sum(content_bytes + file_bytes), 0)::bigint AS storage,
            COALESCE(sum(chunk_count), 0)::bigint AS chunks
     FROM documents WHERE tenant_id = $1 AND ($2::uuid IS NULL OR sub_tenant_id = $2::uuid)`,
    [scope.tenantId, scope.subTenantId],
  );
  const r = rows[0]!;
  return { documents: Number(r.documents), storageBytes: Number(r.storage), chunks: Number(r.chunks) };
}

async function assertExact(db: Queryable, tenantIds: string[], scopes: Scope[], step: string): Promise<void> {
  assert.deepEqual(await counters(db, tenantIds), await sums(db, tenantIds), `counter rows after ${step}`);
  for (const scope of scopes) {
    assert.deepEqual(await storageUsage(db, scope), await summedUsage(db, scope), `storageUsage(${JSON.stringify(scope)}) after ${step}`);
  }
}

for (const database of testDatabases()) {
  describe(`storage usage counters [${database.name}]`, () => {
    it('equal a fresh sum over the documents after inserts, updates, deletes and every cascade', async () => {
      const db = await database.get();
      const a = await tenant(db);
      const b = await tenant(db);
      const s1 = await subTenant(db, a);
      const s2 = await subTenant(db, a);
      const tenants = [a, b];
      const scopes: Scope[] = [a, b].map((tenantId) => ({ tenantId, subTenantId: null }));
      scopes.push({ tenantId: a, subTenantId: s1 }, { tenantId: a, subTenantId: s2 });
      const check = (step: string) => assertExact(db, tenants, scopes, step);

      const [kbA1, kbA2, kbS1, kbS2, kbB] = [
        await knowledgeBase(db, a),
        await knowledgeBase(db, a),
        await knowledgeBase(db, a, s1),
        await knowledgeBase(db, a, s2),
        await knowledgeBase(db, b),
      ] as const;
      await check('nothing');
      const indexed = await document(db, kbA1, { contentBytes: 100, chunks: 3 });
      const upload = await document(db, kbA1, { contentBytes: 40, fileBytes: 900, chunks: 1 });
      await document(db, kbA2, { contentBytes: 70, chunks: 2 });
      await document(db, kbA2, { contentBytes: 80, fileBytes: 20, chunks: 2 });
      const failing = await document(db, kbS1, { contentBytes: 500, chunks: 7 });
      await document(db, kbS1, { contentBytes: 10, chunks: 1 });
      const moving = await document(db, kbS2, { contentBytes: 60, chunks: 2 });
      await document(db, kbS2, { contentBytes: 30, chunks: 1 });
      await document(db, kbB, { contentBytes: 5, chunks: 1 });
      await check('inserts');

      // Indexing ends with the real chunk count, a failed indexing frees the document's chunks.
      await db.query("UPDATE documents SET status = 'ready', chunk_count = 4 WHERE id = $1", [indexed]);
      await db.query("UPDATE documents SET status = 'failed', chunk_count = 0, error = 'x' WHERE id = $1", [failing]);
      await db.query("UPDATE documents SET status = 'ready' WHERE id = $1", [upload]);
      await check('chunk counts');
      await db.query('UPDATE documents SET file_bytes = 1000, content_bytes = 50 WHERE id = $1', [upload]);
      await db.query('UPDATE documents SET sub_tenant_id = $2 WHERE id = $1', [moving, s1]);
      await check('sizes and owners');

      // A transaction that inserts, updates and deletes before it commits, and one that rolls back.
      await db.transaction(async (tx) => {
        const id = await document(tx, kbA2, { contentBytes: 1, chunks: 1 });
        await tx.query('UPDATE documents SET chunk_count = 9 WHERE id = $1', [id]);
        await document(tx, kbS2, { contentBytes: 2, chunks: 2 });
        assert.ok(await deleteDocument(tx, { tenantId: a, subTenantId: null }, id));
      });
      await assert.rejects(
        db.transaction(async (tx) => {
          await document(tx, kbA1, { contentBytes: 3, chunks: 3 });
          throw new Error('rolled back');
        }),
        /rolled back/,
      );
      await check('transactions');

      assert.ok(await deleteDocument(db, { tenantId: a, subTenantId: null }, indexed));
      // One statement deleting documents of several owners.
      await db.query('DELETE FROM documents WHERE tenant_id = $1 AND content_bytes IN (10, 30, 70)', [a]);
      await check('deletes');

      await db.query('DELETE FROM knowledge_bases WHERE id = $1', [kbA2.id]);
      await check('a knowledge base deletion');

      await db.transaction(async (tx) => assert.ok(await deleteSubTenant(tx, tenantScope(a), s2)));
      await check('a sub-tenant deletion');
      const { rows: left } = await db.query('SELECT 1 FROM storage_usage WHERE sub_tenant_id = $1', [s2]);
      assert.equal(left.length, 0, "the deleted sub-tenant's counter row is gone");

      await db.transaction((tx) => deleteTenant(tx, tenantScope(a)));
      const { rows: gone } = await db.query('SELECT 1 FROM storage_usage WHERE tenant_id = $1', [a]);
      assert.equal(gone.length, 0, "the deleted tenant's counter rows are gone");
      await check('a tenant deletion');
      assert.deepEqual(await storageUsage(db, { tenantId: b, subTenantId: null }), { documents: 1, storageBytes: 5, chunks: 1 });
    });

    if (database.name === 'postgres') {
      // Deleting a tenant or sub-tenant deletes its documents, then its counter rows. Were the rows
      // locked first, a transaction holding one of the documents and then counting a change to it
      // would deadlock with the deletion.
      const cases = [
        { owner: 'tenant', change: 'DELETE FROM documents WHERE id = $1' },
        { owner: 'sub-tenant', change: "UPDATE documents SET status = 'failed', chunk_count = 0 WHERE id = $1" },
      ] as const;
      for (const { owner, change } of cases) {
        it(`counts a document changed while its ${owner} is being deleted, without a deadlock`, async () => {
          const db = await database.get();
          const t = await tenant(db);
          const s = owner === 'sub-tenant' ? await subTenant(db, t) : null;
          const kb = await knowledgeBase(db, t, s);
          await document(db, kb, { contentBytes: 10, chunks: 1 });
          const held = await document(db, kb, { contentBytes: 20, chunks: 2 });
          const own = await knowledgeBase(db, t);
          await document(db, own, { contentBytes: 30, chunks: 3 });
          const marker = `storage-usage-test-${held}`;
          const deletion = owner === 'tenant' ? `DELETE FROM tenants WHERE id = $1 /* ${marker} */` : `DELETE FROM sub_tenants WHERE id = $1 /* ${marker} */`;

          let locked!: () => void;
          const isLocked = new Promise<void>((resolve) => (locked = resolve));
          let release!: () => void;
          const released = new Promise<void>((resolve) => (release = resolve));
          const holder = db.transaction(async (tx) => {
            await tx.query('SELECT 1 FROM documents WHERE id = $1 FOR UPDATE', [held]);
            locked();
            await released;
            await tx.query(change, [held]);
          });
          await isLocked;
          const deleter = db.transaction((tx) => tx.query(deletion, [s ?? t]));
          try {
            await waitUntilBlocked(db, marker);
          } finally {
            release();
          }
          const results = await Promise.allSettled([holder, deleter]);
          assert.deepEqual(
            results.map((r) => (r.status === 'rejected' ? String(r.reason) : r.status)),
            ['fulfilled', 'fulfilled'],
          );
          const { rows } = await db.query('SELECT 1 FROM storage_usage WHERE tenant_id = $1 AND sub_tenant_id IS NOT DISTINCT FROM $2::uuid', [t, s]);
          assert.equal(rows.length, 0);
          if (s) await assertExact(db, [t], [{ tenantId: t, subTenantId: null }], 'the sub-tenant deletion');
        });
      }
    }
  });
}

async function waitUntilBlocked(db: Database, marker: string): Promise<void> {
  await pollUntil(
    'the deletion to wait for the held document',
    async () => {
      const { rows } = await db.query(
        "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%' || $1 || '%' AND pid <> pg_backend_pid()",
        [marker],
      );
      return rows.length > 0;
    },
    { timeoutMs: 10_000, intervalMs: 10 },
  );
}

describe('storage usage migration', () => {
  it('starts the counters from the documents already stored', async function () {
    this.timeout(120_000);
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'lore-migrations-'));
    const db = await openPgliteDatabase('memory://');
    try {
      for (const f of await fs.readdir(MIGRATIONS_DIR)) {
        if (f < '0009') await fs.copyFile(path.join(MIGRATIONS_DIR, f), path.join(dir, f));
      }
      await migrate(db, dir);
      const t = await tenant(db);
      const s = await subTenant(db, t);
      const own = await knowledgeBase(db, t);
      const theirs = await knowledgeBase(db, t, s);
      await document(db, own, { contentBytes: 10, fileBytes: 5, chunks: 1 });
      await document(db, own, { contentBytes: 20, chunks: 2 });
      await document(db, theirs, { contentBytes: 40, chunks: 4 });
      await migrate(db);
      await assertExact(db, [t], [{ tenantId: t, subTenantId: null }, { tenantId: t, subTenantId: s }], 'the migration');
      await document(db, own, { contentBytes: 80, chunks: 8 });
      await assertExact(db, [t], [{ tenantId: t, subTenantId: null }], 'an insert after the migration');
    } finally {
      await db.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
