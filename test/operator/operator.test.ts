import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { Lease } from 'kubernetes-models/coordination.k8s.io/v1/Lease';
import { Event } from 'kubernetes-models/events.k8s.io/v1/Event';
import { Secret } from 'kubernetes-models/v1/Secret';
import { parse } from 'yaml';
import pino from 'pino';
import { mcpAudiences, oauthUrls } from '../../core/oauth/oauth-urls.js';
import { tenantScope } from '../../core/shared/scope.js';
import { JwksTokenVerifier } from '../../core/adapters/jwks.token-verifier.js';
import type { IdentityProvider } from '../../operator/identity-provider.js';
import { KeycloakIdentityProvider } from '../../operator/keycloak.identity-provider.js';
import { KubeApi } from '../../operator/kube.js';
import { lorePlatform } from '../../operator/lore-platform.js';
import { LoreIdentityProvider } from '../../operator/lore.identity-provider.js';
import { Operator } from '../../operator/operator.js';
import { createOperatorMetrics } from '../../operator/operator-metrics.js';
import { serveProbes } from '../../operator/probes.js';
import { TenantController } from '../../operator/tenant.controller.js';
import { type TestApp, client, startTestApp } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import { startFakeKeycloak } from '../support/fake-keycloak.server.js';
import { type FakeKubeApi, type FakeKubeObject, startFakeKubeApi } from '../support/fake-kube-api.server.js';

const GROUP = 'lore.dev';
const VERSION = 'v1alpha1';
const NS = 'team-a';
const silent = pino({ level: 'silent' });

interface Condition {
  type: string;
  status: string;
  reason: string;
  observedGeneration: number;
  lastTransitionTime: string;
}

async function waitFor<T>(what: string, check: () => T | undefined | Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function tenantObject(name: string, spec: Record<string, unknown>): FakeKubeObject {
  return { apiVersion: `${GROUP}/${VERSION}`, kind: 'Tenant', metadata: { name, namespace: NS }, spec };
}

function subTenantObject(name: string, spec: Record<string, unknown>): FakeKubeObject {
  return { apiVersion: `${GROUP}/${VERSION}`, kind: 'SubTenant', metadata: { name, namespace: NS }, spec };
}

function secretValue(kube: FakeKubeApi, name: string, key: string): string | undefined {
  const secret = kube.get('', 'v1', 'secrets', NS, name) as { data?: Record<string, string> } | undefined;
  const value = secret?.data?.[key];
  return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
}

function conditionsOf(object: FakeKubeObject | undefined): Map<string, Condition> {
  const list = ((object as { status?: { conditions?: Condition[] } } | undefined)?.status?.conditions ?? []);
  return new Map(list.map((c) => [c.type, c]));
}

const readyTenant = (kube: FakeKubeApi, name: string) => () => {
  const object = kube.get(GROUP, VERSION, 'tenants', NS, name);
  const ready = conditionsOf(object).get('Ready');
  return ready?.status === 'True' && ready.observedGeneration === object?.metadata?.generation ? object : undefined;
};

/** Client-credentials token from Lore's own token endpoint with the credentials the operator wrote. */
async function mcpToken(app: TestApp, kube: FakeKubeApi, secret: string): Promise<{ status: number; token?: string }> {
  const clientId = secretValue(kube, secret, 'client-id')!;
  const clientSecret = secretValue(kube, secret, 'client-secret')!;
  const tokenUrl = secretValue(kube, secret, 'token-url')!;
  assert.equal(tokenUrl, `${app.url}/oauth/token`);
  const res = await fetch(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp:read', resource: `${app.url}/mcp` }),
  });
  const body = (await res.json()) as { access_token?: string };
  return { status: res.status, ...(body.access_token ? { token: body.access_token } : {}) };
}

