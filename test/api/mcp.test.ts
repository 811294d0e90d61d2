import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SignJWT, decodeJwt, decodeProtectedHeader, generateKeyPair } from 'jose';
import * as oauth from 'oauth4webapi';
import { TEST_ADMIN_TOKEN, type TestApp, client, createTenant, ingest, startTestApp } from '../support/app.js';
import { TestClock } from '../support/clock.js';
import { pollUntil } from '../support/poll.js';
import { JwksTokenVerifier } from '../../core/adapters/jwks.token-verifier.js';
import { startExternalIssuer } from '../support/external-issuer.js';
import { testDatabases } from '../support/databases.js';
import {
  MCP_TRANSPORTS,
  type McpScope,
  callTool,
  connectMcp,
  discover,
  fetchAccessToken,
  insecure,
  politeFetch,
  registerOAuthClient,
  toolErrorText,
} from '../support/oauth.js';

const READ_TOOLS = ['search', 'list_knowledge_bases', 'list_documents', 'get_job'];
const WRITE_TOOLS = [...READ_TOOLS, 'ingest_document', 'create_knowledge_base', 'rename_knowledge_base'];
const ADMIN_TOOLS = [...WRITE_TOOLS, 'list_api_keys', 'create_api_key', 'revoke_api_key'];

/** A JSON-RPC message posted by hand, to look at HTTP-level answers (status, challenge) no SDK exposes. */
function rawPost(app: TestApp, token: string | undefined, body: unknown, options: { path?: string; headers?: Record<string, string> } = {}) {
  return politeFetch(app.url + (options.path ?? '/mcp'), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...options.headers,
    },
    body: JSON.stringify(body),
  });
}

const listTools = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
const callIngest = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ingest_document', arguments: {} } };

async function errorOf(res: Response): Promise<{ status: number; challenge: string; error: string; description: string }> {
  const body = (await res.json()) as { error: string; error_description: string };
  return { status: res.status, challenge: res.headers.get('www-authenticate') ?? '', error: body.error, description: body.error_description };
}

/** The MCP client rejected because the server answered the HTTP request with `status`. */
async function rejectsWithStatus(promise: Promise<unknown>, status: number): Promise<void> {
  await assert.rejects(promise, (err: { code?: unknown; message?: string }) => {
    assert.ok(err.code === status || new RegExp(`HTTP ${status}\\b`).test(err.message ?? ''), `${String(err.code)} ${err.message}`);
    return true;
  });
}

async function waitForJobViaMcp(mcp: Client, jobId: string): Promise<any> {
  let job: any;
  return pollUntil(
    `job ${jobId} to complete or fail (get_job)`,
    async () => {
      job = await callTool(mcp, 'get_job', { job_id: jobId });
      return job.status === 'completed' || job.status === 'failed' ? job : undefined;
    },
    { lastSeen: () => `status ${job?.status}` },
  );
}

/** Opens an HTTP+SSE stream by hand; answers its message endpoint and the controller that closes it. */
async function openSse(app: TestApp, token: string): Promise<{ controller: AbortController; endpoint: string }> {
  const controller = new AbortController();
  const stream = await politeFetch(`${app.url}/mcp/sse`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal: controller.signal });
  assert.equal(stream.status, 200);
  const reader = stream.body!.getReader();
  let text = '';
  while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
  return { controller, endpoint: /data: (\S+)/.exec(text)![1]! };
}

async function tokenOf(app: TestApp, tenantId: string, scopes: McpScope[]): Promise<string> {
  return (await fetchAccessToken(app.url, await registerOAuthClient(app, tenantId, scopes))).access_token;
}

