import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { TEST_ADMIN_TOKEN, type TestApp, client, startTestApp } from '../support/app.js';
import { OffsetClock } from '../support/clock.js';
import { testDatabases } from '../support/databases.js';
import { unzip } from '../support/zip.js';
import { PortalVisitor, receivedMails, tenantWithPortalUser } from '../support/portal.js';
import { type ReceivedMail, portalLink, startSmtpServer } from '../support/smtp.js';

const PASSWORD = 'correct horse battery staple';

for (const database of testDatabases()) {
  describe(`web portal: accounts, sessions and password links [${database.name}]`, function () {
    this.timeout(60_000);
    let app: TestApp;
    let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
    const clock = new OffsetClock();

    before(async () => {
      smtp = await startSmtpServer();
      app = await startTestApp(await database.get(), {
        jobs: false,
        env: { SMTP_URL: smtp.url, MAIL_FROM: 'Lore <lore@example.test>', PORTAL_SESSION_IDLE_MINUTES: '30', PORTAL_SESSION_MAX_HOURS: '2' },
        adapters: { clock },
      });
    });
    after(async () => {
      await app.close();
      await smtp.close();
    });
    afterEach(() => {
      clock.offsetMs = 0;
    });

    const mailsTo = (email: string): ReceivedMail[] => smtp.mails.filter((m) => m.to.includes(email));
    const waitForMails = (email: string, n: number): Promise<ReceivedMail[]> => receivedMails(smtp.mails, email, n);
    const tenantWithUser = (plan = 'standard') => tenantWithPortalUser(app.url, smtp.mails, PASSWORD, { plan });

    it('invites the tenant e-mail as its first admin, in a mail with text and HTML parts; the link sets a password once', async () => {
      const email = `first-${randomUUID()}@example.test`;
      const res = await client(app.url, TEST_ADMIN_TOKEN)('POST', '/internal/v1/tenants', { name: 'Acme', plan: 'free', email });
      assert.equal(res.status, 201);
      const [mail] = await waitForMails(email, 1);
      assert.match(mail!.raw, /Content-Type: text\/plain/);
      assert.match(mail!.raw, /Content-Type: text\/html/);
      assert.match(mail!.text, /Subject: Set your Lore password/);
      assert.match(mail!.text, /access to Acme on Lore/);
      const link = portalLink(mail!);
      const { rows } = await app.db.query<{ token_hash: string }>('SELECT token_hash FROM portal_password_links l JOIN portal_users u ON u.id = l.user_id WHERE u.email = $1', [email]);
      assert.equal(rows.length, 1);
      assert.ok(!link.includes(rows[0]!.token_hash), 'only a digest of the token is stored');

      const visitor = new PortalVisitor(app.url);
      const form = await visitor.page(link);
      const fields = { _form: PortalVisitor.field(form.html, '_form'), token: PortalVisitor.field(form.html, 'token') };
      // Too short, and too common, are refused with the reason; the link stays usable.
      let bad = await visitor.request('POST', '/portal/password', { form: { ...fields, password: 'short', confirm: 'short' } });
      assert.equal(bad.status, 422);
      assert.match(await bad.text(), /at least 8 characters/);
      bad = await visitor.request('POST', '/portal/password', { form: { ...fields, password: 'password1', confirm: 'password1' } });
      assert.equal(bad.status, 422);
      assert.match(await bad.text(), /most common passwords/);
      bad = await visitor.request('POST', '/portal/password', { form: { ...fields, password: PASSWORD, confirm: 'something else' } });
      assert.equal(bad.status, 422);
      const ok = await visitor.request('POST', '/portal/password', { form: { ...fields, password: PASSWORD, confirm: PASSWORD } });
      assert.equal(ok.status, 303);
      assert.equal(ok.headers.get('location'), '/portal/sign-in?password=set');
      const again = await visitor.request('POST', '/portal/password', { form: { ...fields, password: `${PASSWORD}!`, confirm: `${PASSWORD}!` } });
      assert.equal(again.status, 400);
      assert.equal((await visitor.page(link)).status, 400);
      const { rows: users } = await app.db.query<{ password_hash: string }>('SELECT password_hash FROM portal_users WHERE email = $1', [email]);
      const metrics = await (await fetch(`${app.url}/metrics`)).text();
      assert.match(metrics, /route="\/portal\/password"/);
      assert.ok(!metrics.includes(PortalVisitor.field(form.html, 'token')), 'metrics name the route, never the link');
      assert.match(users[0]!.password_hash, /^scrypt\$32768\$8\$1\$/);
      assert.ok(!users[0]!.password_hash.includes(PASSWORD));
    });

    it('signs in with a fresh session id in an HttpOnly, Secure, SameSite cookie, and signs out', async () => {
      const { email } = await tenantWithUser();
      const visitor = new PortalVisitor(app.url);
      // A session id planted before sign-in is not used (no fixation): it is not a session, and sign-in replaces it.
      visitor.cookies.set('lore_session', 'A'.repeat(43));
      assert.equal((await visitor.page('/portal/overview')).location, '/portal/sign-in');
      const res = await visitor.signIn(email, PASSWORD);
      assert.equal(res.status, 303);
      assert.equal(res.headers.get('location'), '/portal/overview');
      const cookie = visitor.setCookies.find((c) => c.startsWith('lore_session='))!;
      assert.match(cookie, /HttpOnly/i);
      assert.match(cookie, /Secure/i);
      assert.match(cookie, /SameSite=Lax/i);
      assert.match(cookie, /Path=\//);
      const id = visitor.cookies.get('lore_session')!;
      assert.notEqual(id, 'A'.repeat(43));
      assert.match(id, /^[A-Za-z0-9_-]{43}$/);
      const { rows } = await app.db.query<{ id_hash: string }>('SELECT id_hash FROM portal_sessions s JOIN portal_users u ON u.id = s.user_id WHERE u.email = $1', [email]);
      assert.ok(rows.length >= 1 && rows.every((r) => r.id_hash !== id), 'only a digest of the session id is stored');
      const overview = await visitor.page('/portal/overview');
      assert.equal(overview.status, 200);
      assert.match(overview.html, /Usage against your limits/);
      assert.equal(overview.html.match(/<progress /g)?.length, 5);
      // Pages are not framed, cached or leaking their URL.
      const headers = (await visitor.request('GET', '/portal/overview')).headers;
      assert.equal(headers.get('x-frame-options'), 'DENY');
      assert.equal(headers.get('referrer-policy'), 'same-origin');
      assert.equal(headers.get('cache-control'), 'no-store');
      assert.match(headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);

      const signOut = await visitor.request('POST', '/portal/sign-out', { form: { _csrf: await visitor.csrfToken() } });
      assert.equal(signOut.status, 303);
      visitor.cookies.set('lore_session', id);
      assert.equal((await visitor.page('/portal/overview')).location, '/portal/sign-in', 'the old session id no longer works');
    });

    it('answers an unknown address and a wrong password alike, and limits failed sign-ins per account and client address', async () => {
      const { email } = await tenantWithUser();
      const visitor = new PortalVisitor(app.url);
      const unknown = await visitor.signIn(`nobody-${randomUUID()}@example.test`, PASSWORD);
      const wrong = await visitor.signIn(email, 'not the password');
      assert.equal(unknown.status, 401);
      assert.equal(wrong.status, 401);
      const text = (html: string) => html.replace(/name="(_form|email)" [^>]*>/g, '');
      assert.equal(text(await unknown.text()), text(await wrong.text()));
      for (let i = 0; i < 4; i++) assert.equal((await visitor.signIn(email, `wrong ${i}`)).status, 401);
      // Five failures in a minute: the account waits at this address, even with the right password.
      const limited = await visitor.signIn(email, PASSWORD);
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.headers.get('retry-after')) > 0);
      assert.equal((await visitor.signIn(`nobody-${randomUUID()}@example.test`, PASSWORD)).status, 401, 'other accounts are not limited');
    });

    it('ends a session after its idle time and after its absolute lifetime', async () => {
      const { visitor } = await tenantWithUser();
      clock.offsetMs = 29 * 60_000;
      assert.equal((await visitor.page('/portal/overview')).status, 200);
      clock.offsetMs = 29 * 60_000 + 31 * 60_000;
      assert.equal((await visitor.page('/portal/overview')).location, '/portal/sign-in', 'idle for 31 minutes');

      clock.offsetMs = 0;
      const { visitor: busy } = await tenantWithUser();
      for (let minutes = 20; minutes <= 120; minutes += 20) {
        clock.offsetMs = minutes * 60_000;
        const page = await busy.page('/portal/overview');
        assert.equal(page.status, minutes < 120 ? 200 : 303, `after ${minutes} minutes`);
      }
    });

    it('resets a password by e-mail: the same message for any address, one use, 1 hour, 3 mails an hour, every session ended, keys untouched', async () => {
      const { email, key, visitor } = await tenantWithUser();
      const elsewhere = new PortalVisitor(app.url);
      assert.equal((await elsewhere.signIn(email, PASSWORD)).status, 303);
      const before = mailsTo(email).length;

      const stranger = new PortalVisitor(app.url);
      const forUnknown = await stranger.postForm('/portal/forgot', '/portal/forgot', { email: `nobody-${randomUUID()}@example.test` });
      const forKnown = await stranger.postForm('/portal/forgot', '/portal/forgot', { email: email.toUpperCase() });
      assert.equal(forUnknown.status, 200);
      assert.equal(forKnown.status, 200);
      const message = (html: string) => /<p class="ok"[^>]*>([^<]+)</.exec(html)?.[1];
      assert.equal(message(await forUnknown.text()), message(await forKnown.text()));
      const mails = await waitForMails(email, before + 1);
      const reset = mails.at(-1)!;
      assert.match(reset.text, /Subject: Reset your Lore password/);
      const link = portalLink(reset);

      // Two more are sent; a fourth within the hour is not (and the page says the same).
      for (let i = 0; i < 3; i++) assert.equal((await stranger.postForm('/portal/forgot', '/portal/forgot', { email })).status, 200);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(mailsTo(email).length, before + 3);

      // An hour later the first link has expired; the hour's count has moved on too.
      clock.offsetMs = 61 * 60_000;
      assert.equal((await stranger.page(link)).status, 400);
      assert.equal((await stranger.postForm('/portal/forgot', '/portal/forgot', { email })).status, 200);
      const fresh = portalLink((await waitForMails(email, before + 4)).at(-1)!);
      const form = await stranger.page(fresh);
      const newPassword = `${PASSWORD} renewed`;
      const done = await stranger.request('POST', '/portal/password', {
        form: { _form: PortalVisitor.field(form.html, '_form'), token: PortalVisitor.field(form.html, 'token'), password: newPassword, confirm: newPassword },
      });
      assert.equal(done.status, 303);
      // Every session of the person ended; the older links are spent; the API key still works.
      assert.equal((await visitor.page('/portal/overview')).location, '/portal/sign-in');
      assert.equal((await elsewhere.page('/portal/overview')).location, '/portal/sign-in');
      assert.equal((await stranger.page(portalLink(mailsTo(email).at(-2)!))).status, 400);
      assert.equal((await client(app.url, key)('GET', '/v1/knowledge-bases')).status, 200);
      assert.equal((await stranger.signIn(email, PASSWORD)).status, 401);
      assert.equal((await stranger.signIn(email, newPassword)).status, 303);
    });

    it('refuses text that cannot be stored (NUL, lone surrogates) in every form field with 422, before any lookup', async () => {
      const visitor = new PortalVisitor(app.url);
      for (const [page, action] of [['/portal/sign-in', '/portal/sign-in'], ['/portal/forgot', '/portal/forgot']] as const) {
        const { html } = await visitor.page(page);
        const res = await visitor.request('POST', action, { form: { _form: PortalVisitor.field(html, '_form'), email: 'a\u0000@example.test', password: 'x' } });
        assert.equal(res.status, 422, action);
        assert.match(await res.text(), /form\.email/);
      }
      const raw = await visitor.request('POST', '/portal/sign-in', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, form: undefined });
      assert.ok(raw.status < 500);
      assert.equal((await visitor.page('/portal/password?token=%00')).status, 422);
    });

    it('refuses form and query text that is not UTF-8 with 422 naming the field, before any lookup', async () => {
      const visitor = new PortalVisitor(app.url);
      const token = PortalVisitor.field((await visitor.page('/portal/sign-in')).html, '_form');
      const bodies: Array<[string | Buffer, RegExp]> = [
        [`_form=${token}&email=a%FF%40example.test&password=x`, /form\.email: must be valid UTF-8/],
        [Buffer.concat([Buffer.from(`_form=${token}&email=a`), Buffer.from([0xff]), Buffer.from('@example.test&password=x')]), /form: must be valid UTF-8/],
      ];
      for (const [body, field] of bodies) {
        const res = await visitor.request('POST', '/portal/sign-in', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
        assert.equal(res.status, 422);
        assert.match(await res.text(), field);
      }
      const link = await visitor.page('/portal/password?token=%C3%28');
      assert.equal(link.status, 422);
      assert.match(link.html, /query\.token: must be valid UTF-8/);
    });

    it('limits reset requests per IP address', async () => {
      const visitor = new PortalVisitor(app.url);
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) statuses.push((await visitor.postForm('/portal/forgot', '/portal/forgot', { email: `x${i}-${randomUUID()}@example.test` })).status);
      assert.equal(statuses.filter((s) => s === 429).length > 0, true, statuses.join(','));
    });

    it('refuses forms without their token, from another origin, and REST changes through the session without the CSRF header', async () => {
      const { email, visitor } = await tenantWithUser();
      const noToken = await new PortalVisitor(app.url).request('POST', '/portal/sign-in', { form: { email, password: PASSWORD } });
      assert.equal(noToken.status, 403);
      const crossSite = new PortalVisitor(app.url);
      const { html } = await crossSite.page('/portal/sign-in');
      const forged = await crossSite.request('POST', '/portal/sign-in', {
        form: { _form: PortalVisitor.field(html, '_form'), email, password: PASSWORD },
        headers: { origin: 'https://evil.example' },
      });
      assert.equal(forged.status, 403);
      assert.equal((await visitor.request('POST', '/portal/sign-out-everywhere', { form: { _csrf: 'wrong' } })).status, 403);

      // REST through the session: reads need no token; changes need X-CSRF-Token.
      assert.equal((await visitor.request('GET', '/v1/knowledge-bases')).status, 200);
      const refused = await visitor.request('POST', '/v1/knowledge-bases', { json: { name: 'Forged' } });
      assert.equal(refused.status, 403);
      assert.equal(((await refused.json()) as { error: string }).error, 'csrf_token_invalid');
      assert.equal((await visitor.request('POST', '/v1/knowledge-bases', { json: { name: 'Forged' }, headers: { 'x-csrf-token': 'x'.repeat(43) } })).status, 403);
      const created = await visitor.api('POST', '/v1/knowledge-bases', { name: 'Real' });
      assert.equal(created.status, 201);
      // Signing out everywhere ends the session for REST too.
      assert.equal((await visitor.request('POST', '/portal/sign-out-everywhere', { form: { _csrf: await visitor.csrfToken() } })).status, 303);
      assert.equal((await visitor.request('GET', '/v1/knowledge-bases')).status, 401);
    });

    it("gives roles their key's rights: a read user cannot create keys; an admin invites and removes people", async () => {
      const { visitor: admin } = await tenantWithUser();
      const readerEmail = `reader-${randomUUID()}@example.test`;
      const invited = await admin.request('POST', '/portal/people', { form: { _csrf: await admin.csrfToken(), email: readerEmail, role: 'read' } });
      assert.equal(invited.status, 201);
      const reader = new PortalVisitor(app.url);
      assert.equal((await reader.choosePassword(portalLink((await waitForMails(readerEmail, 1))[0]!), PASSWORD)).status, 303);
      assert.equal((await reader.signIn(readerEmail, PASSWORD)).status, 303);
      assert.equal((await reader.api('POST', '/v1/auth/keys', { name: 'x', role: 'read' })).status, 403);
      assert.equal((await reader.api('GET', '/v1/knowledge-bases')).status, 200);
      assert.match((await reader.page('/portal/keys')).html, /Your role \(read\) cannot manage API keys/);
      assert.equal((await reader.request('POST', '/portal/people', { form: { _csrf: await reader.csrfToken(), email: 'a@b.test', role: 'admin' } })).status, 403);
      // One of the tenant's own people cannot be invited again (the admin sees them listed anyway).
      const twice = await admin.request('POST', '/portal/people', { form: { _csrf: await admin.csrfToken(), email: readerEmail, role: 'read' } });
      assert.equal(twice.status, 409);
      // Removing the reader ends their sessions.
      const { rows } = await app.db.query<{ id: string }>('SELECT id FROM portal_users WHERE email = $1', [readerEmail]);
      assert.equal((await admin.request('POST', `/portal/people/${rows[0]!.id}/remove`, { form: { _csrf: await admin.csrfToken() } })).status, 303);
      assert.equal((await reader.page('/portal/overview')).location, '/portal/sign-in');
    });

    it("never shows or changes another tenant's data: its ids answer 404 in every portal route", async () => {
      const a = await tenantWithUser();
      const b = await tenantWithUser();
      const kb = await client(app.url, a.key)('POST', '/v1/knowledge-bases', { name: 'Secret A' });
      const doc = await client(app.url, a.key)('POST', '/v1/documents', { knowledge_base_id: kb.body.id, title: 'A doc', content: 'A secret text.' });
      const keys = await client(app.url, a.key)('GET', '/v1/auth/keys');
      const { rows } = await app.db.query<{ id: string }>('SELECT id FROM portal_users WHERE email = $1', [a.email]);
      const bCsrf = await b.visitor.csrfToken();

      assert.equal((await b.visitor.page(`/portal/knowledge-bases/${kb.body.id}`)).status, 404);
      assert.doesNotMatch((await b.visitor.page('/portal/knowledge-bases')).html, /Secret A/);
      assert.equal((await b.visitor.api('GET', `/v1/knowledge-bases/${kb.body.id}/documents`)).status, 404);
      assert.equal((await b.visitor.api('PATCH', `/v1/knowledge-bases/${kb.body.id}`, { name: 'Taken' })).status, 404);
      assert.equal((await b.visitor.api('DELETE', `/v1/documents/${doc.body.document_id}`)).status, 404);
      assert.equal((await b.visitor.api('DELETE', `/v1/auth/keys/${keys.body[0].id}`)).status, 404);
      assert.equal((await b.visitor.request('POST', `/portal/people/${rows[0]!.id}/remove`, { form: { _csrf: bCsrf } })).status, 404);
      assert.doesNotMatch((await b.visitor.page('/portal/account')).html, new RegExp(a.email));
      // A's things are all still there.
      assert.equal((await client(app.url, a.key)('GET', `/v1/documents/${doc.body.document_id}`)).status, 200);
      assert.equal((await a.visitor.page('/portal/overview')).status, 200);
      assert.equal((await client(app.url, a.key)('GET', '/v1/auth/keys')).body.length, keys.body.length);
    });

    it("lists the tenant's portal users in the account export, without password hashes", async () => {
      const { email, visitor } = await tenantWithUser();
      const exported = await visitor.api('POST', '/v1/account/export');
      assert.equal(exported.status, 200);
      const files = await unzip(Buffer.from(await (await fetch(exported.body.download_url)).arrayBuffer()));
      const users = JSON.parse(files.get('portal_users.json')!.toString()) as Array<Record<string, unknown>>;
      assert.deepEqual(users.map((u) => [u.email, u.role, u.password_set]), [[email, 'admin', true]]);
      const { rows } = await app.db.query<{ password_hash: string }>('SELECT password_hash FROM portal_users WHERE email = $1', [email]);
      const everything = [...files.values()].map((b) => b.toString()).join('\n');
      assert.ok(!everything.includes(rows[0]!.password_hash.split('$')[5]!), 'no password hash in the export');
    });

    it('records the signed-in person as who accepted the DPA', async () => {
      const { id, email, visitor } = await tenantWithUser();
      const accepted = await visitor.api('POST', '/v1/dpa/accept', { version: 1 }, { 'x-accepted-by': 'someone else' });
      assert.equal(accepted.status, 200);
      const { rows } = await app.db.query<{ accepted_by: string; api_key_id: string | null }>('SELECT accepted_by, api_key_id FROM dpa_acceptances WHERE tenant_id = $1', [id]);
      assert.deepEqual(rows, [{ accepted_by: email, api_key_id: null }]);
    });
  });
}
