import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { JwksTokenVerifier } from '../../core/adapters/jwks.token-verifier.js';
import type { McpClientCredentials, McpClientSpec } from '../../operator/identity-provider.js';
import { KeycloakIdentityProvider } from '../../operator/keycloak.identity-provider.js';
import { type FakeKeycloak, type FakeKeycloakOptions, startFakeKeycloak } from '../support/fake-keycloak.server.js';

/**
 * KeycloakIdentityProvider driven against the FAKE Keycloak of test/support/fake-keycloak.server.ts
 * (a test double speaking Keycloak 26's Admin REST API and token endpoint, not Keycloak itself), with
 * the official admin client in between; its tokens go through Lore's real JwksTokenVerifier.
 */

const AUDIENCE = 'https://lore.example.com/mcp';
const MANAGED = 'lore.dev/managed-by';

async function clientToken(credentials: McpClientCredentials, scope?: string): Promise<{ status: number; body: any }> {
  const response = await fetch(credentials.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
      ...(scope ? { scope } : {}),
    }),
  });
  return { status: response.status, body: await response.json() };
}

/** A call to the fake's Admin REST API as another admin would make it, with the admin client's token. */
async function adminCall(keycloak: FakeKeycloak, method: string, path: string, body?: unknown): Promise<Response> {
  const login = await fetch(keycloak.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: keycloak.adminClientId, client_secret: keycloak.adminClientSecret }),
  });
  const { access_token: token } = (await login.json()) as { access_token: string };
  return fetch(`${keycloak.url}/admin/realms/${keycloak.realm}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

describe('KeycloakIdentityProvider against a fake Keycloak (test double)', () => {
  let fake: FakeKeycloak;
  let provider: KeycloakIdentityProvider;
  let n = 0;

  const providerFor = (keycloak: FakeKeycloak, overrides: { adminClientSecret?: string; realm?: string; adminRealm?: string } = {}) =>
    new KeycloakIdentityProvider({
      baseUrl: keycloak.url,
      realm: keycloak.realm,
      adminClientId: keycloak.adminClientId,
      adminClientSecret: keycloak.adminClientSecret,
      ...overrides,
    });
  const specFor = (overrides: Partial<McpClientSpec> = {}): McpClientSpec => {
    n++;
    return {
      clientId: `lore-mcp-${n}`,
      displayName: `Tenant ${n} (MCP)`,
      tenantId: randomUUID(),
      subTenantId: null,
      scopes: ['mcp:read', 'mcp:write'],
      audiences: [AUDIENCE],
      ...overrides,
    };
  };
  const clientOf = (keycloak: FakeKeycloak, clientId: string) => keycloak.clients().find((c) => c.clientId === clientId);
  const mcpScopes = (names: string[]) => names.filter((s) => s.startsWith('mcp:')).sort();
  const verify = (token: string, audiences = [AUDIENCE]) =>
    new JwksTokenVerifier(fake.jwksUrl, fake.issuer).verify(token, { issuer: 'ignored for an external issuer', audiences, now: new Date() });

  before(async () => {
    fake = await startFakeKeycloak();
    provider = providerFor(fake);
  });
  after(async () => {
    await fake.close();
  });

  it('creates the realm scopes and a confidential, service-account-only client with Lore’s mappers and default scopes', async () => {
    const spec = specFor();
    const { credentials, changed } = await provider.ensureClient(spec);
    assert.equal(changed, true);

    for (const name of ['mcp:read', 'mcp:write', 'mcp:admin']) {
      const scope = fake.clientScopes().find((s) => s.name === name);
      assert.ok(scope, `realm client scope ${name}`);
      assert.equal(scope.protocol, 'openid-connect');
      assert.equal(scope.attributes['include.in.token.scope'], 'true');
    }

    const client = clientOf(fake, spec.clientId);
    assert.ok(client);
    assert.deepEqual(
      {
        name: client.name,
        enabled: client.enabled,
        protocol: client.protocol,
        publicClient: client.publicClient,
        serviceAccountsEnabled: client.serviceAccountsEnabled,
        standardFlowEnabled: client.standardFlowEnabled,
        directAccessGrantsEnabled: client.directAccessGrantsEnabled,
        implicitFlowEnabled: client.implicitFlowEnabled,
        clientAuthenticatorType: client.clientAuthenticatorType,
      },
      {
        name: spec.displayName,
        enabled: true,
        protocol: 'openid-connect',
        publicClient: false,
        serviceAccountsEnabled: true,
        standardFlowEnabled: false,
        directAccessGrantsEnabled: false,
        implicitFlowEnabled: false,
        clientAuthenticatorType: 'client-secret',
      },
    );
    assert.equal(client.attributes[MANAGED], 'lore-operator');
    assert.equal(client.attributes['lore.dev/tenant-id'], spec.tenantId);

    const tenant = client.protocolMappers.find((m) => m.config['claim.name'] === 'tenant_id');
    assert.equal(tenant?.protocolMapper, 'oidc-hardcoded-claim-mapper');
    assert.equal(tenant.config['claim.value'], spec.tenantId);
    assert.equal(tenant.config['access.token.claim'], 'true');
    assert.equal(tenant.config['jsonType.label'], 'String');
    assert.ok(!client.protocolMappers.some((m) => m.config['claim.name'] === 'sub_tenant_id'));
    const audience = client.protocolMappers.filter((m) => m.protocolMapper === 'oidc-audience-mapper');
    assert.deepEqual(
      audience.map((m) => [m.config['included.custom.audience'], m.config['access.token.claim']]),
      [[AUDIENCE, 'true']],
    );

    assert.deepEqual(mcpScopes(client.defaultClientScopes), ['mcp:read', 'mcp:write']);
    // The realm's own defaults (e.g. `basic`, which gives `sub`) are left in place.
    assert.ok(client.defaultClientScopes.includes('basic'));
    assert.deepEqual(mcpScopes(client.optionalClientScopes), []);

    assert.deepEqual(credentials, { clientId: spec.clientId, clientSecret: client.secret, tokenUrl: fake.tokenUrl });
    assert.equal(credentials.tokenUrl, `${fake.url}/realms/${fake.realm}/protocol/openid-connect/token`);
  });

  it('writes nothing when the client already matches (changed: false)', async () => {
    const spec = specFor({ subTenantId: randomUUID(), audiences: [AUDIENCE, 'https://eu.lore.example.com/mcp'] });
    const first = await provider.ensureClient(spec);
    fake.resetRequests();
    const second = await provider.ensureClient(spec);
    assert.equal(second.changed, false);
    assert.deepEqual(fake.writes(), []);
    assert.ok(fake.requests.length > 0, 'it did read');
    assert.deepEqual(second.credentials, first.credentials);
  });

  it('issues tokens (client credentials) that Lore’s JwksTokenVerifier accepts with the right tenant and scopes', async () => {
    const spec = specFor({ scopes: ['mcp:read'] });
    const { credentials } = await provider.ensureClient(spec);
    const { status, body } = await clientToken(credentials);
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.token_type, 'Bearer');

    const claims = await verify(body.access_token);
    assert.equal(claims.tenantId, spec.tenantId);
    assert.equal(claims.subTenantId, null);
    assert.deepEqual(claims.scopes, ['mcp:read']);
    assert.equal(claims.clientId, spec.clientId);
    assert.deepEqual(claims.audience, [AUDIENCE]);

    await assert.rejects(verify(body.access_token, ['https://elsewhere.example.com/mcp']), /wrong audience/);
    const wrong = await clientToken({ ...credentials, clientSecret: 'not-the-secret' });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error, 'unauthorized_client');
  });

  it('adds the sub_tenant_id mapper for a sub-tenant and removes it when the spec drops it', async () => {
    const subTenantId = randomUUID();
    const spec = specFor({ subTenantId, scopes: ['mcp:read', 'mcp:write', 'mcp:admin'] });
    const { credentials } = await provider.ensureClient(spec);
    const claims = await verify((await clientToken(credentials)).body.access_token);
    assert.equal(claims.tenantId, spec.tenantId);
    assert.equal(claims.subTenantId, subTenantId);
    assert.deepEqual(claims.scopes, ['mcp:read', 'mcp:write', 'mcp:admin']);

    const dropped = await provider.ensureClient({ ...spec, subTenantId: null });
    assert.equal(dropped.changed, true);
    const client = clientOf(fake, spec.clientId);
    assert.ok(!client?.protocolMappers.some((m) => m.config['claim.name'] === 'sub_tenant_id'));
    assert.equal((await verify((await clientToken(credentials)).body.access_token)).subTenantId, null);
  });

  it('follows a change of the spec’s scopes and audiences', async () => {
    const spec = specFor();
    const { credentials } = await provider.ensureClient(spec);
    const other = 'https://eu.lore.example.com/mcp';
    const { changed } = await provider.ensureClient({ ...spec, scopes: ['mcp:admin'], audiences: [other] });
    assert.equal(changed, true);
    assert.deepEqual(mcpScopes(clientOf(fake, spec.clientId)!.defaultClientScopes), ['mcp:admin']);
    const token = (await clientToken(credentials)).body.access_token;
    assert.deepEqual((await verify(token, [other])).scopes, ['mcp:admin']);
    await assert.rejects(verify(token, [AUDIENCE]), /wrong audience/);
  });

  describe('drift', () => {
    it('recreates a client deleted outside (with a new secret)', async () => {
      const spec = specFor();
      const first = await provider.ensureClient(spec);
      fake.deleteClientOutside(spec.clientId);
      const second = await provider.ensureClient(spec);
      assert.equal(second.changed, true);
      assert.notEqual(second.credentials.clientSecret, first.credentials.clientSecret);
      assert.equal((await clientToken(first.credentials)).status, 401);
      const claims = await verify((await clientToken(second.credentials)).body.access_token);
      assert.equal(claims.tenantId, spec.tenantId);
    });

    it('puts back a tenant_id mapper whose tenant was changed outside, with one write', async () => {
      const spec = specFor();
      const { credentials } = await provider.ensureClient(spec);
      const mapper = clientOf(fake, spec.clientId)!.protocolMappers.find((m) => m.config['claim.name'] === 'tenant_id')!;
      fake.tamperClient(spec.clientId, { mapperConfig: { [mapper.name]: { 'claim.value': randomUUID() } } });
      fake.resetRequests();

      const { changed } = await provider.ensureClient(spec);
      assert.equal(changed, true);
      assert.deepEqual(
        fake.writes().map((r) => `${r.method} ${r.path}`),
        [`PUT /admin/realms/${fake.realm}/clients/${clientOf(fake, spec.clientId)!.id}/protocol-mappers/models/${mapper.id}`],
      );
      assert.equal((await verify((await clientToken(credentials)).body.access_token)).tenantId, spec.tenantId);
    });

    it('deletes a foreign mapper that emits tenant_id', async () => {
      const spec = specFor();
      const { credentials } = await provider.ensureClient(spec);
      fake.tamperClient(spec.clientId, {
        addMappers: [
          {
            name: 'legacy tenant',
            protocolMapper: 'oidc-hardcoded-claim-mapper',
            config: { 'claim.name': 'tenant_id', 'claim.value': randomUUID(), 'jsonType.label': 'String', 'access.token.claim': 'true' },
          },
        ],
      });
      assert.equal((await provider.ensureClient(spec)).changed, true);
      assert.ok(!clientOf(fake, spec.clientId)!.protocolMappers.some((m) => m.name === 'legacy tenant'));
      assert.equal((await verify((await clientToken(credentials)).body.access_token)).tenantId, spec.tenantId);
    });

    it('removes an mcp:admin scope added outside, as default or as optional (which a client could ask for)', async () => {
      const spec = specFor({ scopes: ['mcp:read'] });
      const { credentials } = await provider.ensureClient(spec);
      fake.tamperClient(spec.clientId, { addDefaultScopes: ['mcp:admin'] });
      assert.deepEqual((await verify((await clientToken(credentials)).body.access_token)).scopes, ['mcp:read', 'mcp:admin']);

      assert.equal((await provider.ensureClient(spec)).changed, true);
      assert.deepEqual(mcpScopes(clientOf(fake, spec.clientId)!.defaultClientScopes), ['mcp:read']);
      assert.deepEqual((await verify((await clientToken(credentials)).body.access_token)).scopes, ['mcp:read']);

      // Optional: granted to whoever asks for it. mcp:read moved to optional is not granted by default.
      fake.tamperClient(spec.clientId, { removeScopes: ['mcp:read'], addOptionalScopes: ['mcp:admin', 'mcp:read'] });
      const escalated = await clientToken(credentials, 'mcp:admin');
      assert.deepEqual((await verify(escalated.body.access_token)).scopes, ['mcp:admin']);

      assert.equal((await provider.ensureClient(spec)).changed, true);
      const client = clientOf(fake, spec.clientId)!;
      assert.deepEqual(mcpScopes(client.defaultClientScopes), ['mcp:read']);
      assert.deepEqual(mcpScopes(client.optionalClientScopes), []);
      assert.equal((await clientToken(credentials, 'mcp:admin')).body.error, 'invalid_scope');
      assert.deepEqual((await verify((await clientToken(credentials)).body.access_token)).scopes, ['mcp:read']);
    });

    it('repairs client settings and a realm scope changed outside', async () => {
      const spec = specFor();
      const { credentials } = await provider.ensureClient(spec);
      fake.tamperClient(spec.clientId, {
        client: { name: 'renamed', serviceAccountsEnabled: false, standardFlowEnabled: true, attributes: { 'lore.dev/tenant-id': randomUUID() } },
      });
      assert.equal((await clientToken(credentials)).status, 401);
      // mcp:write no longer put in the `scope` claim: every client's tokens would lose it.
      const write = fake.clientScopes().find((s) => s.name === 'mcp:write')!;
      const put = await adminCall(fake, 'PUT', `/client-scopes/${write.id}`, { name: 'mcp:write', attributes: { 'include.in.token.scope': 'false' } });
      assert.equal(put.status, 204);

      assert.equal((await provider.ensureClient(spec)).changed, true);
      assert.equal(fake.clientScopes().find((s) => s.name === 'mcp:write')?.attributes['include.in.token.scope'], 'true');
      const client = clientOf(fake, spec.clientId)!;
      assert.equal(client.name, spec.displayName);
      assert.equal(client.serviceAccountsEnabled, true);
      assert.equal(client.standardFlowEnabled, false);
      assert.equal(client.attributes['lore.dev/tenant-id'], spec.tenantId);
      assert.deepEqual((await verify((await clientToken(credentials)).body.access_token)).scopes, ['mcp:read', 'mcp:write']);
      assert.equal((await provider.ensureClient(spec)).changed, false);
    });

    it('leaves alone a client of the same clientId that Lore’s operator did not make', async () => {
      const spec = specFor();
      await provider.ensureClient(spec);
      fake.tamperClient(spec.clientId, { client: { name: 'someone else’s', attributes: { [MANAGED]: null } } });
      fake.resetRequests();
      await assert.rejects(provider.ensureClient(spec), /client "lore-mcp-\d+" exists .* not made by Lore's operator/);
      await assert.rejects(provider.deleteClient(spec.clientId), /not made by Lore's operator/);
      assert.deepEqual(fake.writes(), []);
      assert.equal(clientOf(fake, spec.clientId)?.name, 'someone else’s');
    });
  });

  it('deleteClient deletes the client, and an absent one is fine', async () => {
    const spec = specFor();
    const { credentials } = await provider.ensureClient(spec);
    await provider.deleteClient(spec.clientId);
    assert.equal(clientOf(fake, spec.clientId), undefined);
    assert.equal((await clientToken(credentials)).status, 401);
    fake.resetRequests();
    await provider.deleteClient(spec.clientId);
    assert.deepEqual(fake.writes(), []);
  });

  it('re-authenticates and retries once when an admin call gets 401', async () => {
    const spec = specFor();
    await provider.ensureClient(spec);
    fake.revokeAdminTokens();
    fake.resetRequests();
    assert.equal((await provider.ensureClient(spec)).changed, false);
    // The first admin call (answered 401), a token request, then the same call again.
    const [rejected, login, retried] = fake.requests;
    assert.ok(rejected?.path.startsWith('/admin/'));
    assert.equal(login?.path, `/realms/${fake.realm}/protocol/openid-connect/token`);
    assert.deepEqual(retried, rejected);
    assert.equal(fake.requests.filter((r) => r.path.endsWith('/protocol/openid-connect/token')).length, 1);
  });

  it('the fake’s Admin API wants the admin client’s token', async () => {
    const anonymous = await fetch(`${fake.url}/admin/realms/${fake.realm}/clients`);
    assert.equal(anonymous.status, 401);
    assert.deepEqual(await anonymous.json(), { error: 'HTTP 401 Unauthorized' });
    assert.equal((await adminCall(fake, 'GET', '/clients?clientId=nobody')).status, 200);
  });

  describe('with other fakes', () => {
    const started: FakeKeycloak[] = [];
    const start = async (options?: FakeKeycloakOptions) => {
      const keycloak = await startFakeKeycloak(options);
      started.push(keycloak);
      return keycloak;
    };
    after(async () => {
      await Promise.all(started.map((k) => k.close()));
    });

    it('authenticates again before the admin token expires', async () => {
      // Tokens shorter-lived than the provider's 30 s margin: a fresh one before every call, never a 401.
      const keycloak = await start({ adminTokenLifetimeSeconds: 20 });
      const shortLived = providerFor(keycloak);
      await shortLived.ensureClient(specFor());
      const tokens = keycloak.requests.filter((r) => r.path.endsWith('/protocol/openid-connect/token')).length;
      const admin = keycloak.requests.filter((r) => r.path.startsWith('/admin/')).length;
      assert.equal(tokens, admin);
    });

    it('uses an admin client of another realm (e.g. master)', async () => {
      const keycloak = await start({ adminRealm: 'master' });
      const spec = specFor();
      const { credentials } = await providerFor(keycloak, { adminRealm: 'master' }).ensureClient(spec);
      assert.ok(keycloak.requests.some((r) => r.method === 'POST' && r.path === '/realms/master/protocol/openid-connect/token'));
      assert.equal(credentials.tokenUrl, keycloak.tokenUrl);
      assert.ok(clientOf(keycloak, spec.clientId));
    });

    it('two concurrent first reconciles create each realm scope once', async () => {
      const keycloak = await start();
      const concurrent = providerFor(keycloak);
      const results = await Promise.all([concurrent.ensureClient(specFor()), concurrent.ensureClient(specFor())]);
      assert.deepEqual(results.map((r) => r.changed), [true, true]);
      const names = keycloak.clientScopes().map((s) => s.name).filter((s) => s.startsWith('mcp:')).sort();
      assert.deepEqual(names, ['mcp:admin', 'mcp:read', 'mcp:write']);
      assert.equal(keycloak.requests.filter((r) => r.path.endsWith('/protocol/openid-connect/token')).length, 1, 'one shared admin token');
    });

    it('a wrong admin secret gives a clear error naming the step and the status, without the secret', async () => {
      const keycloak = await start();
      const secret = 'definitely-wrong-secret';
      const wrong = providerFor(keycloak, { adminClientSecret: secret });
      await assert.rejects(wrong.ensureClient(specFor()), (err: Error) => {
        assert.match(err.message, /authenticating admin client "lore-operator" in realm "lore" failed: HTTP 401/);
        assert.match(err.message, /unauthorized_client/);
        assert.ok(!err.message.includes(secret));
        return true;
      });
      await assert.rejects(wrong.deleteClient('anything'), /HTTP 401/);
      assert.deepEqual(keycloak.writes(), []);
    });

    it('a failing admin call names the step and the status', async () => {
      const keycloak = await start();
      const lost = providerFor(keycloak, { realm: 'no-such-realm', adminRealm: keycloak.realm });
      await assert.rejects(lost.ensureClient(specFor()), /Keycloak: listing client scopes failed: HTTP 404 \(Realm not found\.\)/);
    });
  });
});
