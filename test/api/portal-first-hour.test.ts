import assert from 'node:assert/strict';
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core';
import { type TestApp, startTestApp } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import { startSmtpServer } from '../support/smtp.js';

/** Debian's Chromium (.ci/run installs it); nothing downloads a browser. */
const CHROMIUM = '/usr/bin/chromium';

const [database] = testDatabases();

/** What a newcomer met in the portal in the first hour (issue 64), each in Chromium. */
describe("the web portal in Chromium: a newcomer's first hour", function () {
  this.timeout(120_000);
  let app: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let browser: Browser;
  let base: string;
  const contexts: BrowserContext[] = [];

  before(async () => {
    smtp = await startSmtpServer();
    app = await startTestApp(await database!.get(), { env: { SMTP_URL: smtp.url } });
    // localhost, not 127.0.0.1: browsers keep Secure cookies over plain http on localhost.
    base = app.url.replace('127.0.0.1', 'localhost');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await smtp?.close();
  });

  /** A browser page; what it logs as an error (a resource that failed to load among them) or throws is collected. */
  async function newPage(from = browser): Promise<{ page: Page; context: BrowserContext; errors: string[] }> {
    const context = await from.newContext();
    contexts.push(context);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    return { page, context, errors };
  }

  it('names an icon on every page and answers /favicon.ico with one, so the browser logs no 404', async () => {
    // A browser of its own: Chromium asks a host for a missing icon once, and other tests may have made it ask already.
    const own = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      const { page, errors } = await newPage(own);
      await page.goto(`${base}/portal/sign-in`);
      // Chromium asks for the page's icon once the page has loaded, and logs a failure as an error.
      await page.waitForEvent('console', { predicate: (m) => m.type() === 'error', timeout: 3_000 }).catch(() => undefined);
      assert.deepEqual(errors, []);
      const icon = await page.locator('link[rel="icon"]').getAttribute('href');
      assert.equal(icon, '/portal/assets/favicon.svg');

      const svg = await page.goto(`${base}${icon}`);
      assert.equal(svg?.status(), 200);
      assert.match(svg?.headers()['content-type'] ?? '', /^image\/svg\+xml/);
      assert.equal(await page.locator('svg rect').count(), 3);
      const ico = await page.goto(`${base}/favicon.ico`);
      assert.equal(ico?.status(), 200);
      assert.equal(ico?.headers()['content-type'], 'image/x-icon');
      // Chromium decodes it: a 32×32 icon.
      const size = await page.locator('img').evaluate((img) => {
        const { naturalWidth, naturalHeight } = img as unknown as { naturalWidth: number; naturalHeight: number };
        return [naturalWidth, naturalHeight];
      });
      assert.deepEqual(size, [32, 32]);
    } finally {
      await own.close();
    }
  });

  it('takes a browser pointed at the instance to the portal, and at /docs to the API reference', async () => {
    const { page, errors } = await newPage();
    await page.goto(`${base}/`);
    assert.equal(page.url(), `${base}/portal/sign-in`);
    assert.equal(await page.locator('h1').innerText(), 'Sign in');
    await page.goto(`${base}/docs`);
    assert.equal(page.url(), `${base}/docs/api`);
    assert.equal(await page.title(), 'Lore API reference');
    assert.deepEqual(errors, []);
  });
});
