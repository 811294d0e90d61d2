import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MIGRATIONS_DIR, migrate } from '../../core/db/migrator.js';
import { openPgliteDatabase } from '../../core/db/pglite.database.js';
import { TEST_ADMIN_TOKEN, type TestApp, client, startTestApp } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import { PortalVisitor, receivedMails, tenantWithPortalUser } from '../support/portal.js';
import { portalLink, startSmtpServer } from '../support/smtp.js';

const PASSWORD = 'correct horse battery staple';

/**
 * Client addresses of this run only (documentation prefix 2001:db8::/32): with PostgreSQL the
 * rate-limit counters outlive the app, and another run's failures must not count here.
 */
const run = randomBytes(4).toString('hex').replace(/^(.{4})/, '$1:');
let clients = 0;
const clientAddress = (): string => `2001:db8:${run}::${(++clients).toString(16)}`;

/** A section of the Account page (`people`, `invitations`), or '' when the page has none. */
function section(html: string, id: string): string {
  const start = html.indexOf(`id="${id}"`);
  return start < 0 ? '' : html.slice(start, html.indexOf('</section>', start));
}

/** The page's status message (`<p class="ok">`), with an address replaced by a placeholder. */
function statusMessage(html: string, email: string): string | undefined {
  return /<p class="ok" role="status">([^<]*)</.exec(html)?.[1]?.replaceAll(email, '<address>');
}

