import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GitHubSignatureVerifier } from '../../core/adapters/github.signature-verifier.js';
import { TEST_ADMIN_TOKEN, type TestApp, client, createKey, startTestApp } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import { startSmtpServer } from '../support/smtp.js';

const PATH = '/partners/github/secret-scanning';

/** A signing key like the ones GitHub signs reports with (ECDSA P-256, SHA-256). */
function signingKey(id: string) {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return {
    id,
    privateKey,
    published: { key_identifier: id, key: publicKey.export({ type: 'spki', format: 'pem' }).toString(), is_current: true },
  };
}

/**
 * A fake of GitHub's `GET /meta/public_keys/secret_scanning` (GitHub's API cannot be reached from
 * here): serves the published keys in GitHub's format and counts the requests.
 */
async function fakeGitHubPublicKeysApi(keys: () => object[]): Promise<{ url: string; requests: () => number; close(): Promise<void> }> {
  let requests = 0;
  const server: Server = createServer((req, res) => {
    requests++;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ public_keys: keys() }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/meta/public_keys/secret_scanning`,
    requests: () => requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

for (const database of testDatabases()) {
  describe(`leaked-key protection: the secret-scanning partner endpoint [${database.name}]`, function () {
    this.timeout(60_000);
    let app: TestApp;
    let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
    let github: Awaited<ReturnType<typeof fakeGitHubPublicKeysApi>>;
    const current = signingKey(`k-${randomUUID()}`);
    const published = [current.published];

    before(async () => {
      smtp = await startSmtpServer();
      github = await fakeGitHubPublicKeysApi(() => published);
      // Refetching on an unknown key id is not spaced out here, so the rotation test can follow the unknown-id one.
      const reportSignatures = new GitHubSignatureVerifier({ url: github.url, file: undefined }, 0);
      app = await startTestApp(await database.get(), { jobs: false, env: { SMTP_URL: smtp.url }, adapters: { reportSignatures } });
    });
    after(async () => {
      await app.close();
      await smtp.close();
      await github.close();
    });

    const report = (matches: object[], key = current, headers: Record<string, string> = {}) => {
      const body = Buffer.from(JSON.stringify(matches));
      return fetch(`${app.url}${PATH}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'github-public-key-identifier': key.id,
          'github-public-key-signature': sign('sha256', body, key.privateKey).toString('base64'),
          ...headers,
        },
        body,
      });
    };

    async function tenantWithAdminEmail(): Promise<{ id: string; key: string; email: string }> {
      const email = `admin-${randomUUID()}@example.test`;
      const res = await client(app.url, TEST_ADMIN_TOKEN)('POST', '/internal/v1/tenants', { name: 'Leaky', plan: 'standard', email });
      return { id: res.body.id as string, key: res.body.api_key as string, email };
    }

    it('revokes a reported live key within the request, records where it was found, and e-mails the admins', async () => {
      const tenant = await tenantWithAdminEmail();
      const leaked = await createKey(app, tenant.key, 'write');
      assert.equal((await client(app.url, leaked)('GET', '/v1/knowledge-bases')).status, 200);
      const url = 'https://github.com/octo/repo/blob/abc/config.env';
      const res = await report([{ token: leaked, type: 'lore_api_key', url, source: 'content' }]);
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), [{ token_raw: leaked, token_type: 'lore_api_key', label: 'true_positive' }]);
      assert.equal((await client(app.url, leaked)('GET', '/v1/knowledge-bases')).status, 401, 'revoked before the answer');
      assert.equal((await client(app.url, tenant.key)('GET', '/v1/knowledge-bases')).status, 200, 'other keys keep working');
      const { rows } = await app.db.query<{ url: string; source: string; revoked: boolean }>('SELECT url, source, revoked FROM leaked_key_reports WHERE tenant_id = $1', [tenant.id]);
      assert.deepEqual(rows, [{ url, source: 'content', revoked: true }]);
      for (let i = 0; i < 100 && !smtp.mails.some((m) => m.to.includes(tenant.email) && /revoked/.test(m.text)); i++) await new Promise((r) => setTimeout(r, 20));
      const notice = smtp.mails.find((m) => m.to.includes(tenant.email) && /Subject: A Lore API key/.test(m.text));
      assert.ok(notice, 'the admin was e-mailed');
      assert.match(notice.text, /write key/);
      assert.match(notice.text, new RegExp(leaked.slice(-4)));
      assert.match(notice.text, /octo\/repo/);
      assert.ok(!notice.text.includes(leaked), 'the notice does not repeat the key');

      // The same report again (a replay) changes nothing and e-mails nobody.
      const mailsBefore = smtp.mails.length;
      const again = await report([{ token: leaked, type: 'lore_api_key', url, source: 'content' }]);
      assert.deepEqual(await again.json(), [{ token_raw: leaked, token_type: 'lore_api_key', label: 'true_positive' }]);
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(smtp.mails.length, mailsBefore);
      assert.equal((await app.db.query('SELECT 1 FROM leaked_key_reports WHERE tenant_id = $1', [tenant.id])).rows.length, 1);
    });

    it('labels tokens that are not live Lore keys without saying whose they are', async () => {
      const tenant = await tenantWithAdminEmail();
      const revoked = await createKey(app, tenant.key, 'read');
      const list = await client(app.url, tenant.key)('GET', '/v1/auth/keys');
      const id = list.body.find((k: { role: string }) => k.role === 'read').id as string;
      assert.equal((await client(app.url, tenant.key)('DELETE', `/v1/auth/keys/${id}`)).status, 204);
      const unknown = `lore_${'x'.repeat(43)}`;
      const res = await report([
        { token: unknown, type: 'lore_api_key', url: 'https://example.test/a' },
        { token: 'not a key at all', type: 'lore_api_key' },
        { token: revoked, type: 'lore_api_key', url: 'https://example.test/b' },
      ]);
      assert.equal(res.status, 200);
      const body = (await res.json()) as object[];
      assert.deepEqual(body, [
        { token_raw: unknown, token_type: 'lore_api_key', label: 'false_positive' },
        { token_raw: 'not a key at all', token_type: 'lore_api_key', label: 'false_positive' },
        { token_raw: revoked, token_type: 'lore_api_key', label: 'true_positive' },
      ]);
      assert.ok(!JSON.stringify(body).includes(tenant.id));
      const { rows } = await app.db.query<{ revoked: boolean }>('SELECT revoked FROM leaked_key_reports WHERE tenant_id = $1', [tenant.id]);
      assert.deepEqual(rows, [{ revoked: false }], 'a key revoked before is recorded, not revoked again');
    });

    it('refuses a missing, malformed or wrong signature, and a key it does not know, before reading the body', async () => {
      const tenant = await tenantWithAdminEmail();
      const matches = [{ token: tenant.key, type: 'lore_api_key' }];
      const unsigned = await fetch(`${app.url}${PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(matches) });
      assert.equal(unsigned.status, 401);
      assert.equal(((await unsigned.json()) as { error: string }).error, 'invalid_signature');
      assert.equal((await report(matches, current, { 'github-public-key-signature': 'bm90IGEgc2lnbmF0dXJl' })).status, 401);
      assert.equal((await report(matches, current, { 'github-public-key-signature': '%%%' })).status, 401);
      const stranger = signingKey(current.id);
      assert.equal((await report(matches, stranger)).status, 401, 'signed by another key under the same id');
      const requestsBefore = github.requests();
      assert.equal((await report(matches, signingKey(`unknown-${randomUUID()}`))).status, 401);
      assert.ok(github.requests() <= requestsBefore + 1, 'an unknown key id refetches the list at most once');
      // A body changed after signing fails too.
      const body = Buffer.from(JSON.stringify(matches));
      const tampered = await fetch(`${app.url}${PATH}`, {
        method: 'POST',
        headers: { 'github-public-key-identifier': current.id, 'github-public-key-signature': sign('sha256', body, current.privateKey).toString('base64') },
        body: JSON.stringify([{ token: tenant.key, type: 'other' }]),
      });
      assert.equal(tampered.status, 401);
      assert.equal((await client(app.url, tenant.key)('GET', '/v1/knowledge-bases')).status, 200, 'nothing was revoked');
    });

    it('validates a signed body: a JSON array of at most 1000 matches', async () => {
      assert.equal((await report({ token: 'x' } as unknown as object[])).status, 422);
      assert.equal((await report([])).status, 422);
      assert.equal((await report([{ type: 'lore_api_key' }])).status, 422);
    });

    it('picks up a rotated key: an unknown key id refetches the published keys', async () => {
      const next = signingKey(`k-${randomUUID()}`);
      published.push(next.published);
      const tenant = await tenantWithAdminEmail();
      const res = await report([{ token: tenant.key, type: 'lore_api_key' }], next);
      assert.equal(res.status, 200);
      assert.equal((await client(app.url, tenant.key)('GET', '/v1/knowledge-bases')).status, 401);
    });
  });
}

describe('GitHubSignatureVerifier with a key file (offline installations)', () => {
  it('verifies against the keys of a file in the published format', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'lore-keys-'));
    try {
      const key = signingKey('file-key');
      const file = path.join(dir, 'keys.json');
      await writeFile(file, JSON.stringify({ public_keys: [key.published] }));
      const verifier = new GitHubSignatureVerifier({ url: 'http://127.0.0.1:9/unreachable', file });
      const body = Buffer.from('[]');
      assert.equal(await verifier.verify(body, 'file-key', sign('sha256', body, key.privateKey).toString('base64')), true);
      assert.equal(await verifier.verify(Buffer.from('[1]'), 'file-key', sign('sha256', body, key.privateKey).toString('base64')), false);
      assert.equal(await verifier.verify(body, 'other', sign('sha256', body, key.privateKey).toString('base64')), false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
