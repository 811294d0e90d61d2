import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { type IncomingMessage, get } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { type TestApp, client, createKey, createTenant, ingest, startTestApp } from '../support/app.js';
import { TestClock } from '../support/clock.js';
import { testDatabases } from '../support/databases.js';
import { unzip } from '../support/zip.js';

for (const database of testDatabases()) {
  describe(`account export and deletion [${database.name}]`, () => {
    let app: TestApp;
    const clock = new TestClock();
    before(async () => {
      app = await startTestApp(await database.get(), { adapters: { clock } });
    });
    after(() => app.close());

    async function populated() {
      const t = await createTenant(app, 'standard');
      const api = client(app.url, t.key);
      const kb = (await api('POST', '/v1/knowledge-bases', { name: 'Handbook' })).body.id;
      const doc = await ingest(app, t.key, { knowledge_base_id: kb, title: 'Policy', content: 'Holidays: 25 days a year.', tags: { a: 'b' } });
      const form = new FormData();
      form.append('metadata', JSON.stringify({ knowledge_base_id: kb }));
      form.append('file', new Blob(['original file bytes'], { type: 'text/plain' }), 'notes.txt');
      const upload = (await api('POST', '/v1/documents/upload', form)).body;
      await api('POST', '/v1/query', { query: 'holidays' });
      await api('POST', '/v1/dpa/accept', { version: 1 }, { 'x-accepted-by': 'Jane' });
      return { ...t, api, kb, documentId: doc.documentId, uploadId: upload.document_id as string };
    }

    it('exports a summary and a signed link to a complete archive that works without a key', async () => {
      const t = await populated();
      const res = await t.api('POST', '/v1/account/export');
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body).sort(), ['account', 'documents', 'download_url', 'expires_in_seconds', 'knowledge_bases', 'usage_history']);
      assert.equal(res.body.expires_in_seconds, 86400);
      assert.equal(res.body.account.id, t.id);
      assert.deepEqual(res.body.knowledge_bases.map((k: { name: string }) => k.name), ['Handbook']);
      assert.deepEqual(res.body.documents.map((d: { id: string }) => d.id).sort(), [t.documentId, t.uploadId].sort());
      assert.ok(res.body.usage_history.some((h: { event_type: string; quantity: number }) => h.event_type === 'query' && h.quantity === 1));

      const url = new URL(res.body.download_url);
      assert.equal(url.origin, app.url);
      const download = await fetch(url);
      assert.equal(download.status, 200);
      assert.equal(download.headers.get('content-type'), 'application/zip');
      const files = await unzip(Buffer.from(await download.arrayBuffer()));
      for (const name of ['account.json', 'api_keys.json', 'portal_users.json', 'knowledge_bases.json', 'jobs.json', 'usage_history.json', 'usage_events.json']) {
        assert.ok(files.has(name), name);
      }
      const doc = JSON.parse(files.get(`documents/${t.documentId}.json`)!.toString());
      assert.equal(doc.content, 'Holidays: 25 days a year.');
      assert.equal(files.get(`files/${t.uploadId}/notes.txt`)!.toString(), 'original file bytes');
      const account = JSON.parse(files.get('account.json')!.toString());
      assert.equal(account.dpa.acceptances[0].accepted_by, 'Jane');
      assert.ok(!files.get('api_keys.json')!.toString().includes(t.key));
    });

    it('refuses a tampered link (403) and an expired one (410)', async () => {
      const t = await populated();
      const { download_url } = (await t.api('POST', '/v1/account/export')).body;
      const tampered = download_url.replace(/signature=(.)/, (_: string, c: string) => `signature=${c === 'A' ? 'B' : 'A'}`);
      const bad = await client(app.url)('GET', tampered.slice(app.url.length));
      assert.equal(bad.status, 403);
      assert.equal(bad.body.error, 'invalid_signature');
      const later = new URL(download_url);
      later.searchParams.set('expires', String(Number(later.searchParams.get('expires')) + 3600));
      assert.equal((await fetch(later)).status, 403, 'the expiry is part of what is signed');

      clock.advance(86_400_000 - 5_000);
      assert.equal((await fetch(download_url)).status, 200, 'valid until the last second');
      clock.advance(10_000);
      const expired = await client(app.url)('GET', download_url.slice(app.url.length));
      assert.equal(expired.status, 410);
      assert.equal(expired.body.error, 'export_link_expired');
    });

    it('requires an admin key to export or delete', async () => {
      const t = await createTenant(app);
      const write = client(app.url, await createKey(app, t.key, 'write'));
      assert.equal((await write('POST', '/v1/account/export')).status, 403);
      assert.equal((await write('DELETE', '/v1/account', undefined, { 'x-confirm-delete': 'DELETE_MY_ACCOUNT' })).status, 403);
    });

    it('deletes nothing without the confirmation header', async () => {
      const t = await createTenant(app);
      const attempts: Array<Record<string, string>> = [{}, { 'x-confirm-delete': 'yes' }, { 'x-confirm-delete': 'delete_my_account' }];
      for (const headers of attempts) {
        const res = await client(app.url, t.key)('DELETE', '/v1/account', undefined, headers);
        assert.equal(res.status, 400);
        assert.equal(res.body.error, 'confirmation_required');
      }
      assert.equal((await client(app.url, t.key)('GET', '/v1/knowledge-bases')).status, 200);
    });

    it('deletes the account and every piece of its data; its keys stop working', async () => {
      const t = await populated();
      const other = await populated();
      const extraKey = await createKey(app, t.key, 'read');
      const { download_url } = (await t.api('POST', '/v1/account/export')).body;
      const keyIds: string[] = (await t.api('GET', '/v1/auth/keys')).body.map((k: { id: string }) => k.id);
      // A job that has not run yet must go too.
      await app.services.documents.ingest({ tenantId: t.id, subTenantId: null }, { knowledge_base_id: t.kb, title: 'late', content: 'queued' });

      const res = await t.api('DELETE', '/v1/account', undefined, { 'x-confirm-delete': 'DELETE_MY_ACCOUNT' });
      assert.equal(res.status, 202);
      assert.deepEqual(res.body, { status: 'deleted' });
      for (const key of [t.key, extraKey]) assert.equal((await client(app.url, key)('GET', '/v1/knowledge-bases')).status, 401);
      assert.equal((await fetch(download_url)).status, 404);

      // Every table of the database, every row, as text: nothing mentions the tenant or its keys.
      const { rows: tables } = await app.db.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
      );
      assert.ok(tables.length >= 15);
      for (const { table_name } of tables) {
        const { rows } = await app.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM "${table_name}" r WHERE r::text LIKE ANY($1::text[])`,
          [[t.id, t.documentId, t.uploadId, t.kb, ...keyIds].map((id) => `%${id}%`)],
        );
        assert.equal(rows[0]!.n, 0, `${table_name} still holds data of the deleted account`);
      }
      // The other tenant is untouched.
      assert.equal((await other.api('GET', `/v1/documents/${other.documentId}`)).status, 200);
      assert.equal((await other.api('POST', '/v1/query', { query: 'holidays' })).body.results[0].document_id, other.documentId);
    });
  });
  // Its own block, on an app whose job engine is stopped, with no other engine on the database:
  // the large documents stay queued instead of being ingested.
  describe(`account export streaming [${database.name}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(await database.get(), { jobs: false });
    });
    after(() => app.close());

    /** Opens a download and hands back the response once its first bytes have arrived. */
    function open(url: string): Promise<{ res: IncomingMessage; first: Buffer }> {
      return new Promise((resolve, reject) => {
        get(url, (res) => {
          res.once('data', (first: Buffer) => {
            res.pause();
            resolve({ res, first });
          });
          res.once('error', reject);
        }).once('error', reject);
      });
    }

    const rest = (res: IncomingMessage): Promise<Buffer> =>
      new Promise((resolve, reject) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.once('end', () => resolve(Buffer.concat(parts)));
        res.once('error', reject);
        res.resume();
      });

    it('streams the archive document by document, as the client reads, and survives a client that goes away', async () => {
      const t = await createTenant(app, 'standard');
      const api = client(app.url, t.key);
      const kb = (await api('POST', '/v1/knowledge-bases', { name: 'large' })).body.id as string;
      // Random text, so the archive stays large after compression: about 18 MB before the last document,
      // more than socket and stream buffers hold.
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) {
        const content = randomBytes(3 * 1024 * 1024).toString('base64');
        const res = await api('POST', '/v1/documents', { knowledge_base_id: kb, title: `large ${i}`, content });
        assert.equal(res.status, 202);
        ids.push(res.body.document_id as string);
      }
      const { download_url: url } = (await api('POST', '/v1/account/export')).body as { download_url: string };

      // A client that reads a little and goes away: the download ends, Lore keeps serving.
      const abandoned = await open(url);
      abandoned.res.destroy();
      assert.equal((await fetch(`${app.url}/health/live`)).status, 200);

      // A client that reads a little and pauses: the server waits for it before it reads the last
      // document, so a document deleted meanwhile is exported as deleted, not from memory.
      const paused = await open(url);
      await sleep(300); // time enough for an archive built eagerly to have read every document
      const last = ids.at(-1)!;
      assert.equal((await api('DELETE', `/v1/documents/${last}`)).status, 204);
      const archive = await unzip(Buffer.concat([paused.first, await rest(paused.res)]));
      assert.deepEqual(JSON.parse(archive.get(`documents/${last}.json`)!.toString()), { id: last, deleted_during_export: true });
      const first = JSON.parse(archive.get(`documents/${ids[0]}.json`)!.toString()) as { content: string };
      assert.equal(first.content.length, 4 * 1024 * 1024);
      assert.equal((await fetch(`${app.url}/health/live`)).status, 200);
      // The account goes with its queued documents: no later app on this database ingests 28 MB of random text.
      assert.equal((await api('DELETE', '/v1/account', undefined, { 'x-confirm-delete': 'DELETE_MY_ACCOUNT' })).status, 202);
    });
  });
}