for (const database of testDatabases()) {
  describe(`web portal: invitations and sign-in limits that neither reveal nor lock out accounts [${database.name}]`, function () {
    this.timeout(120_000);
    let app: TestApp;
    let smtp: Awaited<ReturnType<typeof startSmtpServer>>;

    before(async () => {
      smtp = await startSmtpServer();
      app = await startTestApp(await database.get(), {
        jobs: false,
        // Visitors at several client addresses: X-Forwarded-For from the test's own (loopback) proxy.
        env: { SMTP_URL: smtp.url, MAIL_FROM: 'Lore <lore@example.test>', TRUSTED_PROXIES: 'loopback' },
      });
    });
    after(async () => {
      await app.close();
      await smtp.close();
    });

    const mails = (email: string, n: number) => receivedMails(smtp.mails, email, n);
    const visitor = () => new PortalVisitor(app.url, { 'x-forwarded-for': clientAddress() });
    const tenant = (name = `Tenant ${randomUUID().slice(0, 8)}`) => tenantWithPortalUser(app.url, smtp.mails, PASSWORD, { name, visitor: visitor() });
    const invite = async (admin: PortalVisitor, email: string, role = 'read') => {
      const res = await admin.request('POST', '/portal/people', { form: { _csrf: await admin.csrfToken(), email, role } });
      return { status: res.status, headers: res.headers, html: await res.text() };
    };
    const freshAddress = () => `invitee-${randomUUID()}@example.test`;

    describe('invitations', () => {
      it('answers alike whether or not the address has an account, and makes a person a member only when they accept', async () => {
        const a = await tenant();
        const b = await tenant();
        const fresh = freshAddress();
        const toAccount = await invite(a.visitor, b.email, 'write');
        const toFresh = await invite(a.visitor, fresh, 'write');
        assert.equal(toAccount.status, 201);
        assert.equal(toFresh.status, 201);
        assert.equal(statusMessage(toAccount.html, b.email), statusMessage(toFresh.html, fresh));
        assert.ok(statusMessage(toFresh.html, fresh));
        // Both are pending invitations of A, neither one of A's people.
        const account = (await a.visitor.page('/portal/account')).html;
        for (const email of [b.email, fresh]) {
          assert.match(section(account, 'invitations'), new RegExp(email));
          assert.doesNotMatch(section(account, 'people'), new RegExp(email));
        }

        // B's owner is told, without a link to accept; their account is as it was.
        const notice = (await mails(b.email, 2))[1]!;
        assert.match(notice.text, /already belongs to a Lore account/);
        assert.doesNotMatch(notice.text, /\/portal\/password\?token=/);
        const bAgain = visitor();
        assert.equal((await bAgain.signIn(b.email, PASSWORD)).status, 303);
        assert.match((await bAgain.page('/portal/overview')).html, new RegExp(`${b.name} · ${b.email}`));

        // The invited address has no account until it accepts: no sign-in, no reset e-mail.
        const [invitation] = await mails(fresh, 1);
        const person = visitor();
        assert.equal((await person.signIn(fresh, PASSWORD)).status, 401);
        assert.equal((await person.postForm('/portal/forgot', '/portal/forgot', { email: fresh })).status, 200);
        await new Promise((r) => setTimeout(r, 300));
        assert.equal((await mails(fresh, 2)).length, 1, 'no reset e-mail for an address without an account');

        // Accepting makes them one of A's people, with the role they were invited to.
        assert.equal((await person.choosePassword(portalLink(invitation!), PASSWORD)).status, 303);
        assert.equal((await person.signIn(fresh, PASSWORD)).status, 303);
        assert.match((await person.page('/portal/overview')).html, new RegExp(`${a.name} · ${fresh} \\(write\\)`));
        const after = (await a.visitor.page('/portal/account')).html;
        assert.match(section(after, 'people'), new RegExp(`${fresh}</td><td>write`));
        assert.doesNotMatch(section(after, 'invitations'), new RegExp(fresh));
        assert.equal((await person.page(portalLink(invitation!))).status, 400, 'the link works once');
      });

      it('claims no address: a tenant created later for it gets its portal user, whose reset leads there; the invitation then makes no second account', async () => {
        const a = await tenant();
        const email = freshAddress();
        assert.equal((await invite(a.visitor, email, 'admin')).status, 201);
        const [invitation] = await mails(email, 1);

        const created = await client(app.url, TEST_ADMIN_TOKEN)('POST', '/internal/v1/tenants', { name: 'Later Ltd', plan: 'free', email });
        assert.equal(created.status, 201);
        assert.equal(created.body.portal_invitation?.email, email);
        // The owner asks for a reset rather than following their link: it leads into their own tenant.
        const owner = visitor();
        assert.equal((await owner.postForm('/portal/forgot', '/portal/forgot', { email })).status, 200);
        const reset = (await mails(email, 3)).find((m) => /Reset your Lore password/.test(m.text));
        assert.ok(reset, 'a reset e-mail');
        assert.equal((await owner.choosePassword(portalLink(reset), PASSWORD)).status, 303);
        assert.equal((await owner.signIn(email, PASSWORD)).status, 303);
        assert.match((await owner.page('/portal/overview')).html, new RegExp(`Later Ltd · ${email} \\(admin\\)`));

        // A's invitation now says why it cannot be accepted, and changes nothing.
        const link = portalLink(invitation!);
        const shown = await owner.page(link);
        assert.equal(shown.status, 409);
        assert.match(shown.html, /already has a Lore account/);
        const { html } = await owner.page('/portal/sign-in');
        const token = new URL(link, app.url).searchParams.get('token')!;
        const posted = await owner.request('POST', '/portal/password', { form: { _form: PortalVisitor.field(html, '_form'), token, password: `${PASSWORD}!`, confirm: `${PASSWORD}!` } });
        assert.equal(posted.status, 409);
        assert.match(await posted.text(), /already has a Lore account/);
        assert.doesNotMatch(section((await a.visitor.page('/portal/account')).html, 'people'), new RegExp(email));
        assert.equal((await owner.signIn(email, PASSWORD)).status, 303, 'the password is the one the owner chose');
      });

      it("lists and revokes a tenant's own invitations only: another tenant's answer 404", async () => {
        const a = await tenant();
        const b = await tenant();
        const email = freshAddress();
        assert.equal((await invite(a.visitor, email)).status, 201);
        const [invitation] = await mails(email, 1);
        const revoke = /action="(\/portal\/invitations\/[0-9a-f-]{36}\/revoke)"/.exec(section((await a.visitor.page('/portal/account')).html, 'invitations'))?.[1];
        assert.ok(revoke, 'a revoke form');

        assert.doesNotMatch((await b.visitor.page('/portal/account')).html, new RegExp(email));
        assert.equal((await b.visitor.request('POST', revoke, { form: { _csrf: await b.visitor.csrfToken() } })).status, 404);
        assert.equal((await b.visitor.request('POST', '/portal/invitations/not-an-id/revoke', { form: { _csrf: await b.visitor.csrfToken() } })).status, 404);
        assert.equal((await visitor().page(portalLink(invitation!))).status, 200, "B's attempt changed nothing");

        assert.equal((await a.visitor.request('POST', revoke, { form: { _csrf: await a.visitor.csrfToken() } })).status, 303);
        assert.doesNotMatch(section((await a.visitor.page('/portal/account')).html, 'invitations'), new RegExp(email));
        assert.equal((await visitor().page(portalLink(invitation!))).status, 400, 'a revoked invitation cannot be accepted');
        assert.equal((await a.visitor.request('POST', revoke, { form: { _csrf: await a.visitor.csrfToken() } })).status, 404);
      });

      it('limits invitations per inviting person and per tenant, and sends one e-mail per address an hour', async () => {
        const a = await tenant();
        // Re-inviting an address within the hour answers alike and e-mails nothing more.
        const again = freshAddress();
        for (let i = 0; i < 3; i++) assert.equal((await invite(a.visitor, again)).status, 201);
        await new Promise((r) => setTimeout(r, 300));
        assert.equal((await mails(again, 2)).length, 1);

        // Two more admins, invited by A (5 of A's 10 used).
        const admins: PortalVisitor[] = [];
        for (let i = 0; i < 2; i++) {
          const email = freshAddress();
          assert.equal((await invite(a.visitor, email, 'admin')).status, 201);
          const person = visitor();
          assert.equal((await person.choosePassword(portalLink((await mails(email, 1))[0]!), PASSWORD)).status, 303);
          assert.equal((await person.signIn(email, PASSWORD)).status, 303);
          admins.push(person);
        }
        for (let i = 0; i < 5; i++) assert.equal((await invite(a.visitor, freshAddress())).status, 201);
        const limited = await invite(a.visitor, freshAddress());
        assert.equal(limited.status, 429);
        assert.ok(Number(limited.headers.get('retry-after')) > 0);
        assert.match(limited.html, /Too many invitations/);

        // The tenant's 20 an hour: the second admin sends 10, and then the third may send none.
        for (let i = 0; i < 10; i++) assert.equal((await invite(admins[0]!, freshAddress())).status, 201, `invitation ${i + 11}`);
        const email = freshAddress();
        const tenantLimited = await invite(admins[1]!, email);
        assert.equal(tenantLimited.status, 429);
        assert.ok(Number(tenantLimited.headers.get('retry-after')) > 0);
        await new Promise((r) => setTimeout(r, 300));
        assert.equal((await mails(email, 1)).length, 0, 'nothing sent beyond the limit');
      });
    });

    describe('failed sign-ins', () => {
      it("limits an account's failures per client address: a stranger's do not lock the owner out", async () => {
        const { email } = await tenant();
        const stranger = visitor();
        const statuses: number[] = [];
        for (let i = 0; i < 25; i++) statuses.push((await stranger.signIn(email, `guess ${i}`)).status);
        assert.deepEqual(statuses, [...Array<number>(5).fill(401), ...Array<number>(20).fill(429)]);
        assert.equal((await stranger.signIn(email, PASSWORD)).status, 429, 'from the stranger’s address even the right password waits');
        assert.equal((await visitor().signIn(email, PASSWORD)).status, 303, 'the owner, elsewhere, signs in');
      });

      it('limits failures spread over many addresses per account, and a completed reset lifts every limit of the account', async function () {
        this.timeout(240_000);
        const { email } = await tenant();
        const own = visitor();
        for (let i = 0; i < 5; i++) assert.equal((await own.signIn(email, `typo ${i}`)).status, 401);
        assert.equal((await own.signIn(email, PASSWORD)).status, 429);
        // 19 more addresses, 5 failures each: 100 in the hour for the account.
        for (let n = 0; n < 19; n++) {
          const stranger = visitor();
          for (let i = 0; i < 5; i++) assert.equal((await stranger.signIn(email, `guess ${n}.${i}`)).status, 401, `address ${n}, failure ${i}`);
        }
        const elsewhere = visitor();
        const limited = await elsewhere.signIn(email, PASSWORD);
        assert.equal(limited.status, 429, 'the account waits, from any address');
        assert.ok(Number(limited.headers.get('retry-after')) > 0);

        const before = (await mails(email, 1)).length;
        assert.equal((await elsewhere.postForm('/portal/forgot', '/portal/forgot', { email })).status, 200);
        const reset = (await mails(email, before + 1)).at(-1)!;
        const renewed = `${PASSWORD} renewed`;
        assert.equal((await elsewhere.choosePassword(portalLink(reset), renewed)).status, 303);
        assert.equal((await elsewhere.signIn(email, renewed)).status, 303);
        assert.equal((await own.signIn(email, renewed)).status, 303, 'the owner’s own address is free again too');
      });
    });
  });
}

