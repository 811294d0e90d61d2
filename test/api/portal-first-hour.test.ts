import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { UPLOAD_FILE_TYPES } from '../../core/documents/file-types.js';
import { tenantScope } from '../../core/shared/scope.js';
import { TEST_ADMIN_TOKEN, type TestApp, client, startTestApp } from '../support/app.js';
import { type PortalInChromium, launchChromium, startPortalInChromium } from '../support/chromium.js';
import { testDatabases } from '../support/databases.js';
import { pollUntil } from '../support/poll.js';
import { PortalVisitor } from '../support/portal.js';
import { portalLink } from '../support/smtp.js';

const PASSWORD = 'a long and private passphrase';
/** How long a page has to show what it should: ample on a busy machine, short enough that a page that never will fails soon. */
const SHOWN = { timeout: 15_000 };

const [database] = testDatabases();

/** What a newcomer met in the portal in the first hour (issue 64), each in Chromium. */
describe("the web portal in Chromium: a newcomer's first hour", function () {
  this.timeout(120_000);
  let app: TestApp;
  let smtp: PortalInChromium['smtp'];
  let browser: Browser;
  let base: string;
  let stop: (() => Promise<void>) | undefined;
  const contexts: BrowserContext[] = [];

  before(async () => {
    ({ app, smtp, browser, base, close: stop } = await startPortalInChromium(await database!.get()));
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });
  after(() => stop?.());

  /** A person invited by e-mail, with a password chosen through the link. */
  async function withPassword(email: string): Promise<PortalVisitor> {
    const mail = await pollUntil(`the invitation to ${email}`, () => smtp.mails.find((m) => m.to.includes(email)));
    const visitor = new PortalVisitor(app.url);
    assert.equal((await visitor.choosePassword(portalLink(mail), PASSWORD)).status, 303);
    return visitor;
  }

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

  /** A new tenant's first admin, signed in (over HTTP: the sign-in page has its own suite), in a browser of their own. */
  async function signedIn() {
    const email = `owner-${randomUUID()}@example.test`;
    const created = await client(app.url, TEST_ADMIN_TOKEN)('POST', '/internal/v1/tenants', { name: 'Northwind', plan: 'standard', email });
    assert.equal(created.status, 201);
    const visitor = await withPassword(email);
    assert.equal((await visitor.signIn(email, PASSWORD)).status, 303);
    const opened = await newPage();
    await opened.context.addCookies([...visitor.cookies].map(([name, value]) => ({ name, value, url: base })));
    return { ...opened, tenant: { id: created.body.id as string, key: created.body.api_key as string, email } };
  }

  /** Counts the page's loads from now on: a list updated in place loads nothing. */
  function loadsOf(page: Page): () => number {
    let loads = 0;
    page.on('load', () => loads++);
    return () => loads;
  }

  it('lists a new key under "Active keys" at once, and keeps its one-time secret shown when another key is revoked', async () => {
    const { page, tenant, errors } = await signedIn();
    const [first] = (await client(app.url, tenant.key)('GET', '/v1/auth/keys')).body as Array<{ name: string }>;
    await page.goto(`${base}/portal/keys`);
    const loads = loadsOf(page);
    page.on('dialog', (dialog) => void dialog.accept());

    await page.getByLabel('Name').fill('Deploy bot');
    await page.getByLabel('Role').selectOption('write');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = await page.locator('output code').innerText(SHOWN);
    assert.match(secret, /^lore_[A-Za-z0-9_-]{43}$/);
    await page.getByRole('cell', { name: 'Deploy bot', exact: true }).waitFor(SHOWN);
    assert.match(await page.locator('table').innerText(), /Deploy bot\s+write\s+…/);

    // The list it refreshed works: the tenant's first key is revoked from it, and the secret stays.
    await page.getByRole('button', { name: `Revoke ${first!.name}` }).click();
    await page.getByRole('button', { name: `Revoke ${first!.name}` }).waitFor({ state: 'detached', ...SHOWN });
    assert.equal((await client(app.url, tenant.key)('GET', '/v1/knowledge-bases')).status, 401);
    assert.equal((await client(app.url, secret)('GET', '/v1/knowledge-bases')).status, 200);
    assert.equal(await page.locator('output code').innerText(), secret);
    assert.equal(loads(), 0, 'the page was reloaded');
    assert.deepEqual(errors, []);
  });

  it("updates the documents in place when an upload's job finishes: its message and a search being typed stay", async () => {
    const { page, tenant, errors } = await signedIn();
    const kb = await client(app.url, tenant.key)('POST', '/v1/knowledge-bases', { name: 'Handbook' });
    await page.goto(`${base}/portal/knowledge-bases/${kb.body.id}`);
    const loads = loadsOf(page);
    page.on('dialog', (dialog) => void dialog.accept());

    await page.getByLabel('Query').fill('which entrance does the badge open');
    await page.getByLabel('File', { exact: true }).setInputFiles({
      name: 'onboarding.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('New colleagues receive a laptop and a badge on their first day. The badge opens the north entrance of the warehouse.'),
    });
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByText('Done: the document is searchable.').waitFor({ timeout: 60_000 });
    await page.locator('tr', { hasText: 'onboarding' }).filter({ hasText: 'ready' }).waitFor(SHOWN);
    assert.match(await page.locator('table').innerText(), /onboarding\s+ready\s+en\s+1/);
    assert.ok(await page.getByText('Done: the document is searchable.').isVisible(), 'the message stays');
    assert.equal(await page.getByLabel('Query').inputValue(), 'which entrance does the badge open');

    // What was typed is searched in the document that has just arrived.
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('ol.results li').first().waitFor(SHOWN);
    assert.match(await page.locator('ol.results').innerText(), /north entrance/);

    // Deleting it updates the list in place too.
    await page.getByRole('button', { name: 'Delete onboarding' }).click();
    await page.getByText('No documents yet.').waitFor(SHOWN);
    assert.match(await page.locator('ol.results').innerText(), /north entrance/, 'the results stay');
    assert.equal(loads(), 0, 'the page was reloaded');
    assert.deepEqual(errors, []);
  });

  it('offers in the file picker the types ingestion takes, Markdown and HTML among them', async () => {
    const { page, tenant } = await signedIn();
    const kb = await client(app.url, tenant.key)('POST', '/v1/knowledge-bases', { name: 'Handbook' });
    await page.goto(`${base}/portal/knowledge-bases/${kb.body.id}`);
    const accept = ((await page.getByLabel('File', { exact: true }).getAttribute('accept')) ?? '').split(',');
    for (const type of [...UPLOAD_FILE_TYPES.map((t) => t.type), '.txt', '.pdf', '.md', '.markdown', 'text/markdown', '.html', '.htm', 'text/html']) {
      assert.ok(accept.includes(type), `the file input's accept (${accept.join(',')}) lacks ${type}`);
    }
  });

  it('asks before removing a person, as before every other destructive action', async () => {
    const { page, tenant } = await signedIn();
    const colleague = `colleague-${randomUUID()}@example.test`;
    const inviter = (await app.db.query<{ id: string }>('SELECT id FROM portal_users WHERE email = $1', [tenant.email])).rows[0]!.id;
    await app.services.portal.invite(tenantScope(tenant.id), inviter, { email: colleague, role: 'read' }, 'Northwind');
    await withPassword(colleague);
    const listed = async () => (await app.db.query('SELECT 1 FROM portal_users WHERE email = $1', [colleague])).rows.length === 1;
    await page.goto(`${base}/portal/account`);
    const asked: string[] = [];
    let answer = false;
    page.on('dialog', (dialog) => {
      asked.push(dialog.message());
      void (answer ? dialog.accept() : dialog.dismiss());
    });
    const remove = page.getByRole('button', { name: `Remove ${colleague}` });

    await remove.click();
    assert.deepEqual(asked, [`Remove ${colleague} from Northwind? They can no longer sign in to its portal.`]);
    assert.ok(page.url().endsWith('/portal/account') && (await remove.isVisible()) && (await listed()), 'nothing was removed');

    answer = true;
    await remove.click();
    await remove.waitFor({ state: 'detached', ...SHOWN });
    assert.equal(asked.length, 2);
    assert.equal(await listed(), false);
  });

  it('asks a tenant that never accepted the DPA to accept it, and only one that accepted an older version to accept it again', async () => {
    const { page, tenant } = await signedIn();
    await page.goto(`${base}/portal/overview`);
    const notice = page.locator('p.notice');
    assert.match(await notice.innerText(), /^Action required: the data processing agreement \(version 1\) has not been accepted yet\. Review and accept it\.$/);

    assert.equal((await client(app.url, tenant.key)('POST', '/v1/dpa/accept', { version: 1 })).status, 200);
    await page.reload();
    assert.equal(await notice.count(), 0);
    // The instance moves to version 2 (a second server over the same database; the session cookie is the host's, whatever the port).
    const v2 = await startTestApp(app.db, { env: { DPA_CURRENT_VERSION: '2' }, jobs: false });
    try {
      await page.goto(`${v2.url.replace('127.0.0.1', 'localhost')}/portal/overview`);
      assert.match(await notice.innerText(), /^Action required: DPA re-acceptance required: version 2 replaces version 1, which Northwind accepted\. Review and accept it\.$/);
    } finally {
      await v2.close();
    }
  });

  it('names an icon on every page and answers /favicon.ico with one, so the browser logs no 404', async () => {
    // A browser of its own: Chromium asks a host for a missing icon once, and other tests may have made it ask already.
    const own = await launchChromium();
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