for (const database of testDatabases()) {
  describe(`MCP endpoint [${database.name}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(await database.get());
    });
    after(() => app.close());

    describe('authentication', () => {
      it('answers 401 with a Bearer challenge naming the protected-resource metadata, on every MCP path', async () => {
        const metadata = `${app.url}/.well-known/oauth-protected-resource/mcp`;
        for (const [method, path] of [
          ['POST', '/mcp'],
          ['GET', '/mcp/sse'],
          ['POST', '/mcp/message?sessionId=x'],
        ]) {
          const res = await politeFetch(app.url + path, { method, headers: method === 'POST' ? { 'content-type': 'application/json' } : {}, body: method === 'POST' ? '{}' : undefined });
          const err = await errorOf(res);
          assert.equal(err.status, 401, path);
          assert.equal(err.challenge, `Bearer realm="lore", resource_metadata="${metadata}"`, path);
          assert.match(err.description, /\/oauth\/token/);
        }
        const prm = (await (await politeFetch(metadata)).json()) as { resource: string; authorization_servers: string[] };
        assert.equal(prm.resource, `${app.url}/mcp`);
        assert.deepEqual(prm.authorization_servers, [app.url]);
      });

      it('refuses API keys, client secrets, malformed headers and tokens in the URL', async () => {
        const t = await createTenant(app);
        const credentials = await registerOAuthClient(app, t.id, ['mcp:admin']);
        for (const token of [t.key, credentials.client_secret, 'a.b.c', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.']) {
          const err = await errorOf(await rawPost(app, token, listTools));
          assert.equal(err.status, 401, token);
          assert.equal(err.error, 'invalid_token');
          assert.match(err.challenge, /^Bearer realm="lore", error="invalid_token", error_description="[^"]+", resource_metadata="/);
        }
        assert.match((await errorOf(await rawPost(app, t.key, listTools))).description, /does not accept API keys/);
        const basic = await errorOf(await rawPost(app, undefined, listTools, { headers: { authorization: `Basic ${t.key}` } }));
        assert.equal(basic.status, 401);
        const token = (await fetchAccessToken(app.url, credentials)).access_token;
        const inUrl = await errorOf(await rawPost(app, undefined, listTools, { path: `/mcp?access_token=${token}` }));
        assert.equal(inUrl.status, 400);
        assert.equal(inUrl.error, 'invalid_request');
        await rejectsWithStatus(connectMcp(app, 'streamable-http', { token: t.key }), 401);
        await rejectsWithStatus(connectMcp(app, 'sse', { token: t.key }), 401);
      });

      it('refuses a token signed with another key, and a token for another audience', async () => {
        const t = await createTenant(app);
        const credentials = await registerOAuthClient(app, t.id, ['mcp:read']);
        const genuine = (await fetchAccessToken(app.url, credentials)).access_token;
        assert.equal((await rawPost(app, genuine, listTools)).status, 200);

        const { privateKey } = await generateKeyPair('ES256');
        const forged = await new SignJWT(decodeJwt(genuine)).setProtectedHeader(decodeProtectedHeader(genuine) as { alg: string }).sign(privateKey);
        const bad = await errorOf(await rawPost(app, forged, listTools));
        assert.equal(bad.status, 401);
        assert.match(bad.description, /signature/);

        // Another deployment that shares the issuer and its key but serves another MCP endpoint.
        const other = await startTestApp(await database.get(), { env: { AUTH_URL: app.url, MCP_URL: 'https://mcp.other.example' } });
        try {
          const as = await discover(app.url);
          const viaOther = { ...insecure, [oauth.customFetch]: (url: string, init: RequestInit) => politeFetch(url.replace(app.url, other.url), init) };
          const response = await oauth.clientCredentialsGrantRequest(
            as,
            { client_id: credentials.client_id },
            oauth.ClientSecretBasic(credentials.client_secret),
            new URLSearchParams(),
            viaOther,
          );
          const token = (await oauth.processClientCredentialsResponse(as, { client_id: credentials.client_id }, response)).access_token;
          assert.equal(decodeJwt(token).iss, app.url);
          assert.equal(decodeJwt(token).aud, 'https://mcp.other.example/mcp');
          const wrongAudience = await errorOf(await rawPost(app, token, listTools));
          assert.equal(wrongAudience.status, 401);
          assert.match(wrongAudience.description, /wrong audience/);
        } finally {
          await other.close();
        }
        // The MCP server's base URL is an audience of this resource too (RFC 9728 root metadata).
        const forServer = (await fetchAccessToken(app.url, credentials, { resource: app.url })).access_token;
        assert.equal((await rawPost(app, forServer, listTools)).status, 200);
      });

      it('refuses a revoked token at once, and every token of an application support revoked', async () => {
        const t = await createTenant(app);
        const credentials = await registerOAuthClient(app, t.id, ['mcp:read']);
        for (const kind of MCP_TRANSPORTS) {
          const token = (await fetchAccessToken(app.url, credentials)).access_token;
          const mcp = await connectMcp(app, kind, { token });
          await callTool(mcp, 'list_knowledge_bases');
          const as = await discover(app.url);
          await oauth.processRevocationResponse(
            await oauth.revocationRequest(as, { client_id: credentials.client_id }, oauth.ClientSecretPost(credentials.client_secret), token, insecure),
          );
          await rejectsWithStatus(callTool(mcp, 'list_knowledge_bases'), 401);
          assert.match((await errorOf(await rawPost(app, token, listTools))).description, /revoked/);
          await mcp.close();
        }
        const tokens = [(await fetchAccessToken(app.url, credentials)).access_token, (await fetchAccessToken(app.url, credentials)).access_token];
        const provided = await connectMcp(app, 'streamable-http', { credentials });
        await callTool(provided, 'list_knowledge_bases');
        assert.equal((await client(app.url, TEST_ADMIN_TOKEN)('DELETE', `/internal/v1/oauth-clients/${credentials.client_id}`)).status, 204);
        for (const token of tokens) assert.equal((await rawPost(app, token, listTools)).status, 401);
        // The SDK tries to get a new token, and the revoked application cannot.
        await assert.rejects(callTool(provided, 'list_knowledge_bases'));
        await provided.close();
      });

      it('refuses requests from another origin (DNS rebinding)', async () => {
        const t = await createTenant(app);
        const token = await tokenOf(app, t.id, ['mcp:read']);
        const res = await rawPost(app, token, listTools, { headers: { origin: 'https://evil.example' } });
        assert.equal(res.status, 403);
        assert.equal((await rawPost(app, token, listTools, { headers: { origin: app.url } })).status, 200);
      });

      it('answers a tool call beyond the token scopes with 403 insufficient_scope and the scope needed', async () => {
        const t = await createTenant(app);
        const token = await tokenOf(app, t.id, ['mcp:read']);
        for (const path of ['/mcp', '/mcp/message?sessionId=any']) {
          const err = await errorOf(await rawPost(app, token, callIngest, { path }));
          assert.equal(err.status, 403, path);
          assert.equal(err.error, 'insufficient_scope');
          assert.match(err.challenge, /^Bearer realm="lore", error="insufficient_scope", error_description="[^"]+", scope="mcp:write", resource_metadata="/);
        }
        const writer = await tokenOf(app, t.id, ['mcp:write']);
        const admin = await errorOf(
          await rawPost(app, writer, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'create_api_key', arguments: {} } }),
        );
        assert.equal(admin.status, 403);
        assert.match(admin.challenge, /scope="mcp:admin"/);
      });
    });

    describe('external issuer (Keycloak topology)', () => {
      it('accepts tokens of an external issuer verified through its JWKS, with the same tools and isolation', async () => {
        const keycloak = await startExternalIssuer();
        const external = await startTestApp(await database.get(), {
          adapters: { tokenVerifier: new JwksTokenVerifier(keycloak.jwksUrl, keycloak.issuer) },
        });
        try {
          const prm = (await (await politeFetch(`${external.url}/.well-known/oauth-protected-resource/mcp`)).json()) as { authorization_servers: string[] };
          assert.deepEqual(prm.authorization_servers, [keycloak.issuer]);
          const t = await createTenant(external);
          const kb = (await client(external.url, t.key)('POST', '/v1/knowledge-bases', { name: 'Shared' })).body.id;
          const claims = { azp: 'lore-agent', tenant_id: t.id, aud: `${external.url}/mcp`, scope: 'profile mcp:write' };
          const mcp = await connectMcp(external, 'streamable-http', { token: await keycloak.sign(claims) });
          assert.deepEqual((await mcp.listTools()).tools.map((x) => x.name).sort(), [...WRITE_TOOLS].sort());
          assert.deepEqual((await callTool(mcp, 'list_knowledge_bases')).knowledge_bases.map((k: { id: string }) => k.id), [kb]);
          await mcp.close();

          const other = await createTenant(external);
          const foreign = await connectMcp(external, 'sse', { token: await keycloak.sign({ ...claims, tenant_id: other.id }) });
          assert.deepEqual((await callTool(foreign, 'list_knowledge_bases')).knowledge_bases, []);
          await foreign.close();

          const refused: Array<[string, RegExp]> = [
            [await keycloak.sign({ ...claims, aud: 'account' }), /wrong audience/],
            [await keycloak.sign({ ...claims, tenant_id: '00000000-0000-4000-8000-000000000000' }), /unknown tenant/],
            [await keycloak.sign({ ...claims, scope: 'profile email' }), /none of the scopes/],
            [await keycloak.sign(claims, { kid: 'rotated-away' }), /unknown key/],
            [await keycloak.sign(claims, { expiresIn: -10 }), /expired/],
            // A token of Lore's own issuer is not one of the external issuer's.
            [await tokenOf(external, t.id, ['mcp:read']), /signed with an unknown key|not issued by/],
          ];
          for (const [token, reason] of refused) {
            const err = await errorOf(await rawPost(external, token, listTools));
            assert.equal(err.status, 401);
            assert.match(err.description, reason);
          }
        } finally {
          await external.close();
          await keycloak.close();
        }
      });
    });

    describe('expiry', () => {
      it('refuses a token after 15 minutes; a client with the SDK provider gets a new one by itself', async () => {
        const clock = new TestClock();
        const timed = await startTestApp(await database.get(), { adapters: { clock } });
        try {
          const t = await createTenant(timed);
          const credentials = await registerOAuthClient(timed, t.id, ['mcp:read']);
          for (const kind of MCP_TRANSPORTS) {
            const token = (await fetchAccessToken(timed.url, credentials)).access_token;
            const fixed = await connectMcp(timed, kind, { token });
            const renewing = await connectMcp(timed, kind, { credentials });
            await callTool(fixed, 'list_knowledge_bases');
            clock.advance(14 * 60_000 + 59_000);
            await callTool(fixed, 'list_knowledge_bases');
            clock.advance(1_000);
            await rejectsWithStatus(callTool(fixed, 'list_knowledge_bases'), 401);
            assert.match((await errorOf(await rawPost(timed, token, listTools))).description, /expired/);
            assert.deepEqual(await callTool(renewing, 'list_knowledge_bases'), { knowledge_bases: [] });
            await fixed.close();
            await renewing.close();
          }
        } finally {
          await timed.close();
        }
      });
    });

    for (const kind of MCP_TRANSPORTS) {
      describe(`over ${kind}`, () => {
        it('discovers the authorization server from the 401 and shows each scope only its tools', async () => {
          const t = await createTenant(app);
          for (const [scopes, expected] of [
            [['mcp:read'], READ_TOOLS],
            [['mcp:write'], WRITE_TOOLS],
            [['mcp:admin'], ADMIN_TOOLS],
            [['mcp:read', 'mcp:write'], WRITE_TOOLS],
          ] as Array<[McpScope[], string[]]>) {
            const mcp = await connectMcp(app, kind, { credentials: await registerOAuthClient(app, t.id, scopes) });
            const { tools } = await mcp.listTools();
            assert.deepEqual(tools.map((x) => x.name).sort(), [...expected].sort(), scopes.join(' '));
            assert.equal(mcp.getServerVersion()?.name, 'lore');
            for (const x of tools) {
              assert.equal(x.inputSchema.type, 'object', x.name);
              assert.equal(x.outputSchema?.type, 'object', x.name);
            }
            await mcp.close();
          }
          // A client allowed mcp:admin that asks for mcp:read gets the read tools only.
          const narrowed = await connectMcp(app, kind, { credentials: await registerOAuthClient(app, t.id, ['mcp:admin']), scope: 'mcp:read' });
          assert.deepEqual((await narrowed.listTools()).tools.map((x) => x.name).sort(), [...READ_TOOLS].sort());
          await rejectsWithStatus(narrowed.callTool({ name: 'create_knowledge_base', arguments: { name: 'x' } }), 403);
          await narrowed.close();
        });

        it('search uses the query parameters and returns the query result items', async () => {
          const t = await createTenant(app);
          const mcp = await connectMcp(app, kind, { credentials: await registerOAuthClient(app, t.id, ['mcp:read']) });
          const search = (await mcp.listTools()).tools.find((x) => x.name === 'search')!;
          const properties = Object.keys(search.inputSchema.properties ?? {}).sort();
          assert.deepEqual(properties, [
            'corpora', 'filters', 'knowledge_base_ids', 'metadata_filter', 'query', 'source_language', 'top_k', 'translate_response',
          ]);
          assert.deepEqual(search.inputSchema.required, ['query']);
          await mcp.close();
        });

        it('calls every tool through the same services as REST', async () => {
          const t = await createTenant(app);
          const mcp = await connectMcp(app, kind, { credentials: await registerOAuthClient(app, t.id, ['mcp:admin']) });

          const { id: kbId } = await callTool(mcp, 'create_knowledge_base', { name: 'Handbook', dimensions: 256 });
          assert.deepEqual(await callTool(mcp, 'rename_knowledge_base', { knowledge_base_id: kbId, name: ' Staff handbook ' }), { id: kbId, name: 'Staff handbook' });
          const rest = await client(app.url, t.key)('GET', '/v1/knowledge-bases');
          assert.deepEqual(rest.body.map((kb: { name: string; dimensions: number }) => [kb.name, kb.dimensions]), [['Staff handbook', 256]]);
          assert.deepEqual((await callTool(mcp, 'list_knowledge_bases')).knowledge_bases, rest.body);

          const ingested = await callTool(mcp, 'ingest_document', {
            knowledge_base_id: kbId,
            title: 'Holidays',
            content: 'Staff get twenty-five days of paid leave a year, plus public holidays.',
            tags: { team: 'hr' },
          });
          const job = await waitForJobViaMcp(mcp, ingested.job_id);
          assert.equal(job.status, 'completed');
          assert.equal(job.document_id, ingested.document_id);
          assert.equal((await client(app.url, t.key)('GET', `/v1/jobs/${ingested.job_id}`)).body.status, 'completed');
          const { documents } = await callTool(mcp, 'list_documents', { knowledge_base_id: kbId });
          assert.deepEqual(documents.map((d: { id: string; status: string }) => [d.id, d.status]), [[ingested.document_id, 'ready']]);

          const { results } = await callTool(mcp, 'search', { query: 'how many days of paid leave', top_k: 3, filters: { 'tags.team': 'hr' } });
          assert.equal(results[0].document_id, ingested.document_id);
          assert.equal(results[0].knowledge_base_id, kbId);
          assert.equal(results[0].source, 'tenant');
          assert.equal(results[0].document_title, 'Holidays');
          assert.match(results[0].content, /twenty-five days/);
          assert.ok(results[0].score > 0);

          const created = await callTool(mcp, 'create_api_key', { name: 'CI', role: 'read' });
          assert.match(created.key, /^lore_/);
          assert.equal((await client(app.url, created.key)('GET', '/v1/knowledge-bases')).status, 200);
          assert.ok((await callTool(mcp, 'list_api_keys')).api_keys.some((k: { id: string }) => k.id === created.id));
          assert.deepEqual(await callTool(mcp, 'revoke_api_key', { api_key_id: created.id }), { id: created.id, revoked: true });
          assert.equal((await client(app.url, created.key)('GET', '/v1/knowledge-bases')).status, 401);
          await mcp.close();
        });

        it('turns service and validation errors into tool errors that say what to do', async () => {
          const t = await createTenant(app, 'free');
          const mcp = await connectMcp(app, kind, { credentials: await registerOAuthClient(app, t.id, ['mcp:write']) });
          const missing = '00000000-0000-4000-8000-000000000000';
          assert.match(await toolErrorText(mcp, 'list_documents', { knowledge_base_id: missing }), /^not_found: .*list_knowledge_bases/);
          assert.match(await toolErrorText(mcp, 'get_job', { job_id: 'nope' }), /^not_found/);
          assert.match(
            await toolErrorText(mcp, 'ingest_document', { knowledge_base_id: 'kb-1', title: 'x', content: 'y' }),
            /^invalid_knowledge_base_id/,
          );
          assert.match(await toolErrorText(mcp, 'create_knowledge_base', { name: '' }), /validation|name/i);
          assert.match(await toolErrorText(mcp, 'search', { query: 'x', top_k: 1000 }), /top_k/);
          await callTool(mcp, 'create_knowledge_base', { name: 'Only one on Free' });
          const limit = await toolErrorText(mcp, 'create_knowledge_base', { name: 'Second' });
          assert.match(limit, /^knowledge_base_limit_reached: .*Details: \{"limit":1,"current":1\}/);
          await mcp.close();
        });

        it("isolates tenants: B's token cannot see, search or change A's knowledge bases, documents, jobs or keys", async () => {
          const a = await createTenant(app);
          const b = await createTenant(app);
          const kb = (await client(app.url, a.key)('POST', '/v1/knowledge-bases', { name: 'A secrets' })).body.id;
          const doc = await ingest(app, a.key, { knowledge_base_id: kb, title: 'Merger', content: 'Project zanzibar merger closes in March.' });
          const aKeyId = (await client(app.url, a.key)('GET', '/v1/auth/keys')).body[0].id;

          const mcp = await connectMcp(app, kind, { credentials: await registerOAuthClient(app, b.id, ['mcp:admin']) });
          assert.deepEqual((await callTool(mcp, 'list_knowledge_bases')).knowledge_bases, []);
          assert.deepEqual((await callTool(mcp, 'search', { query: 'zanzibar merger' })).results, []);
          assert.match(await toolErrorText(mcp, 'search', { query: 'zanzibar', knowledge_base_ids: [kb] }), /^not_found/);
          assert.match(await toolErrorText(mcp, 'list_documents', { knowledge_base_id: kb }), /^not_found/);
          assert.match(await toolErrorText(mcp, 'get_job', { job_id: doc.jobId }), /^not_found/);
          assert.match(await toolErrorText(mcp, 'rename_knowledge_base', { knowledge_base_id: kb, name: 'Mine' }), /^not_found/);
          assert.match(await toolErrorText(mcp, 'ingest_document', { knowledge_base_id: kb, title: 'x', content: 'y' }), /^not_found/);
          assert.match(await toolErrorText(mcp, 'revoke_api_key', { api_key_id: aKeyId }), /^not_found/);
          assert.ok(!(await callTool(mcp, 'list_api_keys')).api_keys.some((k: { id: string }) => k.id === aKeyId));
          await mcp.close();
          assert.equal((await client(app.url, a.key)('GET', '/v1/knowledge-bases')).body[0].name, 'A secrets');
        });
      });
    }

    it('meters searches and applies the tenant query rate limit it shares with REST', async () => {
      const t = await createTenant(app);
      const patch = await client(app.url, TEST_ADMIN_TOKEN)('PATCH', `/internal/v1/tenants/${t.id}`, { limit_overrides: { query_rate_limit_per_min: 3 } });
      assert.equal(patch.status, 200);
      const mcp = await connectMcp(app, 'streamable-http', { credentials: await registerOAuthClient(app, t.id, ['mcp:read']) });
      await callTool(mcp, 'search', { query: 'anything' });
      const usage = await client(app.url, t.key)('GET', '/v1/usage');
      assert.equal(usage.body.queries_this_period.used, 1);
      const { rows } = await app.db.query<{ n: number }>("SELECT count(*)::int AS n FROM usage_events WHERE tenant_id = $1 AND event_type = 'query'", [t.id]);
      assert.deepEqual(rows, [{ n: 1 }]);

      assert.equal((await client(app.url, t.key, { strict: true })('POST', '/v1/query', { query: 'anything' })).status, 200);
      await callTool(mcp, 'search', { query: 'anything' });
      assert.match(await toolErrorText(mcp, 'search', { query: 'anything' }), /^rate_limit_exceeded: .*"retry_after":\d+/);
      assert.equal((await client(app.url, t.key, { strict: true })('POST', '/v1/query', { query: 'anything' })).status, 429);
      assert.equal((await client(app.url, t.key)('GET', '/v1/usage')).body.queries_this_period.used, 3);
      await mcp.close();
    });

    it('attributes searches to the end user of X-User-Id, as REST does', async () => {
      const t = await createTenant(app);
      const credentials = await registerOAuthClient(app, t.id, ['mcp:read']);
      const mcp = await connectMcp(app, 'streamable-http', { credentials }, { headers: { 'x-user-id': 'user-42' } });
      await callTool(mcp, 'search', { query: 'anything' });
      const { rows } = await app.db.query<{ user_id: string }>("SELECT user_id FROM usage_events WHERE tenant_id = $1 AND event_type = 'query'", [t.id]);
      assert.deepEqual(rows, [{ user_id: 'user-42' }]);
      const tooLong = await connectMcp(app, 'streamable-http', { credentials }, { headers: { 'x-user-id': 'u'.repeat(257) } });
      assert.match(await toolErrorText(tooLong, 'search', { query: 'anything' }), /^validation_failed.*x-user-id/);
      await mcp.close();
      await tooLong.close();
    });

    it('flags responses while the tenant has not accepted the current DPA, as REST does', async () => {
      const t = await createTenant(app);
      const seen: Array<string | null> = [];
      const mcp = await connectMcp(app, 'streamable-http', { credentials: await registerOAuthClient(app, t.id, ['mcp:read']) }, {
        onResponse: (response) => {
          if (new URL(response.url).pathname === '/mcp' && response.ok) seen.push(response.headers.get('x-dpa-action-required'));
        },
      });
      await callTool(mcp, 'list_knowledge_bases');
      assert.equal(seen.at(-1), 'DPA re-acceptance required');
      assert.equal((await client(app.url, t.key)('POST', '/v1/dpa/accept', { version: 1 })).status, 200);
      await callTool(mcp, 'list_knowledge_bases');
      assert.equal(seen.at(-1), null);
      await mcp.close();
    });

    it('binds an SSE session to the application that opened it', async () => {
      const t = await createTenant(app);
      const owner = await tokenOf(app, t.id, ['mcp:read']);
      const stranger = await tokenOf(app, t.id, ['mcp:read']);
      const { controller, endpoint } = await openSse(app, owner);
      assert.match(endpoint, /^\/mcp\/message\?sessionId=[0-9a-f-]{36}$/);
      const initialize = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      };
      assert.equal((await rawPost(app, stranger, initialize, { path: endpoint })).status, 404);
      assert.equal((await rawPost(app, owner, initialize, { path: endpoint })).status, 202);
      controller.abort();
    });

    it('ends an SSE session whose client goes away, and keeps serving', async () => {
      const t = await createTenant(app);
      const token = await tokenOf(app, t.id, ['mcp:read']);
      const open = () => openSse(app, token);
      const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
      const gone = await open();
      assert.equal((await rawPost(app, token, ping, { path: gone.endpoint })).status, 202);
      gone.controller.abort();
      await pollUntil('the abandoned session to end', async () => (await rawPost(app, token, ping, { path: gone.endpoint })).status === 404);
      assert.equal((await fetch(`${app.url}/health/live`)).status, 200);
      const next = await open();
      assert.equal((await rawPost(app, token, ping, { path: next.endpoint })).status, 202);
      next.controller.abort();
    });

    it('refuses a message whose text is not UTF-8 with 422 and a parse error naming the field, on both transports, and runs nothing', async () => {
      const t = await createTenant(app);
      const credentials = await registerOAuthClient(app, t.id, ['mcp:write']);
      const token = (await fetchAccessToken(app.url, credentials)).access_token;
      const message = Buffer.concat([
        Buffer.from('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"create_knowledge_base","arguments":{"name":"m'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('"}}}'),
      ]);
      const sse = await openSse(app, token);
      for (const path of ['/mcp', sse.endpoint]) {
        const res = await politeFetch(app.url + path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
          body: message,
        });
        assert.equal(res.status, 422, path);
        const { error } = (await res.json()) as { error: { code: number; message: string; data: { error: string; fields: { field: string }[] } } };
        assert.equal(error.code, -32700, path);
        assert.equal(error.data.error, 'validation_failed');
        assert.deepEqual(error.data.fields.map((f) => f.field), ['body.params.arguments.name'], path);
      }
      sse.controller.abort();
      assert.deepEqual((await client(app.url, t.key)('GET', '/v1/knowledge-bases')).body, []);
      // X-User-Id arrives as bytes: the search tool refuses ones that are not UTF-8, as REST does.
      const notUtf8 = Buffer.from([0x75, 0xff]).toString('latin1');
      const mcp = await connectMcp(app, 'streamable-http', { credentials }, { headers: { 'x-user-id': notUtf8 } });
      assert.match(await toolErrorText(mcp, 'search', { query: 'anything' }), /^validation_failed.*header\.x-user-id/);
      await mcp.close();
      const { rows } = await app.db.query("SELECT 1 FROM usage_events WHERE tenant_id = $1 AND event_type = 'query'", [t.id]);
      assert.equal(rows.length, 0);
    });

    it('isolates sub-tenants: an application of a sub-tenant sees only that sub-tenant', async () => {
      const t = await createTenant(app, 'enterprise');
      const sub = await client(app.url, t.key)('POST', '/v1/sub-tenants', { name: 'Team A' });
      assert.equal(sub.status, 201, JSON.stringify(sub.body));
      const parentKb = (await client(app.url, t.key)('POST', '/v1/knowledge-bases', { name: 'Parent only' })).body.id;
      await ingest(app, t.key, { knowledge_base_id: parentKb, title: 'Board', content: 'The board meets on quarterly zanzibar days.' });

      const refused = await client(app.url, TEST_ADMIN_TOKEN)('POST', '/internal/v1/oauth-clients', {
        tenant_id: t.id,
        sub_tenant_id: sub.body.id,
        name: 'x',
        scopes: ['mcp:admin'],
      });
      assert.equal(refused.status, 422);
      const credentials = await registerOAuthClient(app, t.id, ['mcp:write'], { subTenantId: sub.body.id });
      assert.equal(decodeJwt((await fetchAccessToken(app.url, credentials)).access_token).sub_tenant_id, sub.body.id);

      const mcp = await connectMcp(app, 'streamable-http', { credentials });
      assert.deepEqual((await callTool(mcp, 'list_knowledge_bases')).knowledge_bases, []);
      assert.match(await toolErrorText(mcp, 'list_documents', { knowledge_base_id: parentKb }), /^not_found/);
      assert.deepEqual((await callTool(mcp, 'search', { query: 'zanzibar board' })).results, []);
      const { id: subKb } = await callTool(mcp, 'create_knowledge_base', { name: 'Team A docs' });
      const ingested = await callTool(mcp, 'ingest_document', { knowledge_base_id: subKb, title: 'Team', content: 'Team A meets on zanzibar Mondays.' });
      assert.equal((await waitForJobViaMcp(mcp, ingested.job_id)).status, 'completed');
      const listed = (await callTool(mcp, 'list_knowledge_bases')).knowledge_bases;
      assert.deepEqual(listed.map((kb: { id: string; sub_tenant_id: string }) => [kb.id, kb.sub_tenant_id]), [[subKb, sub.body.id]]);
      const { results } = await callTool(mcp, 'search', { query: 'zanzibar' });
      assert.deepEqual([...new Set(results.map((r: { knowledge_base_id: string }) => r.knowledge_base_id))], [subKb]);
      await mcp.close();

      // The tenant's own application sees both.
      const parent = await connectMcp(app, 'streamable-http', { credentials: await registerOAuthClient(app, t.id, ['mcp:read']) });
      assert.equal((await callTool(parent, 'list_knowledge_bases')).knowledge_bases.length, 2);
      await parent.close();
    });
  });
}
