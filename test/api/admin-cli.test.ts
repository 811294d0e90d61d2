import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runCli, startServerProcess, stopServerProcess } from '../support/process.js';

/** The CLI's failure: its exit status and what it printed on stderr. */
async function failure(promise: Promise<unknown>): Promise<{ code: number; stderr: string }> {
  try {
    await promise;
  } catch (err) {
    const { code, stderr } = err as { code: number; stderr: string };
    return { code, stderr };
  }
  throw new Error('the command succeeded');
}

/** A token by the client credentials grant, as docs/mcp-oauth.md's step 2 gets one. */
function token(url: string, clientId: string, secret: string): Promise<Response> {
  return fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&scope=mcp:write',
  });
}

describe('the tenant and OAuth client CLI (docs/mcp-oauth.md from the command line)', function () {
  this.timeout(300_000);
  let dir: string;
  let env: Record<string, string>;
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'lore-admin-cli-'));
    env = { DATA_DIR: path.join(dir, 'data') };
  });
  after(() => fs.rm(dir, { recursive: true, force: true }));

  const cli = async (...args: string[]) => JSON.parse((await runCli(args, env)).stdout);

  it("prints the API's field messages for invalid input, the same directly and through the server, and exits 1", async () => {
    const args = ['tenant', 'create', '--name', 'Acme', '--plan', 'gold', '--email', 'not-an-address'];
    // No server runs yet: the CLI opens the database itself.
    const direct = await failure(runCli(args, env));
    assert.equal(direct.code, 1);
    const lines = direct.stderr.trim().split('\n');
    assert.equal(lines[0], 'validation_failed: The request is invalid.');
    assert.deepEqual(lines.slice(1).map((l) => l.split(': ')[0]).sort(), ['  body.email', '  body.plan']);
    assert.match(direct.stderr, /body\.plan: .*"free".*"enterprise"/);

    const server = await startServerProcess(env);
    try {
      assert.deepEqual(await failure(runCli(args, env)), direct);
      const scopes = await failure(runCli(['oauth-client', 'create', '--tenant', '00000000-0000-4000-8000-000000000000', '--name', 'x', '--scopes', 'mcp:everything'], env));
      assert.equal(scopes.code, 1);
      assert.match(scopes.stderr, /^validation_failed: The request is invalid\.\n {2}body\.scopes\.0: /);
      const unknown = await failure(runCli(['oauth-client', 'create', '--tenant', '00000000-0000-4000-8000-000000000000', '--name', 'x', '--scopes', 'mcp:read'], env));
      assert.equal(unknown.stderr.trim(), 'not_found: The tenant was not found.');
    } finally {
      await stopServerProcess(server);
    }
  });

  it('lists tenants and creates, lists and revokes OAuth clients, through the server and directly', async () => {
    const server = await startServerProcess(env);
    let clientId: string;
    let tenantId: string;
    try {
      const acme = await cli('tenant', 'create', '--name', 'Acme', '--plan', 'standard');
      const globex = await cli('tenant', 'create', '--name', 'Globex', '--plan', 'enterprise');
      const { tenants } = await cli('tenant', 'list');
      assert.deepEqual(
        tenants.map((t: { id: string; name: string; plan: string; status: string }) => [t.id, t.name, t.plan, t.status]),
        [
          [acme.id, 'Acme', 'standard', 'active'],
          [globex.id, 'Globex', 'enterprise', 'active'],
        ],
      );
      tenantId = acme.id;

      // docs/mcp-oauth.md, step 1 and 2: an OAuth client of the tenant, and a token with it.
      const created = await cli('oauth-client', 'create', '--tenant', tenantId, '--name', 'Research agent', '--scopes', 'mcp:write');
      assert.equal(created.tenant_id, tenantId);
      assert.deepEqual(created.scopes, ['mcp:write']);
      assert.match(created.client_secret, /^lore_cs_/);
      clientId = created.client_id;
      const granted = await token(server.url, clientId, created.client_secret);
      assert.equal(granted.status, 200);
      assert.equal(((await granted.json()) as { scope: string }).scope, 'mcp:write');

      const listed = await cli('oauth-client', 'list', tenantId);
      assert.deepEqual(listed.map((c: { client_id: string; name: string }) => [c.client_id, c.name]), [[clientId, 'Research agent']]);
      assert.ok(!('client_secret' in listed[0]));
      const iat = await cli('oauth-client', 'initial-access-token', '--tenant', tenantId, '--scopes', 'mcp:read', '--expires-in', '600');
      assert.match(iat.initial_access_token, /^lore_iat_/);
      assert.deepEqual(iat.scopes, ['mcp:read']);

      assert.deepEqual(await cli('oauth-client', 'revoke', clientId), { revoked: clientId });
      assert.equal((await token(server.url, clientId, created.client_secret)).status, 401);
    } finally {
      await stopServerProcess(server);
    }
    // Without a server, the same commands open the database themselves.
    assert.equal((await cli('tenant', 'list')).tenants.length, 2);
    const again = await cli('oauth-client', 'create', '--tenant', tenantId, '--name', 'Second agent', '--scopes', 'mcp:read,mcp:admin');
    assert.deepEqual(again.scopes, ['mcp:read', 'mcp:admin']);
    assert.deepEqual((await cli('oauth-client', 'list', tenantId)).map((c: { name: string }) => c.name), ['Second agent']);
    const revoked = await failure(runCli(['oauth-client', 'revoke', clientId], env));
    assert.equal(revoked.stderr.trim(), 'not_found: The OAuth client was not found.');
  });

  it('documents the commands in --help', async () => {
    const { stdout } = await runCli(['--help'], env);
    for (const command of ['tenant list', 'oauth-client create --tenant ID', 'oauth-client list TENANT_ID', 'oauth-client revoke CLIENT_ID', 'oauth-client initial-access-token']) {
      assert.ok(stdout.includes(command), command);
    }
  });
});
