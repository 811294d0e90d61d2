import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { TEST_ADMIN_TOKEN, type TestApp, client, startTestApp } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import { BUDGET_SHARES, OperationStats, abbreviate, capturedErrorLog, describeResponse, fuzzSettings, nextClientAddress, printFigures, seedFor, sendRaw } from '../support/fuzz.js';
import { PortalVisitor } from '../support/portal.js';

/** Every route that takes a body outside the REST API: the portal's forms and the secret-scanning endpoint. */
const TARGETS = [
  '/portal/sign-in',
  '/portal/forgot',
  '/portal/password',
  '/portal/people',
  '/portal/people/{user}/remove',
  '/portal/invitations/{user}/revoke',
  '/portal/sign-out',
  '/portal/sign-out-everywhere',
  '/portal/needs-javascript',
  '/partners/github/secret-scanning',
] as const;

const FIELD_NAMES = ['_form', '_csrf', 'email', 'password', 'confirm', 'token', 'role', 'x', 'email[]', ''];

/** Field values that have broken form handlers elsewhere: NUL, lone surrogates, long and odd text. */
const valueArb = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('{csrf}', '{form}', '{csrf}', '{form}', '\u0000', '\ud800', '%ED%A0%80', '%00', 'a@b.c', 'admin', 'read', '%', '%zz', '+', '&', '=', 'A'.repeat(43), 'x'.repeat(40_000)),
);

/** The form token the fuzzer's `lore_form` cookie holds, so its sign-in and reset posts get past the token check. */
const FORM_TOKEN = 'F'.repeat(43);
/** The signed-in session's CSRF token, once the suite has one (form values `{csrf}` become it). */
const tokens = { csrf: '' };

