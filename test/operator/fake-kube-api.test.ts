import assert from 'node:assert/strict';
import {
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  EventsV1Api,
  type KubeConfig,
  type KubernetesObject,
  KubernetesObjectApi,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  V1MicroTime,
  Watch,
} from '@kubernetes/client-node';
import { type FakeKubeApi, type FakeKubeObject, startFakeKubeApi } from '../support/fake-kube-api.server.js';
import { pollUntil } from '../support/poll.js';

/**
 * The fake Kubernetes API server (test/support/fake-kube-api.server.ts), driven only through the real
 * `@kubernetes/client-node` clients, so what passes here is what the client sends and understands.
 */

const group = 'lore.dev';
const version = 'v1alpha1';
const namespace = 'lore';
const tenants = { group, version, namespace, plural: 'tenants' };
const TENANTS_PATH = `/apis/${group}/${version}/namespaces/${namespace}/tenants`;
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const strategicMergePatch = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);

function tenant(name: string, spec: Record<string, unknown> = { plan: 'free' }, metadata: Record<string, unknown> = {}): FakeKubeObject {
  return { apiVersion: `${group}/${version}`, kind: 'Tenant', metadata: { name, ...metadata }, spec };
}

/** Rejects with the client's ApiException carrying a Kubernetes Status of this code and reason; returns the Status. */
async function rejectsWithStatus(promise: Promise<unknown>, code: number, reason: string): Promise<any> {
  let status: any;
  await assert.rejects(promise, (err: any) => {
    assert.equal(err.code, code, String(err));
    status = JSON.parse(err.body);
    assert.equal(status.kind, 'Status');
    assert.equal(status.status, 'Failure');
    assert.equal(status.reason, reason, status.message);
    assert.equal(status.code, code);
    return true;
  });
  return status;
}

/** Watch query parameters, as the client's Watch takes them. */
type Query = Record<string, string | number | boolean | undefined>;

interface Watching {
  events: { type: string; object: any }[];
  /** Settles with what the client's `done` callback got (null when the server ended the stream). */
  done: Promise<unknown>;
  stop(): void;
}

async function watch(kc: KubeConfig, path: string, query: Query = {}): Promise<Watching> {
  const events: Watching['events'] = [];
  let finish!: (err: unknown) => void;
  const done = new Promise<unknown>((resolve) => (finish = resolve));
  const controller = await new Watch(kc).watch(path, query, (type, object) => events.push({ type, object }), finish);
  return { events, done, stop: () => controller.abort() };
}

const seen = (w: Watching) => w.events.map((e) => `${e.type} ${e.object.metadata?.name ?? ''}`.trim());

