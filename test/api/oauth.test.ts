import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import { TEST_ADMIN_TOKEN, type TestApp, client, createTenant, startTestApp } from '../support/app.js';
import { TestClock } from '../support/clock.js';
import { testDatabases } from '../support/databases.js';
import { type OAuthClientCredentials, discover, fetchAccessToken, insecure, politeFetch, registerOAuthClient } from '../support/oauth.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SIGN_IN_UNAVAILABLE = /Interactive browser sign-in is not available/;

/** A hand-built token request, for the malformed requests no OAuth library would send. */
async function tokenRequest(app: TestApp, form: Record<string, string | string[]>, headers: Record<string, string> = {}) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) for (const value of Array.isArray(v) ? v : [v]) body.append(k, value);
  const res = await politeFetch(`${app.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body,
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

function basic(credentials: OAuthClientCredentials, secret = credentials.client_secret): string {
  return `Basic ${Buffer.from(`${credentials.client_id}:${secret}`).toString('base64')}`;
}

/** The OAuth error an oauth4webapi call was answered with. */
async function oauthErrorOf(promise: Promise<unknown>): Promise<{ error: string; description: string | undefined; status: number }> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof oauth.ResponseBodyError) return { error: err.error, description: err.error_description, status: err.status };
    if (err instanceof oauth.WWWAuthenticateChallengeError) {
      const body = (await err.response.json()) as { error: string; error_description?: string };
      return { error: body.error, description: body.error_description, status: err.status };
    }
    throw err;
  }
  throw new Error('expected an OAuth error');
}

for (const database of testDatabases()) {
  describe(`OAuth authorization server [${database.name}]`, () => {
    let app: TestApp;
    const clock = new TestClock();
    before(async () => {
      app = await startTestApp(await database.get(), { adapters: { clock } });
    });
    after(() => app.close());

    describe('discovery', () => {
      it('serves RFC 8414 metadata whose issuer is exactly the URL it was fetched from', async () => {
        const as = await discover(app.url);
        assert.equal(as.issuer, app.url);
        assert.equal(as.token_endpoint, `${app.url}/oauth/token`);
        assert.equal(as.revocation_endpoint, `${app.url}/oauth/revoke`);
        assert.equal(as.registration_endpoint, `${app.url}/oauth/register`);
        assert.equal(as.jwks_uri, `${app.url}/oauth/jwks`);
        assert.deepEqual(as.grant_types_supported, ['client_credentials']);
        assert.deepEqual(as.response_types_supported, []);
        assert.deepEqual(as.token_endpoint_auth_methods_supported, ['client_secret_basic', 'client_secret_post']);
        assert.deepEqual(as.revocation_endpoint_auth_methods_supported, ['client_secret_basic', 'client_secret_post']);
        assert.deepEqual(as.scopes_supported, ['mcp:read', 'mcp:write', 'mcp:admin']);
        assert.match(as.service_description as string, SIGN_IN_UNAVAILABLE);
        const docs = await politeFetch(as.service_documentation!);
        assert.equal(docs.status, 200);
        const text = await docs.text();
        assert.match(text, SIGN_IN_UNAVAILABLE);
        assert.ok(text.includes(`${app.url}/oauth/token`));
      });

      it('serves RFC 9728 metadata for the MCP server and for the MCP endpoint', async () => {
        for (const resource of [app.url, `${app.url}/mcp`]) {
          const url = new URL(resource);
          // oauth4webapi checks that `resource` is exactly the identifier the document was fetched for.
          const metadata = await oauth.processResourceDiscoveryResponse(url, await oauth.resourceDiscoveryRequest(url, insecure));
          assert.equal(metadata.resource, resource);
          assert.deepEqual(metadata.authorization_servers, [app.url]);
          assert.deepEqual(metadata.scopes_supported, ['mcp:read', 'mcp:write', 'mcp:admin']);
          assert.deepEqual(metadata.bearer_methods_supported, ['header']);
          assert.match(metadata.resource_description as string, SIGN_IN_UNAVAILABLE);
        }
        assert.equal((await politeFetch(`${app.url}/.well-known/oauth-protected-resource/other`)).status, 404);
      });

      it('uses the configured AUTH_URL and MCP_URL, which may differ from the REST base', async () => {
        const configured = await startTestApp(await database.get(), {
          env: { AUTH_URL: 'https://auth.lore.example/tenant-auth', MCP_URL: 'https://mcp.lore.example/' },
        });
        try {
          // The issuer has a path, so its metadata is at /.well-known/oauth-authorization-server/tenant-auth (RFC 8414 §3).
          const issuer = new URL('https://auth.lore.example/tenant-auth');
          // What a reverse proxy would do: /tenant-auth/* and /.well-known/* of both hosts reach this server.
          const toLocal = (url: string) =>
            url.replace('https://auth.lore.example/tenant-auth/', `${configured.url}/`).replace(/^https:\/\/(auth|mcp)\.lore\.example/, configured.url);
          const options = { ...insecure, [oauth.customFetch]: (url: string, init: RequestInit) => politeFetch(toLocal(url), init) };
          const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...options }));
          assert.equal(as.issuer, 'https://auth.lore.example/tenant-auth');
          assert.equal(as.token_endpoint, 'https://auth.lore.example/tenant-auth/oauth/token');
          assert.equal((await politeFetch(`${configured.url}/.well-known/oauth-authorization-server`)).status, 404);
          const prm = (await (await politeFetch(`${configured.url}/.well-known/oauth-protected-resource/mcp`)).json()) as { resource: string; authorization_servers: string[] };
          assert.equal(prm.resource, 'https://mcp.lore.example/mcp');
          assert.deepEqual(prm.authorization_servers, ['https://auth.lore.example/tenant-auth']);

          const t = await createTenant(configured);
          const credentials = await registerOAuthClient(configured, t.id, ['mcp:read']);
          const response = await oauth.clientCredentialsGrantRequest(
            as,
            { client_id: credentials.client_id },
            oauth.ClientSecretBasic(credentials.client_secret),
            new URLSearchParams(),
            options,
          );
          const token = await oauth.processClientCredentialsResponse(as, { client_id: credentials.client_id }, response);
          const claims = decodeJwt(token.access_token);
          assert.equal(claims.iss, 'https://auth.lore.example/tenant-auth');
          assert.equal(claims.aud, 'https://mcp.lore.example/mcp');

          const mcp = await politeFetch(`${configured.url}/mcp`, { method: 'POST' });
          assert.equal(mcp.status, 401);
          assert.match(mcp.headers.get('www-authenticate') ?? '', /resource_metadata="https:\/\/mcp\.lore\.example\/\.well-known\/oauth-protected-resource\/mcp"/);
        } finally {
          await configured.close();
        }
      });

      it('keeps OAuth and MCP out of the OpenAPI document', async () => {
        const doc = await client(app.url)('GET', '/v1/openapi.json');
        const paths = Object.keys(doc.body.paths as Record<string, unknown>);
        assert.ok(paths.length > 0);
        assert.ok(!paths.some((p) => p.startsWith('/oauth') || p.startsWith('/mcp') || p.startsWith('/.well-known') || p.includes('oauth')), paths.join());
      });
    });

    describe('token endpoint', () => {
      it('issues a signed 15-minute JWT for the MCP endpoint with jti, tenant and scope claims (client_secret_basic)', async () => {
        const t = await createTenant(app);
        const credentials = await registerOAuthClient(app, t.id, ['mcp:read', 'mcp:write']);
        const as = await discover(app.url);
        const response = await oauth.clientCredentialsGrantRequest(
          as,
          { client_id: credentials.client_id },
          oauth.ClientSecretBasic(credentials.client_secret),
          new URLSearchParams(),
          insecure,
        );
        assert.equal(response.headers.get('cache-control'), 'no-store');
        assert.equal(response.headers.get('pragma'), 'no-cache');
        const token = await oauth.processClientCredentialsResponse(as, { client_id: credentials.client_id }, response);
        assert.equal(token.token_type, 'bearer');
        assert.equal(token.expires_in, 900);
        assert.equal(token.scope, 'mcp:read mcp:write');

        const header = decodeProtectedHeader(token.access_token);
        assert.equal(header.alg, 'ES256');
        assert.equal(header.typ, 'at+jwt');
        const jwks = (await (await politeFetch(as.jwks_uri!)).json()) as { keys: Array<{ kid: string }> };
        assert.deepEqual(jwks.keys.map((k: { kid: string }) => k.kid), [header.kid]);
        assert.ok(!('d' in jwks.keys[0]!), 'the JWKS holds the public key only');
        const { payload } = await jwtVerify(token.access_token, createRemoteJWKSet(new URL(as.jwks_uri!)), {
          issuer: app.url,
          audience: `${app.url}/mcp`,
          currentDate: clock.now(),
        });
        assert.equal(payload.exp! - payload.iat!, 900);
        assert.match(payload.jti!, UUID);
        assert.equal(payload.client_id, credentials.client_id);
        assert.equal(payload.sub, credentials.client_id);
        assert.equal(payload.tenant_id, t.id);
        assert.equal(payload.sub_tenant_id, undefined);
        assert.equal(payload.scope, 'mcp:read mcp:write');
        const second = await fetchAccessToken(app.url, credentials);
        assert.notEqual(decodeJwt(second.access_token).jti, payload.jti);
      });

      it('accepts client_secret_post, and grants narrower scopes than the client holds', async () => {
        const t = await createTenant(app);
        const credentials = await registerOAuthClient(app, t.id, ['mcp:admin']);
        const token = await fetchAccessToken(app.url, credentials, { method: 'post', scope: 'mcp:read' });
        assert.equal(token.scope, 'mcp:read');
        assert.equal(decodeJwt(token.access_token).scope, 'mcp:read');
        const all = await fetchAccessToken(app.url, credentials, { method: 'post', scope: 'mcp:write mcp:read mcp:write' });
        assert.equal(all.scope, 'mcp:read mcp:write');
      });

      it('refuses form text that is not UTF-8 with invalid_request, and Basic credentials that are not UTF-8 with invalid_client', async () => {
        const t = await createTenant(app);
        const credentials = await registerOAuthClient(app, t.id, ['mcp:read']);
        const post = async (path: string, body: string | Buffer, headers: Record<string, string> = {}) => {
          const res = await politeFetch(`${app.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });
          return { status: res.status, body: (await res.json()) as Record<string, string> };
        };
        const form = `grant_type=client_credentials&client_id=${credentials.client_id}&client_secret=${credentials.client_secret}`;
        const refused: Array<[string, string | Buffer, RegExp]> = [
          ['/oauth/token', `${form}&scope=mcp%3Aread%FF`, /body\.scope must be valid UTF-8/],
          ['/oauth/token', Buffer.concat([Buffer.from(`${form}&scope=mcp:read`), Buffer.from([0xff])]), /body must be valid UTF-8/],
          ['/oauth/revoke', `client_id=${credentials.client_id}&client_secret=${credentials.client_secret}&token=a%C3%28`, /body\.token must be valid UTF-8/],
        ];
        for (const [path, body, description] of refused) {
          const res = await post(path, body);
          assert.equal(res.status, 400, `${path}: ${JSON.stringify(res.body)}`);
          assert.equal(res.body.error, 'invalid_request');
          assert.match(res.body.error_description!, description);
        }
        const basic = `Basic ${Buffer.concat([Buffer.from(`${credentials.client_id}:`), Buffer.from([0xff, 0xfe])]).toString('base64')}`;
        const wrongBytes = await post('/oauth/token', 'grant_type=client_credentials', { authorization: basic });
        assert.equal(wrongBytes.status, 401);
        assert.equal(wrongBytes.body.error, 'invalid_client');
        assert.match(wrongBytes.body.error_description!, /not UTF-8/);
      });

      it('refuses scopes beyond the client and unknown scopes with invalid_scope', async () => {
        const t = await createTenant(app);
        const credentials = await registerOAuthClient(app, t.id, ['mcp:read']);
        for (const scope of ['mcp:write', 'mcp:read mcp:admin', 'openid', 'MCP:READ']) {
          const err = await oauthErrorOf(fetchAccessToken(app.url, credentials, { scope }));
          assert.equal(err.error, 'invalid_scope', scope);
          assert.equal(err.status, 400);
        }
      });

      it('takes the RFC 8707 resource as the audience and refuses other resources with invalid_target', async () => {
        const t = await createTenant(app);
        const credentials = await registerOAuthClient(app, t.id, ['mcp:read']);
        assert.equal(decodeJwt((await fetchAccessToken(app.url, credentials, { resource: `${app.url}/mcp` })).access_token).aud, `${app.url}/mcp`);
        assert.equal(decodeJwt((await fetchAccessToken(app.url, credentials, { resource: `${app.url}/` })).access_token).aud, app.url);
        for (const resource of ['https://api.example.com/', `${app.url}/v1`, `${app.url}/mcp#x`, 'not a uri']) {
          const err = await oauthErrorOf(fetchAccessToken(app.url, credentials, { resource }));
          assert.equal(err.error, 'invalid_target', resource);
        }
      });

      it('answers RFC 6749 §5.2 errors for malformed requests', async () => {
        const t = await createTenant(app);
        const c = await registerOAuthClient(app, t.id, ['mcp:read']);
        const post = { client_id: c.client_id, client_secret: c.client_secret };
        const cases: Array<[Record<string, string | string[]>, Record<string, string>, number, string]> = [
          [{ ...post }, {}, 400, 'invalid_request'],
          [{ ...post, grant_type: 'password' }, {}, 400, 'unsupported_grant_type'],
          [{ ...post, grant_type: 'client_credentials', scope: ['mcp:read', 'mcp:read'] }, {}, 400, 'invalid_request'],
          [{ grant_type: 'client_credentials' }, {}, 401, 'invalid_client'],
          [{ grant_type: 'client_credentials', client_id: c.client_id }, {}, 401, 'invalid_client'],
          [{ grant_type: 'client_credentials', client_id: c.client_id, client_secret: 'wrong' }, {}, 401, 'invalid_client'],
          [{ grant_type: 'client_credentials', client_id: '00000000-0000-4000-8000-000000000000', client_secret: c.client_secret }, {}, 401, 'invalid_client'],
          [{ grant_type: 'client_credentials', client_secret: c.client_secret }, { authorization: basic(c) }, 400, 'invalid_request'],
          [{ grant_type: 'client_credentials' }, { authorization: `Bearer ${c.client_secret}` }, 401, 'invalid_client'],
        ];
        for (const [form, headers, status, error] of cases) {
          const res = await tokenRequest(app, form, headers);
          assert.equal(res.status, status, JSON.stringify(form));
          assert.equal(res.body.error, error, JSON.stringify(form));
          assert.equal(typeof res.body.error_description, 'string');
          assert.equal(res.headers.get('cache-control'), 'no-store');
        }
        const json = await politeFetch(`${app.url}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ grant_type: 'client_credentials', ...post }),
        });
        assert.equal(json.status, 400);
        assert.equal(((await json.json()) as { error: string }).error, 'invalid_request');
      });

      it('answers invalid_client with a Basic challenge when HTTP Basic was used, and without one otherwise', async () => {
        const t = await createTenant(app);
        const c = await registerOAuthClient(app, t.id, ['mcp:read']);
        const viaBasic = await tokenRequest(app, { grant_type: 'client_credentials' }, { authorization: basic(c, 'wrong') });
        assert.equal(viaBasic.status, 401);
        assert.equal(viaBasic.body.error, 'invalid_client');
        assert.match(viaBasic.headers.get('www-authenticate') ?? '', /^Basic realm="lore"/);
        const viaPost = await tokenRequest(app, { grant_type: 'client_credentials', client_id: c.client_id, client_secret: 'wrong' });
        assert.equal(viaPost.status, 401);
        assert.equal(viaPost.headers.get('www-authenticate'), null);
        // The library sees the same: a challenge for Basic.
        const err = await oauthErrorOf(fetchAccessToken(app.url, { ...c, client_secret: 'wrong' }));
        assert.equal(err.error, 'invalid_client');
        assert.equal(err.status, 401);
      });

      it('refuses the authorization code flow with the reason: interactive sign-in is unavailable', async () => {
        const res = await tokenRequest(app, { grant_type: 'authorization_code', code: 'x', redirect_uri: 'http://localhost/cb' });
        assert.equal(res.status, 400);
        assert.equal(res.body.error, 'unsupported_grant_type');
        assert.match(res.body.error_description, SIGN_IN_UNAVAILABLE);
        assert.equal((await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: 'x' })).body.error, 'unsupported_grant_type');

        const authorize = `${app.url}/oauth/authorize?response_type=code&client_id=x&redirect_uri=${encodeURIComponent('https://evil.example/cb')}`;
        const json = await politeFetch(authorize, { redirect: 'manual', headers: { accept: 'application/json' } });
        assert.equal(json.status, 400, 'no redirect to an unverified redirect_uri');
        const body = (await json.json()) as { error: string; error_description: string };
        assert.equal(body.error, 'unsupported_response_type');
        assert.match(body.error_description, SIGN_IN_UNAVAILABLE);
        const html = await politeFetch(authorize, { redirect: 'manual', headers: { accept: 'text/html' } });
        assert.equal(html.status, 400);
        assert.match(html.headers.get('content-type') ?? '', /text\/html/);
        assert.match(await html.text(), /Interactive browser sign-in is not available/);
      });

      it('rate-limits failed attempts per client and address: after six failures even the right secret waits', async () => {
        const t = await createTenant(app);
        const c = await registerOAuthClient(app, t.id, ['mcp:read']);
        const other = await registerOAuthClient(app, t.id, ['mcp:read']);
        for (let i = 0; i < 6; i++) {
          assert.equal((await tokenRequest(app, { grant_type: 'client_credentials' }, { authorization: basic(c, `wrong-${i}`) })).status, 401);
        }
        const limited = await tokenRequest(app, { grant_type: 'client_credentials' }, { authorization: basic(c) });
        assert.equal(limited.status, 429);
        assert.equal(limited.body.error, 'rate_limit_exceeded');
        assert.ok(Number(limited.headers.get('retry-after')) >= 1);
        // Another client from the same address is not locked out.
        assert.equal((await fetchAccessToken(app.url, other)).token_type, 'bearer');
      });
    });

    describe('revocation endpoint', () => {
      it('revokes a token of the calling client, answers 200 for unknown tokens, and refuses other clients\' tokens', async () => {
        const t = await createTenant(app);
        const c = await registerOAuthClient(app, t.id, ['mcp:read']);
        const other = await registerOAuthClient(app, t.id, ['mcp:read']);
        const as = await discover(app.url);
        const token = (await fetchAccessToken(app.url, c)).access_token;
        const revoke = async (credentials: OAuthClientCredentials, value: string) =>
          oauth.processRevocationResponse(
            await oauth.revocationRequest(as, { client_id: credentials.client_id }, oauth.ClientSecretBasic(credentials.client_secret), value, insecure),
          );
        assert.equal(await revoke(c, 'garbage'), undefined);
        const err = await oauthErrorOf(revoke(other, token));
        assert.equal(err.error, 'invalid_request');
        await revoke(c, token);
        await revoke(c, token);
        const { rows } = await app.db.query<{ client_id: string }>('SELECT client_id FROM oauth_revoked_tokens WHERE jti = $1', [decodeJwt(token).jti!]);
        assert.deepEqual(rows, [{ client_id: c.client_id }]);
        const unauthenticated = await politeFetch(`${app.url}/oauth/revoke`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token }),
        });
        assert.equal(unauthenticated.status, 401);
      });
    });

    describe('OAuth applications (internal admin API)', () => {
      it('registers an application with a secret shown once and stored only as a digest', async () => {
        const t = await createTenant(app);
        const admin = client(app.url, TEST_ADMIN_TOKEN);
        const res = await admin('POST', '/internal/v1/oauth-clients', { tenant_id: t.id, name: 'Claude agent', scopes: ['mcp:write', 'mcp:read'] });
        assert.equal(res.status, 201);
        assert.match(res.body.client_id, UUID);
        assert.match(res.body.client_secret, /^lore_cs_[A-Za-z0-9_-]{43}$/);
        assert.deepEqual(res.body.scopes, ['mcp:read', 'mcp:write']);
        assert.equal(res.body.tenant_id, t.id);
        assert.equal(res.body.sub_tenant_id, null);
        const { rows } = await app.db.query('SELECT * FROM oauth_clients WHERE id = $1', [res.body.client_id]);
        assert.ok(!JSON.stringify(rows).includes(res.body.client_secret.slice(8, 30)));
        const listed = await admin('GET', `/internal/v1/tenants/${t.id}/oauth-clients`);
        assert.equal(listed.status, 200);
        assert.deepEqual(listed.body.map((c: { client_id: string }) => c.client_id), [res.body.client_id]);
        assert.ok(!JSON.stringify(listed.body).includes(res.body.client_secret));
      });

      it('validates registrations: 422 for bad fields, 404 for an unknown tenant, 401 without the admin token', async () => {
        const t = await createTenant(app);
        const admin = client(app.url, TEST_ADMIN_TOKEN);
        for (const body of [
          { tenant_id: t.id, name: 'x', scopes: [] },
          { tenant_id: t.id, name: 'x', scopes: ['mcp:owner'] },
          { tenant_id: t.id, name: '', scopes: ['mcp:read'] },
          { tenant_id: t.id, scopes: ['mcp:read'] },
          { tenant_id: 'nope', name: 'x', scopes: ['mcp:read'] },
          { tenant_id: t.id, name: 'x', scopes: ['mcp:read'], extra: true },
        ]) {
          const res = await admin('POST', '/internal/v1/oauth-clients', body);
          assert.equal(res.status, 422, JSON.stringify(body));
        }
        const unknown = await admin('POST', '/internal/v1/oauth-clients', { tenant_id: '00000000-0000-4000-8000-000000000000', name: 'x', scopes: ['mcp:read'] });
        assert.equal(unknown.status, 404);
        const unknownSub = await admin('POST', '/internal/v1/oauth-clients', {
          tenant_id: t.id,
          sub_tenant_id: '00000000-0000-4000-8000-000000000000',
          name: 'x',
          scopes: ['mcp:read'],
        });
        assert.equal(unknownSub.status, 404);
        const anonymous = await client(app.url)('POST', '/internal/v1/oauth-clients', { tenant_id: t.id, name: 'x', scopes: ['mcp:read'] });
        assert.equal(anonymous.status, 401);
        const withApiKey = await client(app.url, t.key)('POST', '/internal/v1/oauth-clients', { tenant_id: t.id, name: 'x', scopes: ['mcp:read'] });
        assert.equal(withApiKey.status, 401);
      });

      it('revokes an application: it gets no more tokens; revoking again is 404', async () => {
        const t = await createTenant(app);
        const c = await registerOAuthClient(app, t.id, ['mcp:read']);
        await fetchAccessToken(app.url, c);
        const admin = client(app.url, TEST_ADMIN_TOKEN);
        assert.equal((await admin('DELETE', `/internal/v1/oauth-clients/${c.client_id}`)).status, 204);
        assert.equal((await oauthErrorOf(fetchAccessToken(app.url, c))).error, 'invalid_client');
        assert.equal((await admin('DELETE', `/internal/v1/oauth-clients/${c.client_id}`)).status, 404);
        assert.equal((await admin('DELETE', '/internal/v1/oauth-clients/not-a-uuid')).status, 404);
        assert.deepEqual((await admin('GET', `/internal/v1/tenants/${t.id}/oauth-clients`)).body, []);
      });

      it('deleting the account deletes its OAuth applications', async () => {
        const t = await createTenant(app);
        const c = await registerOAuthClient(app, t.id, ['mcp:read']);
        const res = await client(app.url, t.key)('DELETE', '/v1/account', undefined, { 'x-confirm-delete': 'DELETE_MY_ACCOUNT' });
        assert.equal(res.status, 202);
        const { rows } = await app.db.query('SELECT 1 FROM oauth_clients WHERE id = $1', [c.client_id]);
        assert.equal(rows.length, 0);
        assert.equal((await oauthErrorOf(fetchAccessToken(app.url, c))).error, 'invalid_client');
      });
    });

    describe('dynamic registration (RFC 7591)', () => {
      async function initialAccessToken(tenantId: string, body: Record<string, unknown> = {}): Promise<string> {
        const res = await client(app.url, TEST_ADMIN_TOKEN)('POST', '/internal/v1/oauth-initial-access-tokens', { tenant_id: tenantId, ...body });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        assert.match(res.body.initial_access_token, /^lore_iat_/);
        return res.body.initial_access_token as string;
      }

      async function register(metadata: Record<string, unknown>, token?: string) {
        const as = await discover(app.url);
        const response = await oauth.dynamicClientRegistrationRequest(as, metadata as Parameters<typeof oauth.dynamicClientRegistrationRequest>[1], { ...insecure, ...(token ? { initialAccessToken: token } : {}) });
        return oauth.processDynamicClientRegistrationResponse(response);
      }

      it('registers a client with an initial access token from support, once', async () => {
        const t = await createTenant(app);
        const iat = await initialAccessToken(t.id, { scopes: ['mcp:write'] });
        const registered = await register({ client_name: 'CI agent', grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_post' }, iat);
        assert.match(registered.client_id, UUID);
        assert.equal(registered.client_secret_expires_at, 0);
        assert.equal(registered.scope, 'mcp:write');
        assert.deepEqual(registered.grant_types, ['client_credentials']);
        assert.equal(registered.token_endpoint_auth_method, 'client_secret_post');
        const token = await fetchAccessToken(app.url, { client_id: registered.client_id, client_secret: registered.client_secret as string }, { method: 'post' });
        assert.equal(decodeJwt(token.access_token).tenant_id, t.id);
        const again = await oauthErrorOf(register({ client_name: 'Second' }, iat));
        assert.equal(again.status, 401);
        assert.equal(again.error, 'invalid_token');
        const listed = await client(app.url, TEST_ADMIN_TOKEN)('GET', `/internal/v1/tenants/${t.id}/oauth-clients`);
        assert.deepEqual(listed.body.map((c: { registered_by: string }) => c.registered_by), ['registration']);
      });

      it('has no open registration', async () => {
        const err = await oauthErrorOf(register({ client_name: 'Anyone' }));
        assert.equal(err.status, 401);
        assert.equal(err.error, 'invalid_token');
        assert.equal((await oauthErrorOf(register({ client_name: 'Anyone' }, 'lore_iat_guess'))).status, 401);
      });

      it('refuses metadata a client-credentials client cannot have, and keeps the token usable', async () => {
        const t = await createTenant(app);
        const iat = await initialAccessToken(t.id, { scopes: ['mcp:read'] });
        const refused: Array<[Record<string, unknown>, string]> = [
          [{ redirect_uris: ['https://app.example/cb'] }, 'invalid_redirect_uri'],
          [{ grant_types: ['authorization_code'] }, 'invalid_client_metadata'],
          [{ response_types: ['code'] }, 'invalid_client_metadata'],
          [{ token_endpoint_auth_method: 'none' }, 'invalid_client_metadata'],
          [{ scope: 'mcp:write' }, 'invalid_client_metadata'],
          [{ scope: 'profile' }, 'invalid_client_metadata'],
        ];
        for (const [metadata, error] of refused) {
          const err = await oauthErrorOf(register(metadata, iat));
          assert.equal(err.error, error, JSON.stringify(metadata));
          if (metadata.redirect_uris) assert.match(err.description ?? '', SIGN_IN_UNAVAILABLE);
        }
        assert.equal((await register({ client_name: 'Reader' }, iat)).scope, 'mcp:read');
      });

      it('refuses an expired initial access token', async () => {
        const t = await createTenant(app);
        const iat = await initialAccessToken(t.id, { expires_in: 60 });
        clock.advance(61_000);
        assert.equal((await oauthErrorOf(register({ client_name: 'Late' }, iat))).error, 'invalid_token');
      });
    });

    it('signs with the key in OAUTH_SIGNING_KEY_FILE when one is configured, and refuses an unusable file at start', async () => {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'lore-key-'));
      try {
        const t = await createTenant(app);
        const c = await registerOAuthClient(app, t.id, ['mcp:read']);
        for (const [type, alg] of [['ed25519', 'EdDSA'], ['rsa', 'RS256']] as const) {
          const file = path.join(dir, `${type}.pem`);
          const { privateKey } = type === 'rsa' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ed25519');
          await fs.writeFile(file, privateKey.export({ type: 'pkcs8', format: 'pem' }));
          const keyed = await startTestApp(await database.get(), { env: { OAUTH_SIGNING_KEY_FILE: file } });
          try {
            const token = (await fetchAccessToken(keyed.url, c)).access_token;
            assert.equal(decodeProtectedHeader(token).alg, alg);
            const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(`${keyed.url}/oauth/jwks`)), { issuer: keyed.url });
            assert.equal(payload.client_id, c.client_id);
          } finally {
            await keyed.close();
          }
        }
        const bad = path.join(dir, 'bad.pem');
        await fs.writeFile(bad, 'not a key');
        await assert.rejects(startTestApp(await database.get(), { env: { OAUTH_SIGNING_KEY_FILE: bad } }), /OAUTH_SIGNING_KEY_FILE/);
        await assert.rejects(startTestApp(await database.get(), { env: { OAUTH_SIGNING_KEY_FILE: path.join(dir, 'missing.pem') } }), /cannot read/);
      } finally {
        await fs.rm(dir, { recursive: true, force: true });
      }
    });

    it('keeps one signing key for every process on the database', async () => {
      const t = await createTenant(app);
      const c = await registerOAuthClient(app, t.id, ['mcp:read']);
      const other = await startTestApp(await database.get());
      try {
        const fromOther = await fetchAccessToken(other.url, c);
        const jwks = createRemoteJWKSet(new URL(`${app.url}/oauth/jwks`));
        const { payload } = await jwtVerify(fromOther.access_token, jwks, { issuer: other.url });
        assert.equal(payload.client_id, c.client_id);
        const { rows } = await app.db.query("SELECT count(*)::int AS n FROM instance_secrets WHERE name = 'oauth-signing-key'");
        assert.deepEqual(rows, [{ n: 1 }]);
      } finally {
        await other.close();
      }
    });
  });
}
