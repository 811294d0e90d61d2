import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { TEST_ADMIN_TOKEN, type TestApp, client } from '../support/app.js';
import { type PortalInChromium, startPortalInChromium } from '../support/chromium.js';
import { testDatabases } from '../support/databases.js';
import { type ReceivedMail, portalLink } from '../support/smtp.js';

const PASSWORD = 'a long and private passphrase';

const [database] = testDatabases();

describe('the web portal in Chromium', function () {
  this.timeout(180_000);
  let app: TestApp;
  let smtp: PortalInChromium['smtp'];
  let browser: Browser;
  let shots: string;
  let base: string;
  let keepShots = false;
  let stop: (() => Promise<void>) | undefined;

  before(async () => {
    ({ app, smtp, browser, base, close: stop } = await startPortalInChromium(await database!.get()));
    keepShots = process.env.PORTAL_SCREENSHOT_DIR !== undefined;
    shots = process.env.PORTAL_SCREENSHOT_DIR ?? (await mkdtemp(path.join(tmpdir(), 'lore-portal-')));
    await mkdir(shots, { recursive: true });
  });
  after(async () => {
    await stop?.();
    if (!keepShots) await rm(shots, { recursive: true, force: true });
  });

  const mailsTo = (email: string): ReceivedMail[] => smtp.mails.filter((m) => m.to.includes(email));
  async function nextMail(email: string, count: number): Promise<ReceivedMail> {
    for (let i = 0; i < 200 && mailsTo(email).length < count; i++) await new Promise((r) => setTimeout(r, 25));
    const mails = mailsTo(email);
    assert.equal(mails.length, count, `mails to ${email}`);
    return mails.at(-1)!;
  }

  async function screenshot(page: Page, name: string): Promise<void> {
    const file = path.join(shots, `${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    const png = await readFile(file);
    assert.deepEqual([...png.subarray(1, 4)], [...Buffer.from('PNG')]);
    assert.ok(png.length > 10_000, `${name}: a screenshot of ${png.length} bytes shows little`);
  }

  async function choosePassword(page: Page, link: string, password: string): Promise<void> {
    await page.goto(`${base}${link}`);
    await page.getByLabel('New password').fill(password);
    await page.getByLabel('Repeat it').fill(password);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.waitForURL('**/portal/sign-in?password=set');
  }

  async function signIn(page: Page, email: string, password: string): Promise<void> {
    await page.goto(`${base}/portal/sign-in`);
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  it('takes a new tenant from its invitation to keys, documents, search, plan, DPA and a password reset', async () => {
    const email = `owner-${randomUUID()}@example.test`;
    const created = await client(app.url, TEST_ADMIN_TOKEN)('POST', '/internal/v1/tenants', { name: 'Northwind', plan: 'standard', email });
    assert.equal(created.status, 201);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    // Nothing the pages load or run (beyond the expected 400/401/403 answers) breaks the Content-Security-Policy or comes from elsewhere.
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of 40[013]/.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(base)) return route.continue();
      problems.push(`request to ${url}`);
      return route.abort();
    });

    // Invitation: choose a password, then sign in (a wrong password first).
    await choosePassword(page, portalLink(await nextMail(email, 1)), PASSWORD);
    await signIn(page, email, 'not my password');
    assert.match(await page.getByRole('alert').innerText(), /e-mail address or the password is not right/);
    await screenshot(page, 'sign-in-error');
    await signIn(page, email, PASSWORD);
    await page.waitForURL('**/portal/overview');
    assert.match(await page.locator('h1').innerText(), /Overview/);
    assert.equal(await page.getByRole('progressbar').count(), 5);
    assert.match(await page.getByRole('status').first().innerText(), /Action required/);
    await screenshot(page, 'overview');
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'lore_session')!;
    assert.ok(session.httpOnly && session.secure && session.sameSite === 'Lax');

    // API keys: created, shown once, used against the REST API, revoked.
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name').fill('CI pipeline');
    await page.getByLabel('Role').selectOption('write');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = await page.locator('output code').innerText();
    assert.match(shown, /^lore_[A-Za-z0-9_-]{43}$/);
    await screenshot(page, 'key-created');
    assert.equal((await client(app.url, shown)('GET', '/v1/knowledge-bases')).status, 200);
    await page.reload();
    assert.ok(!(await page.content()).includes(shown), 'the key is shown only once');
    assert.match(await page.locator('table').innerText(), /CI pipeline\s+write\s+…/);
    await page.getByRole('button', { name: 'Revoke CI pipeline' }).click();
    await page.getByRole('button', { name: 'Revoke CI pipeline' }).waitFor({ state: 'detached' });
    assert.equal((await client(app.url, shown)('GET', '/v1/knowledge-bases')).status, 401);

    // Knowledge bases and documents: create, upload, watch the job, search.
    await page.getByRole('link', { name: 'Knowledge bases' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Handbook');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('link', { name: 'Handbook' }).click();
    await page.getByLabel('File', { exact: true }).setInputFiles({
      name: 'onboarding.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('New colleagues receive a laptop and a badge on their first day. The badge opens the north entrance of the warehouse.'),
    });
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByText('the document is searchable').waitFor({ timeout: 60_000 });
    await page.waitForSelector('td:has-text("onboarding")');
    assert.match(await page.locator('table').innerText(), /onboarding\s+ready\s+en\s+1/);
    await page.getByLabel('Query').fill('which entrance does the badge open');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForSelector('ol.results li');
    assert.match(await page.locator('ol.results').innerText(), /north entrance/);
    await screenshot(page, 'knowledge-base');

    // Billing: details, then an upgrade to Enterprise.
    await page.getByRole('link', { name: 'Billing' }).click();
    await page.getByLabel('Company name').fill('Northwind Traders');
    await page.getByLabel('Invoice e-mail').fill('billing@northwind.test');
    await page.getByLabel('Address').fill('1 Harbour Street, Rotterdam');
    await page.getByLabel('Country (ISO code, e.g. NL)').fill('NL');
    await page.getByLabel('Payment method').selectOption('sepa_debit');
    await page.getByRole('button', { name: 'Save details' }).click();
    await page.waitForLoadState('load');
    await page.getByRole('button', { name: 'Upgrade to enterprise' }).click();
    await page.getByText('enterprise (yours)').waitFor();
    await screenshot(page, 'billing');
    const status = await client(app.url, created.body.api_key as string)('GET', '/v1/billing');
    assert.equal(status.body.plan, 'enterprise');

    // Enterprise: a sub-tenant.
    await page.goto(`${base}/portal/enterprise`);
    await page.getByLabel('Name', { exact: true }).fill('Rotterdam branch');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForSelector('td:has-text("Rotterdam branch")');
    await page.getByText('Limits', { exact: true }).last().click();
    await page.getByLabel('Max documents').last().fill('25');
    await page.getByRole('button', { name: 'Save limits' }).click();
    await page.waitForSelector('td:has-text("0 / 25")');
    const subTenants = await client(app.url, created.body.api_key as string)('GET', '/v1/sub-tenants');
    assert.deepEqual(subTenants.body.map((t: { name: string; max_documents: number }) => [t.name, t.max_documents]), [['Rotterdam branch', 25]]);
    await page.getByText('Limits', { exact: true }).last().click();
    await screenshot(page, 'enterprise');

    // DPA: accepted, recorded with the person's address.
    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByRole('button', { name: /Accept version 1/ }).click();
    await page.getByText(/Accepted: 1/).waitFor();
    const dpa = await app.db.query<{ accepted_by: string }>('SELECT accepted_by FROM dpa_acceptances WHERE tenant_id = $1', [created.body.id]);
    assert.deepEqual(dpa.rows, [{ accepted_by: email }]);
    await screenshot(page, 'account');

    // Another browser signed in as the same person, before the reset.
    const elsewhere = await browser.newContext();
    const other = await elsewhere.newPage();
    await signIn(other, email, PASSWORD);
    await other.waitForURL('**/portal/overview');

    // Password reset end to end: sign out, ask for a link, use it, and not twice.
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL('**/portal/sign-in');
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByLabel('E-mail address of your account').fill(email);
    await page.getByRole('button', { name: 'E-mail me a link' }).click();
    assert.match(await page.getByRole('status').innerText(), /If this address belongs to a Lore account/);
    const resetMail = await nextMail(email, 2);
    assert.match(resetMail.text, /Reset your Lore password/);
    const link = portalLink(resetMail);
    // Two more requests send two more mails; a fourth within the hour sends none.
    for (let i = 0; i < 3; i++) {
      await page.goto(`${base}/portal/forgot`);
      await page.getByLabel('E-mail address of your account').fill(email);
      await page.getByRole('button', { name: 'E-mail me a link' }).click();
      await page.getByRole('status').waitFor();
    }
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(mailsTo(email).length, 4, 'the invitation and three reset mails');
    const renewed = `${PASSWORD}, renewed`;
    await choosePassword(page, link, renewed);
    await page.goto(`${base}${link}`);
    assert.match(await page.locator('h1').innerText(), /Link expired/);
    await other.goto(`${base}/portal/overview`);
    assert.ok(other.url().endsWith('/portal/sign-in'), 'the other browser was signed out');
    await signIn(page, email, renewed);
    await page.waitForURL('**/portal/overview');
    assert.equal((await client(app.url, created.body.api_key as string)('GET', '/v1/knowledge-bases')).status, 200, 'API keys stay valid');

    // A phone's width.
    await page.setViewportSize({ width: 375, height: 800 });
    await page.reload();
    await screenshot(page, 'overview-phone');
    // A function, not a string: the portal's Content-Security-Policy forbids evaluating strings.
    type Dom = { document: { documentElement: { scrollWidth: number } }; innerWidth: number };
    const overflow = await page.evaluate(() => {
      const w = globalThis as unknown as Dom;
      return w.document.documentElement.scrollWidth - w.innerWidth;
    });
    assert.ok(overflow <= 1, `the page is ${overflow}px wider than a phone`);
    assert.deepEqual(problems, []);
    await elsewhere.close();
    await context.close();
  });
});