describe('fake Kubernetes API server (test double)', () => {
  let api: FakeKubeApi;
  let kc: KubeConfig;
  let customObjects: CustomObjectsApi;
  let core: CoreV1Api;
  const watches: Watching[] = [];

  const create = (body: FakeKubeObject) => customObjects.createNamespacedCustomObject({ ...tenants, body });
  const read = (name: string) => customObjects.getNamespacedCustomObject({ ...tenants, name });
  const watchTenants = async (query: Query = {}) => {
    const w = await watch(kc, TENANTS_PATH, query);
    watches.push(w);
    return w;
  };

  beforeEach(async () => {
    api = await startFakeKubeApi();
    kc = api.kubeConfig();
    customObjects = kc.makeApiClient(CustomObjectsApi);
    core = kc.makeApiClient(CoreV1Api);
  });

  afterEach(async () => {
    for (const w of watches.splice(0)) w.stop();
    await api.close();
  });

  it('creates, reads and lists Tenants, filling in the metadata the server keeps', async () => {
    const created = await create({ ...tenant('acme', { plan: 'free' }, { labels: { tier: 'gold' } }), status: { phase: 'Forged' } });
    assert.match(created.metadata.uid, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.match(created.metadata.creationTimestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    assert.match(created.metadata.resourceVersion, /^\d+$/);
    assert.equal(created.metadata.generation, 1);
    assert.equal(created.metadata.namespace, namespace);
    assert.equal(created.kind, 'Tenant');
    assert.equal(created.status, undefined, 'creation drops status when the status subresource is on');
    assert.deepEqual(await read('acme'), created);

    await create(tenant('globex', { plan: 'pro' }, { labels: { tier: 'silver' } }));
    await customObjects.createNamespacedCustomObject({ ...tenants, namespace: 'elsewhere', body: tenant('initech') });
    const generated = await create(tenant('', {}, { generateName: 'gen-' }));
    assert.match(generated.metadata.name, /^gen-[a-z0-9]{5}$/);

    const all = await customObjects.listNamespacedCustomObject(tenants);
    assert.equal(all.kind, 'TenantList');
    assert.equal(all.metadata.resourceVersion, api.resourceVersion());
    assert.deepEqual(all.items.map((t: any) => t.metadata.name), ['acme', generated.metadata.name, 'globex']);
    const gold = await customObjects.listNamespacedCustomObject({ ...tenants, labelSelector: 'tier=gold' });
    assert.deepEqual(gold.items.map((t: any) => t.metadata.name), ['acme']);
    const notGold = await customObjects.listNamespacedCustomObject({ ...tenants, labelSelector: 'tier!=gold,tier' });
    assert.deepEqual(notGold.items.map((t: any) => t.metadata.name), ['globex']);
    const byName = await customObjects.listNamespacedCustomObject({ ...tenants, fieldSelector: 'metadata.name=globex' });
    assert.deepEqual(byName.items.map((t: any) => t.metadata.name), ['globex']);
    const firstPage = await customObjects.listNamespacedCustomObject({ ...tenants, limit: 2 });
    assert.equal(firstPage.items.length, 2);
    assert.equal(firstPage.metadata.remainingItemCount, 1);
    const secondPage = await customObjects.listNamespacedCustomObject({ ...tenants, limit: 2, _continue: firstPage.metadata.continue });
    assert.deepEqual(secondPage.items.map((t: any) => t.metadata.name), ['globex']);
    assert.equal(secondPage.metadata.continue, undefined);
    const everywhere = await customObjects.listClusterCustomObject({ group, version, plural: 'tenants' });
    assert.deepEqual(everywhere.items.map((t: any) => `${t.metadata.namespace}/${t.metadata.name}`).sort(), [
      'elsewhere/initech',
      `lore/${generated.metadata.name}`,
      'lore/acme',
      'lore/globex',
    ].sort());

    const exists = await rejectsWithStatus(create(tenant('acme')), 409, 'AlreadyExists');
    assert.equal(exists.message, 'tenants.lore.dev "acme" already exists');
    const missing = await rejectsWithStatus(read('nobody'), 404, 'NotFound');
    assert.deepEqual(missing.details, { name: 'nobody', group, kind: 'tenants' });
    await rejectsWithStatus(create(tenant('Not_A_Name')), 422, 'Invalid');
    await rejectsWithStatus(customObjects.listNamespacedCustomObject({ ...tenants, fieldSelector: 'spec.plan=pro' }), 400, 'BadRequest');
  });

  it('bumps generation on spec changes only, and keeps spec and status apart (status subresource)', async () => {
    let t = await create(tenant('acme', { plan: 'free' }));
    t = await customObjects.replaceNamespacedCustomObjectStatus({
      ...tenants,
      name: 'acme',
      body: { ...t, metadata: { ...t.metadata, labels: { sneaky: 'yes' } }, spec: { plan: 'hacked' }, status: { phase: 'Ready', observedGeneration: 1 } },
    });
    assert.deepEqual(t.status, { phase: 'Ready', observedGeneration: 1 });
    assert.deepEqual(t.spec, { plan: 'free' }, 'a status write changes nothing but status');
    assert.equal(t.metadata.labels, undefined);
    assert.equal(t.metadata.generation, 1);

    t = await customObjects.replaceNamespacedCustomObject({ ...tenants, name: 'acme', body: { ...t, spec: { plan: 'pro' }, status: { phase: 'Overwritten' } } });
    assert.equal(t.metadata.generation, 2);
    assert.deepEqual(t.status, { phase: 'Ready', observedGeneration: 1 }, 'a write to the resource keeps the stored status');

    const before = t.metadata.resourceVersion;
    t = await customObjects.patchNamespacedCustomObject({ ...tenants, name: 'acme', body: { metadata: { labels: { a: 'b' } } } }, mergePatch);
    assert.equal(t.metadata.generation, 2, 'metadata changes leave generation alone');
    assert.ok(Number(t.metadata.resourceVersion) > Number(before));

    const unchanged = await customObjects.replaceNamespacedCustomObject({ ...tenants, name: 'acme', body: t });
    assert.equal(unchanged.metadata.resourceVersion, t.metadata.resourceVersion, 'a write that changes nothing writes nothing');
  });

  it('answers 409 Conflict to writes with a stale resourceVersion, and 422 to a custom resource replace without one', async () => {
    const first = await create(tenant('acme'));
    await customObjects.replaceNamespacedCustomObject({ ...tenants, name: 'acme', body: { ...first, spec: { plan: 'pro' } } });

    const stale = await rejectsWithStatus(customObjects.replaceNamespacedCustomObject({ ...tenants, name: 'acme', body: { ...first, spec: { plan: 'team' } } }), 409, 'Conflict');
    assert.equal(stale.message, 'Operation cannot be fulfilled on tenants.lore.dev "acme": the object has been modified; please apply your changes to the latest version and try again');
    assert.deepEqual(stale.details, { name: 'acme', group, kind: 'tenants' });
    await rejectsWithStatus(customObjects.replaceNamespacedCustomObjectStatus({ ...tenants, name: 'acme', body: { ...first, status: { phase: 'Ready' } } }), 409, 'Conflict');
    await rejectsWithStatus(
      customObjects.patchNamespacedCustomObject({ ...tenants, name: 'acme', body: { metadata: { resourceVersion: first.metadata.resourceVersion }, spec: { plan: 'x' } } }, mergePatch),
      409,
      'Conflict',
    );

    const { resourceVersion: _rv, ...withoutVersion } = first.metadata;
    const unconditional = await rejectsWithStatus(
      customObjects.replaceNamespacedCustomObject({ ...tenants, name: 'acme', body: { ...first, metadata: withoutVersion } }),
      422,
      'Invalid',
    );
    assert.match(unconditional.message, /metadata\.resourceVersion: Invalid value: 0x0: must be specified for an update/);
    assert.deepEqual((await read('acme')).spec, { plan: 'pro' });
  });

  it('applies merge patches and JSON patches, and refuses the patches the real server refuses', async () => {
    await create(tenant('acme', { plan: 'free', legacy: true }));
    let t = await customObjects.patchNamespacedCustomObject({ ...tenants, name: 'acme', body: { spec: { plan: 'pro', legacy: null } } }, mergePatch);
    assert.deepEqual(t.spec, { plan: 'pro' });
    assert.equal(api.requests.at(-1)?.contentType, 'application/merge-patch+json');

    // The client's default Content-Type for a patch is JSON patch.
    t = await customObjects.patchNamespacedCustomObject({
      ...tenants,
      name: 'acme',
      body: [
        { op: 'test', path: '/spec/plan', value: 'pro' },
        { op: 'replace', path: '/spec/plan', value: 'team' },
        { op: 'add', path: '/metadata/finalizers', value: ['lore.dev/cleanup'] },
        { op: 'add', path: '/metadata/finalizers/-', value: 'lore.dev/audit' },
      ],
    });
    assert.deepEqual(t.spec, { plan: 'team' });
    assert.deepEqual(t.metadata.finalizers, ['lore.dev/cleanup', 'lore.dev/audit']);
    assert.equal(api.requests.at(-1)?.contentType, 'application/json-patch+json');

    const failedTest = await rejectsWithStatus(
      customObjects.patchNamespacedCustomObject({ ...tenants, name: 'acme', body: [{ op: 'test', path: '/spec/plan', value: 'free' }, { op: 'remove', path: '/spec/plan' }] }),
      422,
      'Invalid',
    );
    assert.match(failedTest.details.causes[0].message, /testing value \/spec\/plan failed/);
    assert.equal((await read('acme')).metadata.resourceVersion, t.metadata.resourceVersion, 'a failed patch writes nothing');
    await rejectsWithStatus(customObjects.patchNamespacedCustomObject({ ...tenants, name: 'acme', body: [{ op: 'remove', path: '/spec/nothing' }] }), 422, 'Invalid');
    await rejectsWithStatus(customObjects.patchNamespacedCustomObject({ ...tenants, name: 'acme', body: { spec: { plan: 'x' } } }), 400, 'BadRequest');
    await rejectsWithStatus(customObjects.patchNamespacedCustomObject({ ...tenants, name: 'acme', body: { spec: { plan: 'x' } } }, strategicMergePatch), 415, 'UnsupportedMediaType');
    await rejectsWithStatus(customObjects.patchNamespacedCustomObject({ ...tenants, name: 'acme', body: { metadata: { finalizers: ['cleanup'] } } }, mergePatch), 422, 'Invalid');

    t = await customObjects.patchNamespacedCustomObjectStatus({ ...tenants, name: 'acme', body: { status: { phase: 'Ready' }, spec: { plan: 'ignored' } } }, mergePatch);
    assert.deepEqual(t.status, { phase: 'Ready' });
    assert.deepEqual(t.spec, { plan: 'team' });
    assert.equal(t.metadata.generation, 3, 'two spec patches, no more');
  });

  it('keeps an object with finalizers until the last one goes, then removes it (DELETED)', async () => {
    const w = await watchTenants({ resourceVersion: api.resourceVersion() });
    await create(tenant('acme', { plan: 'free' }, { finalizers: ['lore.dev/cleanup'] }));

    const terminating = await customObjects.deleteNamespacedCustomObject({ ...tenants, name: 'acme' });
    assert.equal(terminating.kind, 'Tenant', 'DELETE answers the object while finalizers hold it');
    assert.match(terminating.metadata.deletionTimestamp, /Z$/);
    const again = await customObjects.deleteNamespacedCustomObject({ ...tenants, name: 'acme' });
    assert.equal(again.metadata.deletionTimestamp, terminating.metadata.deletionTimestamp);
    assert.equal(again.metadata.resourceVersion, terminating.metadata.resourceVersion, 'a second DELETE changes nothing');

    const added = await rejectsWithStatus(
      customObjects.patchNamespacedCustomObject({ ...tenants, name: 'acme', body: { metadata: { finalizers: ['lore.dev/cleanup', 'lore.dev/more'] } } }, mergePatch),
      422,
      'Invalid',
    );
    assert.match(added.message, /metadata\.finalizers: Forbidden: no new finalizers can be added if the object is being deleted/);
    const statusWhileTerminating = await customObjects.patchNamespacedCustomObjectStatus({ ...tenants, name: 'acme', body: { status: { phase: 'Deleting' } } }, mergePatch);
    assert.equal(statusWhileTerminating.status.phase, 'Deleting');

    await customObjects.patchNamespacedCustomObject({ ...tenants, name: 'acme', body: [{ op: 'remove', path: '/metadata/finalizers/0' }] });
    await rejectsWithStatus(read('acme'), 404, 'NotFound');
    await pollUntil('the DELETED event', () => w.events.some((e) => e.type === 'DELETED'), { intervalMs: 5 });
    assert.deepEqual(seen(w), ['ADDED acme', 'MODIFIED acme', 'MODIFIED acme', 'DELETED acme']);
    assert.ok(w.events[1]!.object.metadata.deletionTimestamp);

    await create(tenant('plain'));
    const gone = await customObjects.deleteNamespacedCustomObject({ ...tenants, name: 'plain' });
    assert.deepEqual({ kind: gone.kind, status: gone.status, details: gone.details.name }, { kind: 'Status', status: 'Success', details: 'plain' });
  });

  it('delivers ADDED, MODIFIED and DELETED to a Watch in order, applying its label selector', async () => {
    await create(tenant('existing', { plan: 'free' }, { labels: { tier: 'gold' } }));
    const fromNow = await watchTenants({ labelSelector: 'tier=gold', resourceVersion: api.resourceVersion() });
    const fromScratch = await watchTenants({ labelSelector: 'tier=gold' });

    await create(tenant('acme', { plan: 'free' }, { labels: { tier: 'gold' } }));
    await customObjects.patchNamespacedCustomObject({ ...tenants, name: 'acme', body: { spec: { plan: 'pro' } } }, mergePatch);
    await create(tenant('globex', { plan: 'free' }, { labels: { tier: 'silver' } }));
    await customObjects.patchNamespacedCustomObject({ ...tenants, name: 'globex', body: { metadata: { labels: { tier: 'gold' } } } }, mergePatch);
    await customObjects.patchNamespacedCustomObject({ ...tenants, name: 'acme', body: { metadata: { labels: { tier: 'silver' } } } }, mergePatch);
    await customObjects.deleteNamespacedCustomObject({ ...tenants, name: 'globex' });

    const expected = ['ADDED acme', 'MODIFIED acme', 'ADDED globex', 'DELETED acme', 'DELETED globex'];
    await pollUntil('all events', () => fromNow.events.length >= expected.length && fromScratch.events.length > expected.length, { intervalMs: 5 });
    assert.deepEqual(seen(fromNow), expected);
    assert.deepEqual(seen(fromScratch), ['ADDED existing', ...expected], 'without a resourceVersion a watch starts with what exists');
    const versions = fromNow.events.map((e) => Number(e.object.metadata.resourceVersion));
    assert.deepEqual(versions, [...versions].sort((a, b) => a - b));
    assert.equal(fromNow.events[1]!.object.spec.plan, 'pro');
  });

  it('garbage-collects a Secret owned by a Tenant, and keeps one that has another live owner', async () => {
    const acme = await create(tenant('acme'));
    const globex = await create(tenant('globex'));
    const owner = (t: any) => ({ apiVersion: `${group}/${version}`, kind: 'Tenant', name: t.metadata.name, uid: t.metadata.uid });

    const secret = await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: 'acme-key', ownerReferences: [{ ...owner(acme), controller: true }] }, data: { id: Buffer.from('7').toString('base64') }, stringData: { token: 's3cret' } },
    });
    assert.equal(Buffer.from(secret.data!.token!, 'base64').toString(), 's3cret', 'stringData is merged into data');
    assert.equal(secret.data!.id, Buffer.from('7').toString('base64'));
    assert.equal(secret.stringData, undefined);
    assert.equal(secret.type, 'Opaque');
    await core.createNamespacedSecret({ namespace, body: { metadata: { name: 'shared', ownerReferences: [owner(acme), owner(globex)] } } });
    await rejectsWithStatus(core.createNamespacedSecret({ namespace, body: { metadata: { name: 'bad' }, data: { k: 'not base64!' } } }), 400, 'BadRequest');

    const deleted = await customObjects.deleteNamespacedCustomObject({ ...tenants, name: 'acme' });
    assert.equal(deleted.status, 'Success');
    await rejectsWithStatus(core.readNamespacedSecret({ namespace, name: 'acme-key' }), 404, 'NotFound');
    const shared = await core.readNamespacedSecret({ namespace, name: 'shared' });
    assert.deepEqual(
      shared.metadata?.ownerReferences?.map((r) => r.name),
      ['globex'],
    );
    await customObjects.deleteNamespacedCustomObject({ ...tenants, name: 'globex' });
    assert.equal(api.get('', 'v1', 'secrets', namespace, 'shared'), undefined);

    // Orphan keeps the dependents and strips the reference; Foreground removes them before the owner.
    const initech = await create(tenant('initech'));
    await core.createNamespacedSecret({ namespace, body: { metadata: { name: 'kept', ownerReferences: [owner(initech)] } } });
    await customObjects.deleteNamespacedCustomObject({ ...tenants, name: 'initech', propagationPolicy: 'Orphan' });
    assert.equal(api.get('', 'v1', 'secrets', namespace, 'kept')?.metadata?.ownerReferences, undefined);
    const umbrella = await create(tenant('umbrella'));
    await core.createNamespacedSecret({ namespace, body: { metadata: { name: 'doomed', ownerReferences: [owner(umbrella)] } } });
    await customObjects.deleteNamespacedCustomObject({ ...tenants, name: 'umbrella', body: { propagationPolicy: 'Foreground' } });
    assert.equal(api.get('', 'v1', 'secrets', namespace, 'doomed'), undefined);
  });

  it('answers a watch from a compacted resourceVersion with one ERROR event, 410 Expired', async () => {
    const old = api.resourceVersion();
    await create(tenant('acme'));
    await create(tenant('globex'));
    api.compactHistory();

    const expired = await watchTenants({ resourceVersion: old });
    assert.equal(await expired.done, null, 'the server ends the stream');
    assert.equal(expired.events.length, 1);
    assert.equal(expired.events[0]!.type, 'ERROR');
    assert.equal(expired.events[0]!.object.kind, 'Status');
    assert.equal(expired.events[0]!.object.code, 410);
    assert.equal(expired.events[0]!.object.reason, 'Expired');

    const current = await watchTenants({ resourceVersion: api.resourceVersion() });
    await create(tenant('initech'));
    await pollUntil('the ADDED event', () => current.events.length > 0, { intervalMs: 5 });
    assert.deepEqual(seen(current), ['ADDED initech']);
  });

  it('lets makeInformer list, then follow later changes, and relist after its watch expires', async () => {
    await create(tenant('acme'));
    const informer = makeInformer<KubernetesObject>(kc, TENANTS_PATH, () => customObjects.listNamespacedCustomObject(tenants));
    const changes: string[] = [];
    informer.on('add', (o) => changes.push(`add ${o.metadata!.name}`));
    informer.on('update', (o) => changes.push(`update ${o.metadata!.name}`));
    informer.on('delete', (o) => changes.push(`delete ${o.metadata!.name}`));
    try {
      await informer.start();
      await pollUntil('the informer watching', () => api.openWatches() === 1, { intervalMs: 5 });
      assert.deepEqual(changes, ['add acme']);

      await create(tenant('globex'));
      await customObjects.patchNamespacedCustomObject({ ...tenants, name: 'acme', body: { spec: { plan: 'pro' } } }, mergePatch);
      await pollUntil('the informer to see both changes', () => changes.length === 3, { intervalMs: 5 });
      assert.deepEqual(changes, ['add acme', 'add globex', 'update acme']);
      assert.equal((informer.get('acme', namespace) as any).spec.plan, 'pro');

      // Its watch ends and its resourceVersion is no longer served: it relists, dropping what went meanwhile.
      api.expireWatches();
      api.remove(group, version, 'tenants', namespace, 'globex');
      api.compactHistory();
      await pollUntil('the informer to relist', () => changes.includes('delete globex'), { intervalMs: 5 });
      await create(tenant('initech'));
      await pollUntil('the informer to follow again', () => changes.includes('add initech'), { intervalMs: 5 });
      assert.deepEqual(informer.list(namespace).map((o) => o.metadata!.name).sort(), ['acme', 'initech']);
    } finally {
      await informer.stop();
    }
  });

  it('ends every open watch on expireWatches(), with a last BOOKMARK where the watch allows them', async () => {
    const bookmarked = await watchTenants({ allowWatchBookmarks: true });
    const plain = await watch(kc, `/api/v1/secrets`);
    watches.push(plain);
    assert.equal(api.openWatches(), 2);

    api.expireWatches();
    assert.equal(await bookmarked.done, null);
    assert.equal(await plain.done, null);
    assert.equal(api.openWatches(), 0);
    assert.deepEqual(bookmarked.events.map((e) => e.type), ['BOOKMARK']);
    assert.deepEqual(bookmarked.events[0]!.object, { kind: 'Tenant', apiVersion: `${group}/${version}`, metadata: { resourceVersion: api.resourceVersion() } });
    assert.deepEqual(plain.events, []);
  });

  it('sends periodic BOOKMARKs when configured, and ends a watch at timeoutSeconds', async () => {
    await api.close();
    api = await startFakeKubeApi({ bookmarkIntervalMs: 100 });
    kc = api.kubeConfig();
    const started = Date.now();
    const w = await watchTenants({ allowWatchBookmarks: true, timeoutSeconds: 1 });
    assert.equal(await w.done, null);
    assert.ok(Date.now() - started >= 900, 'the stream lasted about timeoutSeconds');
    assert.ok(w.events.length >= 5, `${w.events.length} bookmarks`);
    assert.ok(w.events.every((e) => e.type === 'BOOKMARK'));
    assert.equal(api.openWatches(), 0);
  });

  it('serves Leases: create, replace, 409 on a stale resourceVersion, MicroTime as the real server parses it', async () => {
    const leases = kc.makeApiClient(CoordinationV1Api);
    const spec = { holderIdentity: 'pod-a', leaseDurationSeconds: 15, acquireTime: new V1MicroTime(), renewTime: new V1MicroTime() };
    const lease = await leases.createNamespacedLease({ namespace, body: { metadata: { name: 'lore-operator' }, spec } });
    assert.equal(lease.spec?.holderIdentity, 'pod-a');
    const stored: any = api.get('coordination.k8s.io', 'v1', 'leases', namespace, 'lore-operator');
    assert.match(stored.spec.renewTime, /\.\d{6}Z$/, 'V1MicroTime sends six fractional digits');

    const renewed = await leases.replaceNamespacedLease({ namespace, name: 'lore-operator', body: { ...lease, spec: { ...spec, holderIdentity: 'pod-b', renewTime: new V1MicroTime() } } });
    assert.equal(renewed.spec?.holderIdentity, 'pod-b');
    const stale = await rejectsWithStatus(leases.replaceNamespacedLease({ namespace, name: 'lore-operator', body: { ...lease, spec: { ...spec, holderIdentity: 'pod-c' } } }), 409, 'Conflict');
    assert.match(stale.message, /^Operation cannot be fulfilled on leases\.coordination\.k8s\.io "lore-operator"/);

    // A plain Date serialises with three fractional digits, which the real server cannot parse as a MicroTime.
    await rejectsWithStatus(
      leases.createNamespacedLease({ namespace, body: { metadata: { name: 'dated' }, spec: { holderIdentity: 'pod-a', renewTime: new Date() } } }),
      400,
      'BadRequest',
    );
    const { resourceVersion: _rv, ...unversioned } = renewed.metadata!;
    const unconditional = await leases.replaceNamespacedLease({ namespace, name: 'lore-operator', body: { ...renewed, metadata: unversioned, spec: { ...spec, holderIdentity: 'pod-d' } } });
    assert.equal(unconditional.spec?.holderIdentity, 'pod-d', 'built-in kinds allow an unconditional replace');
  });

  it('records Events through both Event APIs, with the real validation of each', async () => {
    const regarding = { apiVersion: `${group}/${version}`, kind: 'Tenant', name: 'acme', namespace, uid: '00000000-0000-0000-0000-000000000001' };
    const coreEvent = await core.createNamespacedEvent({
      namespace,
      body: { metadata: { name: 'acme.1' }, involvedObject: regarding, reason: 'Reconciled', message: 'ready', type: 'Normal', count: 1, firstTimestamp: new Date(), source: { component: 'lore-operator' } },
    });
    assert.equal(coreEvent.reason, 'Reconciled');
    const mismatch = await rejectsWithStatus(
      core.createNamespacedEvent({ namespace, body: { metadata: { name: 'acme.2' }, involvedObject: { ...regarding, namespace: undefined }, reason: 'Reconciled' } }),
      422,
      'Invalid',
    );
    assert.match(mismatch.message, /involvedObject\.namespace: Invalid value: "": does not match event\.namespace/);
    const byObject = await core.listNamespacedEvent({ namespace, fieldSelector: 'involvedObject.name=acme,involvedObject.kind=Tenant' });
    assert.deepEqual(byObject.items.map((e) => e.metadata?.name), ['acme.1']);

    const events = kc.makeApiClient(EventsV1Api);
    const event = await events.createNamespacedEvent({
      namespace,
      body: {
        metadata: { generateName: 'acme.' },
        eventTime: new V1MicroTime(),
        reportingController: 'lore.dev/operator',
        reportingInstance: 'lore-operator-0',
        action: 'Reconcile',
        reason: 'Reconciled',
        note: 'ready',
        type: 'Normal',
        regarding,
      },
    });
    assert.equal(event.reportingController, 'lore.dev/operator');
    assert.equal(api.list('events.k8s.io', 'v1', 'events', namespace).length, 1);
    const incomplete = await rejectsWithStatus(
      events.createNamespacedEvent({ namespace, body: { metadata: { name: 'acme.3' }, eventTime: new V1MicroTime(), reason: 'Reconciled', type: 'Normal', regarding } }),
      422,
      'Invalid',
    );
    assert.deepEqual(incomplete.details.causes.map((c: any) => c.field).sort(), ['action', 'reportingController', 'reportingInstance']);
  });

  it('injects failures with failNext() and records every request', async () => {
    const t = await create(tenant('acme'));
    api.failNext({ method: 'PUT', pathIncludes: '/status', status: 409 });
    const injected = await rejectsWithStatus(customObjects.replaceNamespacedCustomObjectStatus({ ...tenants, name: 'acme', body: { ...t, status: { phase: 'Ready' } } }), 409, 'Conflict');
    assert.match(injected.message, /injected/);
    assert.equal(api.get(group, version, 'tenants', namespace, 'acme')?.status, undefined, 'the failed request had no effect');
    const written = await customObjects.replaceNamespacedCustomObjectStatus({ ...tenants, name: 'acme', body: { ...t, status: { phase: 'Ready' } } });
    assert.deepEqual(written.status, { phase: 'Ready' });

    api.resetRequests();
    await read('acme');
    await customObjects.listNamespacedCustomObject({ ...tenants, labelSelector: 'a=b' });
    assert.deepEqual(api.writes(), []);
    assert.deepEqual(
      api.requests.map((r) => [r.method, r.path, r.query]),
      [
        ['GET', `${TENANTS_PATH}/acme`, {}],
        ['GET', TENANTS_PATH, { labelSelector: 'a=b' }],
      ],
    );
    await customObjects.patchNamespacedCustomObject({ ...tenants, name: 'acme', body: { spec: { plan: 'pro' } } }, mergePatch);
    assert.deepEqual(
      api.writes().map((r) => [r.method, r.path, r.contentType, r.body]),
      [['PATCH', `${TENANTS_PATH}/acme`, 'application/merge-patch+json', { spec: { plan: 'pro' } }]],
    );

    const anonymous = await fetch(`${api.url}${TENANTS_PATH}`);
    assert.equal(anonymous.status, 401);
    assert.equal(((await anonymous.json()) as any).reason, 'Unauthorized');
  });

  it('lets a test write as another client with put() and remove()', async () => {
    const w = await watchTenants({ resourceVersion: api.resourceVersion() });
    const put = api.put({ ...tenant('acme', { plan: 'free' }, { namespace, finalizers: ['lore.dev/cleanup'] }), status: { phase: 'Ready' } });
    assert.deepEqual(put.status, { phase: 'Ready' }, 'put writes status too');
    assert.equal(put.metadata?.generation, 1);
    assert.equal(api.put({ ...put, spec: { plan: 'pro' } }).metadata?.generation, 2);
    assert.equal((await read('acme')).spec.plan, 'pro');

    assert.equal(api.remove(group, version, 'tenants', namespace, 'acme'), 'terminating');
    const terminating = api.get(group, version, 'tenants', namespace, 'acme')!;
    api.put({ ...terminating, metadata: { ...terminating.metadata, finalizers: [] } });
    assert.equal(api.get(group, version, 'tenants', namespace, 'acme'), undefined);
    assert.equal(api.remove(group, version, 'tenants', namespace, 'acme'), 'absent');
    await pollUntil('the DELETED event', () => w.events.length === 4, { intervalMs: 5 });
    assert.deepEqual(seen(w), ['ADDED acme', 'MODIFIED acme', 'MODIFIED acme', 'DELETED acme']);
  });

  it('answers discovery, so KubernetesObjectApi works too', async () => {
    await create(tenant('acme'));
    const objects = KubernetesObjectApi.makeApiClient(kc);
    const read = await objects.read<KubernetesObject & { spec?: { plan: string } }>({ apiVersion: `${group}/${version}`, kind: 'Tenant', metadata: { name: 'acme', namespace } });
    assert.equal(read.spec?.plan, 'free');
    await objects.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'generic', namespace } });
    assert.ok(api.get('', 'v1', 'secrets', namespace, 'generic'));
  });
});