/** Every UTF-8 byte percent-encoded (encodeURIComponent throws on a lone surrogate; Buffer makes it U+FFFD). */
const percent = (text: string): string => [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

const bodyArb = fc.oneof(
  // A form: fields (names repeat sometimes, which makes arrays), percent-encoded or raw.
  fc
    .tuple(fc.array(fc.tuple(fc.constantFrom(...FIELD_NAMES), valueArb), { maxLength: 8 }), fc.boolean(), fc.boolean())
    .map(([pairs, encode, withTokens]) => {
      // Half the forms carry both tokens, so the fuzzer gets past the checks to the handlers.
      const tokenFields: Array<[string, string]> = withTokens ? [['_form', FORM_TOKEN], ['_csrf', tokens.csrf]] : [];
      const fields = [...tokenFields, ...pairs.map(([k, v]): [string, string] => [k, v === '{csrf}' ? tokens.csrf : v === '{form}' ? FORM_TOKEN : v])];
      return { note: `form ${fields.length} fields${encode ? '' : ' (raw)'}`, body: Buffer.from(fields.map(([k, v]) => (encode ? `${percent(k)}=${percent(v)}` : `${k}=${v}`)).join('&')) };
    }),
  fc.uint8Array({ maxLength: 2000 }).map((b) => ({ note: `${b.length} random bytes`, body: Buffer.from(b) })),
  fc.json({ maxDepth: 3 }).map((j) => ({ note: 'JSON', body: Buffer.from(j) })),
  fc.constant({ note: '70 kB form', body: Buffer.from(`email=${'a'.repeat(70_000)}`) }),
);


const CONTENT_TYPES = ['application/x-www-form-urlencoded', 'application/json', 'multipart/form-data; boundary=x', 'text/plain', 'application/x-www-form-urlencoded; charset=utf-16', undefined];

for (const database of testDatabases()) {
  describe(`fuzz: the portal's forms and the secret-scanning endpoint [${database.name}]`, () => {
    let app: TestApp | undefined;
    const errorLog = capturedErrorLog();
    const settings = fuzzSettings();
    const selected = !settings.only || settings.only.includes('portal');
    let session: { cookie: string; csrf: string; userId: string } | undefined;

    before(async function () {
      if (!selected) return;
      this.timeout(120_000);
      app = await startTestApp(await database.get(), { jobs: false, env: { TRUSTED_PROXIES: 'loopback' }, log: errorLog.log });
      // A signed-in admin, so the fuzzer reaches past the session and CSRF checks too.
      const email = `fuzz-${randomUUID()}@example.test`;
      const created = await client(app.url, TEST_ADMIN_TOKEN)('POST', '/internal/v1/tenants', { name: 'Portal fuzz', plan: 'standard', email });
      const visitor = new PortalVisitor(app.url);
      const token = await app.services.portal.addUser(app.db, { tenantId: created.body.id as string, subTenantId: null }, { email: `second-${email}`, role: 'admin' }, 'Portal fuzz');
      const form = await visitor.page(`/portal/password?token=${token.token}`);
      const password = 'a fuzzing passphrase';
      await visitor.request('POST', '/portal/password', { form: { _form: PortalVisitor.field(form.html, '_form'), token: token.token, password, confirm: password } });
      assert.equal((await visitor.signIn(`second-${email}`, password)).status, 303);
      tokens.csrf = await visitor.csrfToken();
      session = { cookie: `lore_session=${visitor.cookies.get('lore_session')}`, csrf: await visitor.csrfToken(), userId: token.user.id };
    });
    after(async () => {
      await app?.close();
    });

    it('answers every generated form post with a page or an error in the error shape, never a 500, and stays alive', async function () {
      if (!selected || !app || !session) return this.skip();
      const budgetMs = (settings.seconds * 1000 * BUDGET_SHARES.portal) / testDatabases().length;
      this.timeout(budgetMs + 120_000);
      const url = app.url;
      const stats = new OperationStats('portal forms');
      const started = Date.now();
      const signed = session;
      const property = fc.asyncProperty(
        fc.constantFrom(...TARGETS),
        bodyArb,
        fc.constantFrom(...CONTENT_TYPES),
        fc.constantFrom('none', 'session', 'garbage', 'nothing'),
        fc.boolean(),
        async (target, { note, body }, type, cookie, withCsrf) => {
          // The signed-in person is never removed (other requests need the session): remove someone unknown.
          const path = target.replace('{user}', randomUUID());
          const headers: Record<string, string> = { 'x-forwarded-for': nextClientAddress() };
          if (type) headers['content-type'] = type;
          if (cookie === 'session') headers.cookie = `${signed.cookie}; lore_form=${FORM_TOKEN}`;
          else if (cookie === 'none') headers.cookie = `lore_form=${FORM_TOKEN}`;
          if (cookie === 'garbage') headers.cookie = 'lore_session=%00; lore_form=\u00ff';
          if (withCsrf) headers['x-csrf-token'] = signed.csrf;
          // The session's own sign-out forms are never sent a valid token (the session must live on).
          const signsOut = path.endsWith('/sign-out') || path.endsWith('/sign-out-everywhere');
          const res = await sendRaw(url, { method: 'POST', path, headers, body: signsOut && cookie === 'session' ? Buffer.alloc(0) : body });
          stats.count(res.status);
          const problems: string[] = [];
          if (res.status >= 500 && res.status !== 503) problems.push(`status ${res.status}`);
          const type_ = String(res.headers['content-type'] ?? '');
          if (path.startsWith('/portal') && res.status !== 303 && !type_.startsWith('text/html')) problems.push(`a portal answer of ${type_}`);
          if (path.startsWith('/partners') && !type_.startsWith('application/json')) problems.push(`a partner answer of ${type_}`);
          if (problems.length) {
            const inside = errorLog.forRequest(res.headers['x-request-id'] as string | undefined);
            throw new Error([`POST ${path} (${note}, ${type ?? 'no type'}, cookie ${cookie}, csrf ${withCsrf})`, `  body: ${abbreviate(body.toString('latin1'), 400)}`, describeResponse(res), `  problems: ${problems.join('; ')}`, ...(inside ? [`  server log: ${inside}`] : [])].join('\n'));
          }
        },
      );
      const details = await fc.check(property, {
        seed: seedFor(settings.seed, 'portal'),
        numRuns: 1_000_000_000,
        plugins: [fc.interruptAfterTimeLimit(Math.max(1000, budgetMs - (Date.now() - started)))],
        ...(settings.path ? { path: settings.path } : {}),
      });
      stats.elapsedMs = Date.now() - started;
      const failures: string[] = [];
      if (details.failed) {
        failures.push(
          `${(details.errorInstance as Error | undefined)?.message ?? String(details.errorInstance)}\n  replay: FUZZ_SEED=${settings.seed} FUZZ_OPERATION=portal FUZZ_PATH=${details.counterexamplePath} npx mocha test/fuzz/portal.fuzz.test.ts`,
        );
      }
      const live = await fetch(`${url}/health/live`).catch(() => undefined);
      if (live?.status !== 200) failures.push(`GET /health/live answered ${live?.status ?? 'nothing'} after the portal fuzzing`);
      printFigures(`portal fuzz [${database.name}], seed ${settings.seed}`, [stats]);
      assert.equal(failures.length, 0, failures[0]);
    });
  });
}