for (const database of testDatabases()) {
  describe(`Kubernetes operator against a fake Kubernetes API server (test double) [${database.name}]`, function () {
    this.timeout(60_000);
    let app: TestApp;
    let kube: FakeKubeApi;
    const running: Operator[] = [];

    function startOperator(identity: string, overrides: { resyncSeconds?: number; identityProvider?: IdentityProvider } = {}): { operator: Operator; metrics: ReturnType<typeof createOperatorMetrics> } {
      const urls = oauthUrls({ authUrl: app.url, mcpUrl: app.url }, app.url);
      const metrics = createOperatorMetrics();
      const operator = new Operator({
        kube: new KubeApi(kube.kubeConfig(), 'lore.dev/operator', identity),
        platform: lorePlatform(app.services),
        identity: overrides.identityProvider ?? new LoreIdentityProvider(app.services.oauthClients, urls.tokenEndpoint),
        mcpAudiences: mcpAudiences(urls),
        log: silent,
        now: () => new Date(),
        config: { watchNamespaces: [], lease: { namespace: 'lore-system', name: 'lore-operator' }, identity, resyncSeconds: overrides.resyncSeconds ?? 3600, concurrency: 2 },
        metrics,
        leaderElection: { leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 100 },
        backoff: { baseDelayMs: 50, maxDelayMs: 500 },
      });
      running.push(operator);
      return { operator, metrics };
    }

    before(async () => {
      app = await startTestApp(await database.get());
    });
    after(async () => {
      await app.close();
    });
    beforeEach(async () => {
      kube = await startFakeKubeApi();
    });
    afterEach(async () => {
      await Promise.all(running.splice(0).map((o) => o.stop()));
      await kube.close();
    });

    it('creates the Lore tenant, its admin key Secret and MCP client Secret, and reports Ready with every condition', async () => {
      const { operator } = startOperator('replica-a');
      await operator.start();
      kube.put(tenantObject('acme', { displayName: 'Acme Corp', plan: 'standard', limitOverrides: { maxDocuments: 1234 } }));
      const tenant = await waitFor('the Tenant to be Ready', readyTenant(kube, 'acme'));
      const status = (tenant as { status: Record<string, unknown> }).status;
      const conditions = conditionsOf(tenant);
      for (const type of ['Ready', 'TenantSynced', 'VectorCollectionsReady', 'IdentityClientReady', 'QuotasApplied']) {
        assert.equal(conditions.get(type)?.status, 'True', `${type}: ${JSON.stringify(conditions.get(type))}`);
        assert.equal(conditions.get(type)?.observedGeneration, 1);
      }
      assert.equal(status.phase, 'Ready');
      assert.equal(status.observedGeneration, 1);
      assert.deepEqual(tenant.metadata!.finalizers, ['lore.dev/cleanup']);
      const tenantId = status.tenantId as string;
      const record = await app.services.tenants.get(tenantScope(tenantId));
      assert.equal(record.name, 'Acme Corp');
      assert.equal(record.limit_overrides.max_documents, 1234);

      // The Secret's key is a working admin key of exactly that tenant.
      assert.deepEqual(status.apiKeySecretRef, { name: 'acme-lore-api-key', key: 'api-key' });
      const key = secretValue(kube, 'acme-lore-api-key', 'api-key')!;
      assert.equal(secretValue(kube, 'acme-lore-api-key', 'tenant-id'), tenantId);
      const kbs = await client(app.url, key)('POST', '/v1/knowledge-bases', { name: 'docs' });
      assert.equal(kbs.status, 201);
      const secret = kube.get('', 'v1', 'secrets', NS, 'acme-lore-api-key')!;
      assert.equal(secret.metadata!.ownerReferences?.[0]?.uid, tenant.metadata!.uid, 'owned by the Tenant');

      // The MCP client's credentials get a token from Lore's authorization server.
      assert.equal((await mcpToken(app, kube, 'acme-lore-mcp-client')).status, 200);
      await operator.idle(); // events are recorded after the status
      const events = kube.list('events.k8s.io', 'v1', 'events', NS) as Array<{ reason?: string }>;
      assert.ok(events.some((e) => e.reason === 'TenantCreated'), 'a TenantCreated event');
    });

    it('with Keycloak (a fake Keycloak, test double): the Secret holds a client whose tokens Lore\'s MCP verifier accepts for that tenant; deletion removes it', async () => {
      const keycloak = await startFakeKeycloak();
      try {
        const provider = new KeycloakIdentityProvider({ baseUrl: keycloak.url, realm: keycloak.realm, adminClientId: keycloak.adminClientId, adminClientSecret: keycloak.adminClientSecret });
        const { operator } = startOperator('replica-a', { identityProvider: provider });
        await operator.start();
        kube.put(tenantObject('kc', { displayName: 'Keycloak Corp', plan: 'standard' }));
        const tenant = await waitFor('Ready', readyTenant(kube, 'kc'));
        const tenantId = (tenant as { status: { tenantId: string } }).status.tenantId;
        assert.equal(secretValue(kube, 'kc-lore-mcp-client', 'client-id'), `lore-${NS}-kc`);
        assert.equal(secretValue(kube, 'kc-lore-mcp-client', 'token-url'), keycloak.tokenUrl);
        const res = await fetch(keycloak.tokenUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'client_credentials', client_id: secretValue(kube, 'kc-lore-mcp-client', 'client-id')!, client_secret: secretValue(kube, 'kc-lore-mcp-client', 'client-secret')! }),
        });
        const { access_token: token } = (await res.json()) as { access_token: string };
        const claims = await new JwksTokenVerifier(keycloak.jwksUrl, keycloak.issuer).verify(token, { issuer: 'unused', audiences: [`${app.url}/mcp`], now: new Date() });
        assert.equal(claims.tenantId, tenantId);
        assert.deepEqual([...claims.scopes].sort(), ['mcp:admin', 'mcp:read', 'mcp:write']);
        kube.remove(GROUP, VERSION, 'tenants', NS, 'kc');
        await waitFor('the Tenant to be gone', () => (kube.get(GROUP, VERSION, 'tenants', NS, 'kc') ? undefined : true));
        assert.ok(!keycloak.clients().some((c) => c.clientId === `lore-${NS}-kc`), 'the Keycloak client is deleted');
      } finally {
        await keycloak.close();
      }
    });

    it('a second reconcile of an unchanged Tenant writes nothing, anywhere', async () => {
      const { operator } = startOperator('replica-a');
      await operator.start();
      kube.put(tenantObject('steady', { displayName: 'Steady', plan: 'free' }));
      const tenant = await waitFor('Ready', readyTenant(kube, 'steady'));
      await operator.idle();
      const tenantId = (tenant as { status: { tenantId: string } }).status.tenantId;
      const before = await app.services.tenants.get(tenantScope(tenantId));
      const keysBefore = await app.services.keys.list(tenantScope(tenantId));
      const clientsBefore = await app.services.oauthClients.list(tenantScope(tenantId));
      kube.resetRequests();
      const urls = oauthUrls({ authUrl: app.url, mcpUrl: app.url }, app.url);
      const controller = new TenantController({
        kube: new KubeApi(kube.kubeConfig()),
        platform: lorePlatform(app.services),
        identity: new LoreIdentityProvider(app.services.oauthClients, urls.tokenEndpoint),
        mcpAudiences: mcpAudiences(urls),
        log: silent,
        now: () => new Date(Date.now() + 60_000),
      });
      await controller.reconcile({ namespace: NS, name: 'steady' });
      // The running replica renews its lease meanwhile; the reconcile itself writes nothing.
      assert.deepEqual(kube.writes().filter((w) => !w.path.includes('/leases/')), [], 'no Kubernetes writes');
      assert.ok(kube.requests.length > 0, 'it did read');
      const after = await app.services.tenants.get(tenantScope(tenantId));
      assert.equal(after.updated_at.getTime(), before.updated_at.getTime(), 'the Lore tenant was not written');
      assert.deepEqual(await app.services.keys.list(tenantScope(tenantId)), keysBefore);
      assert.deepEqual(await app.services.oauthClients.list(tenantScope(tenantId)), clientsBefore);
    });

    it('spec changes flow to Lore: plan, limit overrides, add-ons and suspension, with observedGeneration', async () => {
      const { operator } = startOperator('replica-a');
      await operator.start();
      kube.put(tenantObject('grow', { displayName: 'Grow', plan: 'free' }));
      const created = await waitFor('Ready', readyTenant(kube, 'grow'));
      const tenantId = (created as { status: { tenantId: string } }).status.tenantId;
      const key = secretValue(kube, 'grow-lore-api-key', 'api-key')!;
      const kb = await client(app.url, key)('POST', '/v1/knowledge-bases', { name: 'kb' });
      assert.equal((await client(app.url, key)('POST', '/v1/query', { query: 'hello', knowledge_base_ids: [kb.body.id] })).status, 200);
      kube.put({ ...created, spec: { displayName: 'Grow Inc', plan: 'enterprise', addons: ['transcription'], limitOverrides: { maxKnowledgeBases: null, queryRateLimitPerMin: 77 }, suspended: true } });
      const updated = await waitFor('generation 2 Ready', () => {
        const o = readyTenant(kube, 'grow')();
        return o && (o as { status: { observedGeneration: number } }).status.observedGeneration === 2 ? o : undefined;
      });
      assert.equal(updated.metadata!.generation, 2);
      const record = await app.services.tenants.get(tenantScope(tenantId));
      assert.equal(record.name, 'Grow Inc');
      assert.equal(record.plan, 'enterprise');
      assert.deepEqual(record.addons, ['transcription']);
      assert.deepEqual(record.limit_overrides, { max_knowledge_bases: null, query_rate_limit_per_min: 77 });
      assert.equal(record.status, 'suspended');
      // Suspension is Lore's own: a suspended tenant's queries are refused.
      const refused = await client(app.url, key)('POST', '/v1/query', { query: 'hello', knowledge_base_ids: [kb.body.id] });
      assert.equal(refused.status, 402);
      assert.equal(refused.body.error, 'payment_required');
      await operator.idle(); // events are recorded after the status
      const events = kube.list('events.k8s.io', 'v1', 'events', NS) as Array<{ reason?: string; note?: string }>;
      assert.ok(events.some((e) => e.reason === 'TenantUpdated' && e.note?.includes('plan')));
    });

    it('repairs drift: a deleted API key Secret gets a new key (the old one revoked), a deleted MCP Secret a new client', async () => {
      const { operator } = startOperator('replica-a', { resyncSeconds: 3600 });
      await operator.start();
      kube.put(tenantObject('drift', { displayName: 'Drift', plan: 'standard' }));
      await waitFor('Ready', readyTenant(kube, 'drift'));
      // A reconcile still running (the status write's own event) would find the Secret it read gone and write it back as it was.
      await operator.idle();
      const oldKey = secretValue(kube, 'drift-lore-api-key', 'api-key')!;
      const oldClient = secretValue(kube, 'drift-lore-mcp-client', 'client-id')!;
      kube.remove('', 'v1', 'secrets', NS, 'drift-lore-api-key');
      kube.remove('', 'v1', 'secrets', NS, 'drift-lore-mcp-client');
      // Secrets are not watched: the periodic resync (or any change) finds the drift. Touch the Tenant.
      const current = kube.get(GROUP, VERSION, 'tenants', NS, 'drift')!;
      kube.put({ ...current, metadata: { ...current.metadata, labels: { touched: 'yes' } } });
      const newKey = await waitFor('a new key', () => {
        const k = secretValue(kube, 'drift-lore-api-key', 'api-key');
        return k && k !== oldKey ? k : undefined;
      });
      await waitFor('a new MCP client', () => {
        const c = secretValue(kube, 'drift-lore-mcp-client', 'client-id');
        return c && c !== oldClient ? c : undefined;
      });
      await operator.idle();
      assert.equal((await client(app.url, newKey)('GET', '/v1/knowledge-bases')).status, 200);
      assert.equal((await client(app.url, oldKey)('GET', '/v1/knowledge-bases')).status, 401, 'the key of the lost Secret is revoked');
      assert.equal((await mcpToken(app, kube, 'drift-lore-mcp-client')).status, 200);
      const events = kube.list('events.k8s.io', 'v1', 'events', NS) as Array<{ reason?: string }>;
      assert.ok(events.some((e) => e.reason === 'ApiKeySecretRepaired'));
    });

    it('retries a reconcile that met a 409 Conflict, with backoff, until the status is written', async () => {
      const { operator, metrics } = startOperator('replica-a');
      await operator.start();
      kube.failNext({ method: 'PATCH', pathIncludes: '/status', status: 409, times: 2 });
      kube.put(tenantObject('conflict', { displayName: 'Conflict', plan: 'free' }));
      await waitFor('Ready', readyTenant(kube, 'conflict'));
      await operator.idle();
      const text = await metrics.registry.metrics();
      assert.match(text, /lore_operator_reconcile_errors_total\{kind="Tenant"\} [2-9]/);
      assert.match(text, /lore_operator_reconcile_total\{kind="Tenant",result="success"\} [1-9]/);
      // Exactly one Lore tenant for the resource, whatever the retries.
      const uid = kube.get(GROUP, VERSION, 'tenants', NS, 'conflict')!.metadata!.uid!;
      assert.ok(await app.services.tenants.findByOperatorRef(uid));
    });

    it('deleting a Tenant removes its MCP client and the Lore tenant with its data, then releases the finalizer', async () => {
      const { operator } = startOperator('replica-a');
      await operator.start();
      kube.put(tenantObject('gone', { displayName: 'Gone', plan: 'enterprise' }));
      kube.put(subTenantObject('gone-sub', { tenantRef: { name: 'gone' }, name: 'Gone sub' }));
      const tenant = await waitFor('Ready', readyTenant(kube, 'gone'));
      const sub = await waitFor('the SubTenant Ready', () => {
        const o = kube.get(GROUP, VERSION, 'subtenants', NS, 'gone-sub');
        return conditionsOf(o).get('Ready')?.status === 'True' ? o : undefined;
      });
      assert.equal(sub.metadata?.ownerReferences?.[0]?.uid, tenant.metadata?.uid, 'owned by its Tenant');
      const tenantId = (tenant as { status: { tenantId: string } }).status.tenantId;
      const key = secretValue(kube, 'gone-lore-api-key', 'api-key')!;
      assert.equal(kube.remove(GROUP, VERSION, 'tenants', NS, 'gone'), 'terminating', 'the finalizer holds it');
      await waitFor('the Tenant to be gone', () => (kube.get(GROUP, VERSION, 'tenants', NS, 'gone') ? undefined : true));
      await waitFor('its SubTenant to be collected', () => (kube.get(GROUP, VERSION, 'subtenants', NS, 'gone-sub') ? undefined : true));
      await assert.rejects(app.services.tenants.get(tenantScope(tenantId)), /not found/i);
      assert.equal((await client(app.url, key)('GET', '/v1/knowledge-bases')).status, 401);
      assert.equal(kube.get('', 'v1', 'secrets', NS, 'gone-lore-api-key'), undefined);
      assert.equal(kube.get('', 'v1', 'secrets', NS, 'gone-lore-mcp-client'), undefined);
    });

    it('a SubTenant of an Enterprise Tenant gets its sub-tenant and a scoped write key; deleting it removes only its own', async () => {
      const { operator } = startOperator('replica-a');
      await operator.start();
      kube.put(subTenantObject('early', { tenantRef: { name: 'corp' }, name: 'Early', limits: { maxDocuments: 5 } }));
      await waitFor('TenantNotReady', () => (conditionsOf(kube.get(GROUP, VERSION, 'subtenants', NS, 'early')).get('TenantSynced')?.reason === 'TenantNotReady' ? true : undefined));
      kube.put(tenantObject('corp', { displayName: 'Corp', plan: 'enterprise' }));
      const tenant = await waitFor('Ready', readyTenant(kube, 'corp'));
      const tenantId = (tenant as { status: { tenantId: string } }).status.tenantId;
      const sub = await waitFor('the SubTenant Ready', () => {
        const o = kube.get(GROUP, VERSION, 'subtenants', NS, 'early');
        return conditionsOf(o).get('Ready')?.status === 'True' ? o : undefined;
      });
      const subTenantId = (sub as { status: { subTenantId: string } }).status.subTenantId;
      const row = await app.services.subTenants.get(tenantScope(tenantId), subTenantId);
      assert.equal(row.name, 'Early');
      assert.equal(row.max_documents, 5);
      const subKey = secretValue(kube, 'early-lore-api-key', 'api-key')!;
      assert.equal(secretValue(kube, 'early-lore-api-key', 'sub-tenant-id'), subTenantId);
      const created = await client(app.url, subKey)('POST', '/v1/knowledge-bases', { name: 'sub docs' });
      assert.equal(created.status, 201, 'a write key');
      assert.equal((await client(app.url, subKey)('POST', '/v1/sub-tenants', { name: 'x' })).status, 403, 'not an admin key');

      kube.put(subTenantObject('other', { tenantRef: { name: 'corp' }, name: 'Other' }));
      await waitFor('the second SubTenant Ready', () => (conditionsOf(kube.get(GROUP, VERSION, 'subtenants', NS, 'other')).get('Ready')?.status === 'True' ? true : undefined));
      kube.remove(GROUP, VERSION, 'subtenants', NS, 'early');
      await waitFor('the SubTenant to be gone', () => (kube.get(GROUP, VERSION, 'subtenants', NS, 'early') ? undefined : true));
      await assert.rejects(app.services.subTenants.get(tenantScope(tenantId), subTenantId), /not found/i);
      assert.equal((await client(app.url, subKey)('GET', '/v1/knowledge-bases')).status, 401);
      assert.equal((await app.services.subTenants.list(tenantScope(tenantId))).length, 1, 'the other sub-tenant stays');
      await app.services.tenants.get(tenantScope(tenantId));
    });

    it('a SubTenant of a non-Enterprise Tenant is refused with EnterprisePlanRequired; an invalid spec with InvalidSpec', async () => {
      const { operator } = startOperator('replica-a');
      await operator.start();
      kube.put(tenantObject('small', { displayName: 'Small', plan: 'standard' }));
      await waitFor('Ready', readyTenant(kube, 'small'));
      kube.put(subTenantObject('nope', { tenantRef: { name: 'small' }, name: 'Nope' }));
      const refused = await waitFor('EnterprisePlanRequired', () => {
        const c = conditionsOf(kube.get(GROUP, VERSION, 'subtenants', NS, 'nope')).get('TenantSynced');
        return c?.reason === 'EnterprisePlanRequired' ? c : undefined;
      });
      assert.equal(refused.status, 'False');
      kube.put(tenantObject('bad', { displayName: 'Bad', plan: 'standard', limitOverrides: { maxDocuments: -1 } }));
      const invalid = await waitFor('InvalidSpec', () => {
        const c = conditionsOf(kube.get(GROUP, VERSION, 'tenants', NS, 'bad')).get('TenantSynced');
        return c?.reason === 'InvalidSpec' ? c : undefined;
      });
      assert.match(JSON.stringify(invalid), /limit_overrides/);
      const uid = kube.get(GROUP, VERSION, 'tenants', NS, 'bad')!.metadata!.uid!;
      assert.equal(await app.services.tenants.findByOperatorRef(uid), undefined, 'nothing was created for it');
    });

    it('everything it writes is valid: Secrets, Events and the Lease by the Kubernetes schemas, Tenants and SubTenants (status included) by their CRDs', async () => {
      const { operator } = startOperator('replica-a');
      await operator.start();
      kube.put(tenantObject('valid', { displayName: 'Valid', plan: 'enterprise', limitOverrides: { maxChunks: 10 } }));
      kube.put(subTenantObject('valid-sub', { tenantRef: { name: 'valid' }, name: 'Valid sub', externalId: 'ext-1', limits: { maxDocuments: 3 } }));
      await waitFor('Ready', readyTenant(kube, 'valid'));
      await waitFor('the SubTenant Ready', () => (conditionsOf(kube.get(GROUP, VERSION, 'subtenants', NS, 'valid-sub')).get('Ready')?.status === 'True' ? true : undefined));
      await operator.idle();
      const secrets = kube.list('', 'v1', 'secrets', NS);
      const events = kube.list('events.k8s.io', 'v1', 'events', NS);
      assert.equal(secrets.length, 3);
      assert.ok(events.length >= 3);
      for (const secret of secrets) new Secret(secret).validate();
      for (const event of events) new Event(event as never).validate();
      new Lease(kube.get('coordination.k8s.io', 'v1', 'leases', 'lore-system', 'lore-operator')).validate();
      const ajv = new Ajv({ strict: false, allErrors: true });
      addFormatsModule.default(ajv);
      for (const plural of ['tenants', 'subtenants']) {
        const crd = parse(await readFile(new URL(`../../crds/${plural}.lore.dev.yaml`, import.meta.url), 'utf8')) as { spec: { versions: Array<{ schema: { openAPIV3Schema: object } }> } };
        const validate = ajv.compile(crd.spec.versions[0]!.schema.openAPIV3Schema);
        for (const object of kube.list(GROUP, VERSION, plural, NS)) {
          const { metadata: _metadata, ...rest } = object as unknown as Record<string, unknown>;
          assert.ok(validate(rest), `${plural}/${object.metadata?.name}: ${JSON.stringify(validate.errors)}`);
        }
      }
    });

    it('two replicas: one leader acts; when it stops, the other takes the lease and reconciles', async () => {
      const a = startOperator('replica-a');
      const b = startOperator('replica-b');
      await a.operator.start();
      await waitFor('replica-a to lead', () => (a.operator.isLeader() ? true : undefined));
      await b.operator.start();
      await waitFor('replica-b ready', () => (b.operator.isReady() ? true : undefined));
      await new Promise((r) => setTimeout(r, 400));
      assert.equal(b.operator.isLeader(), false, 'never two leaders');
      const lease = kube.get('coordination.k8s.io', 'v1', 'leases', 'lore-system', 'lore-operator') as { spec: { holderIdentity: string; renewTime: string } };
      assert.equal(lease.spec.holderIdentity, 'replica-a');
      assert.match(lease.spec.renewTime, /\.\d{6}Z$/, 'MicroTime: six fractional digits, as the API server requires');
      kube.put(tenantObject('first', { displayName: 'First', plan: 'free' }));
      await waitFor('Ready', readyTenant(kube, 'first'));
      await a.operator.stop();
      await waitFor('replica-b to lead', () => (b.operator.isLeader() ? true : undefined), 5000);
      kube.put(tenantObject('second', { displayName: 'Second', plan: 'free' }));
      await waitFor('Ready under the new leader', readyTenant(kube, 'second'));
      const after = kube.get('coordination.k8s.io', 'v1', 'leases', 'lore-system', 'lore-operator') as { spec: { holderIdentity: string; leaseTransitions: number } };
      assert.equal(after.spec.holderIdentity, 'replica-b');
      assert.ok(after.spec.leaseTransitions >= 1);
    });

    it('a watch that expires (410 Gone on resume) is listed again and no change is missed', async () => {
      const { operator } = startOperator('replica-a');
      await operator.start();
      await waitFor('leading', () => (operator.isLeader() ? true : undefined));
      await waitFor('watching', () => (kube.openWatches() >= 2 ? true : undefined));
      // The watches end; the Tenant arrives before they resume, and the history they would resume from is gone.
      kube.expireWatches();
      kube.put(tenantObject('while-away', { displayName: 'While away', plan: 'free' }));
      kube.compactHistory();
      await waitFor('Ready after the relist', readyTenant(kube, 'while-away'));
      assert.ok(kube.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/tenants') && r.query.watch === undefined).length >= 2, 'listed again');
    });

    it('serves /healthz, /readyz (after the first list) and /metrics', async () => {
      const { operator, metrics } = startOperator('replica-a');
      const server = serveProbes({ port: 0, host: '127.0.0.1', registry: metrics.registry, isReady: () => operator.isReady(), isLeader: () => operator.isLeader() });
      await new Promise((r) => server.once('listening', r));
      const { port } = server.address() as { port: number };
      try {
        assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
        assert.equal((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 503, 'not ready before the informers have listed');
        await operator.start();
        await waitFor('ready', async () => ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200 ? true : undefined));
        const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        for (const name of ['lore_operator_reconcile_total', 'lore_operator_reconcile_errors_total', 'lore_operator_reconcile_duration_seconds', 'lore_operator_queue_depth', 'lore_operator_leader']) {
          assert.ok(text.includes(name), name);
        }
      } finally {
        server.close();
      }
    });
  });
}