describe('web portal: invitations made before migration 0023 [pglite]', function () {
  this.timeout(120_000);

  it("become invitations whose e-mailed links still work, while a tenant's own address stays its account", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'lore-migrations-'));
    const db = await openPgliteDatabase('memory://');
    const smtp = await startSmtpServer();
    let app: TestApp | undefined;
    try {
      for (const f of await fs.readdir(MIGRATIONS_DIR)) {
        if (f < '0023') await fs.copyFile(path.join(MIGRATIONS_DIR, f), path.join(dir, f));
      }
      await migrate(db, dir);
      app = await startTestApp(db, { jobs: false, env: { SMTP_URL: smtp.url } });
      const created = await client(app.url, TEST_ADMIN_TOKEN)('POST', '/internal/v1/tenants', { name: 'Old Co', plan: 'standard', email: 'Owner@Example.test' });
      assert.equal(created.status, 201);
      const [ownerMail] = await receivedMails(smtp.mails, 'owner@example.test', 1);
      // An invitation as the code before 0023 made it: a passwordless account with a set-password link.
      const token = randomBytes(32).toString('base64url');
      const { rows } = await db.query<{ id: string }>(`INSERT INTO portal_users (tenant_id, email, role) VALUES ($1, 'invited@example.test', 'write') RETURNING id`, [created.body.id]);
      await db.query(
        `INSERT INTO portal_password_links (token_hash, user_id, tenant_id, purpose, created_at, expires_at) VALUES ($1, $2, $3, 'invite', now(), now() + interval '72 hours')`,
        [createHash('sha256').update(token).digest('hex'), rows[0]!.id, created.body.id],
      );
      await app.close();
      app = undefined;

      assert.equal((await migrate(db))[0], '0023_portal_invitations');
      app = await startTestApp(db, { jobs: false, env: { SMTP_URL: smtp.url } });
      const owner = new PortalVisitor(app.url);
      assert.equal((await owner.choosePassword(portalLink(ownerMail!), PASSWORD)).status, 303);
      assert.equal((await owner.signIn('owner@example.test', PASSWORD)).status, 303);
      const account = (await owner.page('/portal/account')).html;
      assert.match(section(account, 'invitations'), /invited@example\.test/);
      assert.doesNotMatch(section(account, 'people'), /invited@example\.test/);

      const invited = new PortalVisitor(app.url);
      assert.equal((await invited.choosePassword(`/portal/password?token=${token}`, PASSWORD)).status, 303);
      assert.equal((await invited.signIn('invited@example.test', PASSWORD)).status, 303);
      assert.match((await invited.page('/portal/overview')).html, /Old Co · invited@example\.test \(write\)/);
    } finally {
      await app?.close();
      await db.close();
      await smtp.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
