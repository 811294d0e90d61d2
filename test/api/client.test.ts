import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { clientTypes } from '../../client/generate.js';
import { LoreClient, LoreError, retryAfterSeconds } from '../../client/lore-client.js';
import { type TestApp, createTenant, startTestApp } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import { ROOT, run } from '../support/process.js';

/** The README's first TypeScript block, as it stands. */
async function readmeExample(): Promise<string> {
  const block = /```ts\n([\s\S]*?)```/.exec(await readFile(path.join(ROOT, 'client/README.md'), 'utf8'))?.[1];
  assert.ok(block, 'client/README.md has no ts block');
  return block;
}

/** A one-page PDF with a text layer, as a reader's own policy.pdf would be. */
async function policyPdf(text: string): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  pdf.addPage().drawText(text, { x: 50, y: 700, size: 12, font: await pdf.embedFont(StandardFonts.Helvetica) });
  return pdf.save();
}

describe('the typed client (client/)', () => {
  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-25T10:00:00Z');
    assert.equal(retryAfterSeconds('3', now), 3);
    assert.equal(retryAfterSeconds('Wed, 25 Nov 2026 10:00:07 GMT', now), 7);
    assert.equal(retryAfterSeconds('Wed, 25 Nov 2026 09:00:00 GMT', now), 0);
    assert.equal(retryAfterSeconds(null, now), undefined);
    assert.equal(retryAfterSeconds('soon', now), undefined);
  });

  for (const database of testDatabases()) {
    describe(`against a started Lore [${database.name}]`, () => {
      let app: TestApp;
      before(async () => {
        app = await startTestApp(await database.get());
      });
      after(() => app.close());

      it("has the types of the live OpenAPI document (run npm run client:generate when they differ)", async function () {
        this.timeout(60_000);
        const live: unknown = await (await fetch(`${app.url}/v1/openapi.json`)).json();
        const committed = await readFile(new URL('../../client/openapi.d.ts', import.meta.url), 'utf8');
        assert.equal(committed, await clientTypes(live));
      });

      it('creates a knowledge base, adds a text and a file, waits for their jobs, and queries, all typed', async () => {
        const tenant = await createTenant(app);
        const lore = new LoreClient({ baseUrl: app.url, apiKey: tenant.key });
        const kb = LoreClient.data(await lore.api.POST('/v1/knowledge-bases', { body: { name: 'Handbook' } }));
        const text = LoreClient.data(
          await lore.api.POST('/v1/documents', { body: { knowledge_base_id: kb.id, title: 'Holidays', content: 'Staff get 25 days of paid leave a year.' } }),
        );
        const file = await lore.upload(new Blob(['Remote work is allowed two days a week.\n'], { type: 'text/plain' }), 'policy.txt', { knowledge_base_id: kb.id, tags: { team: 'ops' } });
        for (const jobId of [text.job_id, file.job_id]) assert.equal((await lore.waitForJob(jobId, { intervalMs: 50 })).status, 'completed');
        const answer = LoreClient.data(await lore.api.POST('/v1/query', { body: { query: 'remote work days', top_k: 3, filters: { 'tags.team': 'ops' } } }));
        assert.equal(answer.results.length, 1);
        assert.equal(answer.results[0]!.document_id, file.document_id);
      });

      it("runs the README's example as written, a PDF without a type included", async function () {
        this.timeout(120_000);
        const tenant = await createTenant(app);
        // The reader's setup: the example saved in the repository's root (an ES module package, with
        // client/ beside it) and a PDF of theirs as policy.pdf.
        const dir = await mkdtemp(path.join(tmpdir(), 'lore-client-readme-'));
        try {
          await writeFile(path.join(dir, 'package.json'), '{"type": "module"}\n');
          await symlink(path.join(ROOT, 'client'), path.join(dir, 'client'));
          await writeFile(path.join(dir, 'example.ts'), await readmeExample());
          await writeFile(path.join(dir, 'policy.pdf'), await policyPdf('Unused leave days carry over to the next year, up to five days.'));
          const { stdout } = await run(process.execPath, ['--import', import.meta.resolve('tsx'), 'example.ts'], {
            cwd: dir,
            env: { PATH: process.env.PATH ?? '', LORE_URL: app.url, LORE_KEY: tenant.key },
            timeout: 100_000,
          });
          assert.deepEqual(stdout.trim().split('\n').sort(), [
            'Holidays: Staff get 25 days of paid leave a year.',
            'policy: Unused leave days carry over to the next year, up to five days.',
          ]);
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      });

      it('turns error answers into LoreError with the status and the code', async () => {
        const tenant = await createTenant(app);
        const lore = new LoreClient({ baseUrl: app.url, apiKey: tenant.key });
        await assert.rejects(lore.waitForJob('00000000-0000-4000-8000-000000000000'), (e: unknown) => e instanceof LoreError && e.status === 404 && e.body.error === 'not_found');
        const wrongKey = new LoreClient({ baseUrl: app.url, apiKey: 'lore_not-a-key' });
        const res = await wrongKey.api.GET('/v1/knowledge-bases');
        assert.deepEqual([res.response.status, res.error?.error], [401, 'unauthorized']);
      });

      it("waits out Lore's own 429s by their Retry-After, so a burst over the per-key limit all succeeds", async function () {
        this.timeout(60_000);
        const tenant = await createTenant(app);
        const waits: number[] = [];
        const lore = new LoreClient({
          baseUrl: app.url,
          apiKey: tenant.key,
          maxRetries: 5,
          sleep: async (ms) => {
            waits.push(ms);
            await new Promise((resolve) => setTimeout(resolve, ms));
          },
        });
        const kb = LoreClient.data(await lore.api.POST('/v1/knowledge-bases', { body: { name: 'burst' } }));
        // The documents burst limit is 10 a second per key: 25 at once meet it.
        const results = await Promise.all(
          Array.from({ length: 25 }, (_, i) => lore.api.POST('/v1/documents', { body: { knowledge_base_id: kb.id, title: `d${i}`, content: `Document number ${i}.` } })),
        );
        assert.deepEqual(
          results.map((r) => r.response.status),
          Array(25).fill(202),
        );
        assert.ok(waits.length >= 15, `only ${waits.length} waits`);
        assert.ok(waits.every((ms) => ms >= 1000 && ms % 1000 === 0), String(waits));
      });
    });
  }
});
