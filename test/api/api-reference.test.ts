import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ERROR_CODES } from '../../api/error-catalogue.js';
import { type TestApp, startTestApp } from '../support/app.js';
import { launchChromium } from '../support/chromium.js';
import { testDatabases } from '../support/databases.js';

type Media = { schema?: unknown; example?: unknown; examples?: Record<string, { value: { error: string } }> };
type Operation = { operationId: string; requestBody?: { content: Record<string, Media> }; responses: Record<string, { content?: Record<string, Media> }> };

const [database] = testDatabases();

describe('the API reference page (/docs/api) and the examples of the OpenAPI document', function () {
  this.timeout(120_000);
  let app: TestApp;
  before(async () => {
    app = await startTestApp(await database!.get(), { jobs: false });
  });
  after(() => app.close());

  it('serves the page and its assets from the instance itself', async () => {
    const page = await fetch(`${app.url}/docs/api`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    const html = await page.text();
    for (const src of html.matchAll(/(?:src|href)="([^"]+)"/g)) {
      assert.ok(src[1]!.startsWith('/docs/api/'), `the page loads ${src[1]} from elsewhere`);
      assert.equal((await fetch(`${app.url}${src[1]}`)).status, 200, src[1]);
    }
    assert.equal((await fetch(`${app.url}/docs/api/assets/index.html`)).status, 404);
    assert.equal((await fetch(`${app.url}/docs/api/assets/..%2Fpackage.json`)).status, 404);
  });

  it('gives every operation an example of its request and response bodies, and of each error code of each error status', async () => {
    const doc = (await (await fetch(`${app.url}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, Operation>> };
    let operations = 0;
    for (const item of Object.values(doc.paths)) {
      for (const op of Object.values(item)) {
        operations++;
        for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
          assert.ok(media.example !== undefined, `${op.operationId}: no ${type} request example`);
        }
        for (const [status, response] of Object.entries(op.responses)) {
          const json = response.content?.['application/json'];
          if (!json) continue;
          if (Number(status) >= 400) {
            const codes = Object.values(json.examples ?? {}).map((e) => e.value.error);
            assert.deepEqual(codes, [...(ERROR_CODES[Number(status)] ?? [])], `${op.operationId} ${status}`);
            assert.ok(codes.length > 0, `${op.operationId} ${status}: no error example`);
          } else {
            assert.ok(json.example !== undefined, `${op.operationId} ${status}: no response example`);
          }
        }
      }
    }
    assert.ok(operations > 50, `only ${operations} operations`);
  });

  it('renders every operation in Chromium with no request leaving the instance, and is screenshotted', async () => {
    const browser = await launchChromium();
    const dir = await mkdtemp(path.join(tmpdir(), 'lore-api-reference-'));
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 2000 } });
      const elsewhere: string[] = [];
      await page.route('**/*', (route) => {
        const url = route.request().url();
        if (url.startsWith(app.url) || url.startsWith('data:')) return route.continue();
        elsewhere.push(url);
        return route.abort();
      });
      await page.goto(`${app.url}/docs/api`);
      const doc = (await (await fetch(`${app.url}/v1/openapi.json`)).json()) as { paths: Record<string, object> };
      const expected = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
      await page.waitForFunction(`document.querySelectorAll('.opblock').length === ${expected}`, undefined, { timeout: 60_000 });
      assert.match(await page.locator('.info .title').innerText(), /Lore API/);
      // An operation opens with its example body.
      await page.locator('#operations-Search-query, .opblock-post:has-text("/v1/query")').first().click();
      await page.waitForSelector('.opblock.is-open .example, .opblock.is-open .microlight', { timeout: 30_000 });
      const file = path.join(process.env.API_REFERENCE_SCREENSHOT_DIR ?? dir, 'api-reference.png');
      await page.screenshot({ path: file, fullPage: false });
      const png = await readFile(file);
      assert.deepEqual([...png.subarray(1, 4)], [...Buffer.from('PNG')]);
      assert.ok(png.length > 20_000, `a screenshot of ${png.length} bytes shows little`);
      assert.deepEqual(elsewhere, []);
    } finally {
      await browser.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
