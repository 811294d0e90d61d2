import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../core/config.js';
import { tenantScope } from '../../core/shared/scope.js';
import { startTestApp } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import { type FakeKubeApi, startFakeKubeApi } from '../support/fake-kube-api.server.js';
import { ROOT } from '../support/process.js';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitFor<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// The operator manages the tenants of a PostgreSQL server (it refuses an embedded database), so
// its process runs against the server database the suite uses when DATABASE_URL is set.
for (const database of testDatabases().filter((d) => d.name === 'postgres')) {
  describe('npm run operator: the process, its configuration, probes and shutdown (fake Kubernetes API server, test double)', function () {
    this.timeout(120_000);
    let kube: FakeKubeApi;
    let dir: string;
    let child: ChildProcess | undefined;
    let output = '';

    before(async () => {
      await database.get(); // migrated
      kube = await startFakeKubeApi();
      dir = await mkdtemp(path.join(tmpdir(), 'lore-operator-'));
    });
    after(async () => {
      if (child && child.exitCode === null) child.kill('SIGKILL');
      await kube.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('reconciles a Tenant from its service account credentials (KUBECONFIG), serves its probes, and gives the lease up on SIGTERM', async () => {
      const kubeconfig = path.join(dir, 'kubeconfig.yaml');
      await writeFile(kubeconfig, kube.kubeConfig().exportConfig());
      const port = await freePort();
      const config = loadConfig();
      assert.equal(config.database.kind, 'postgres');
      child = spawn(process.execPath, ['--import', 'tsx', 'operator/main.ts'], {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          KUBECONFIG: kubeconfig,
          DATABASE_URL: config.database.kind === 'postgres' ? config.database.url : '',
          PUBLIC_BASE_URL: 'https://lore.example.com',
          OPERATOR_PORT: String(port),
          HOST: '127.0.0.1',
          POD_NAME: 'lore-operator-0',
          POD_NAMESPACE: 'lore-system',
          LOG_LEVEL: 'info',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child!.once('exit', resolve));

      await waitFor(`/readyz (output: ${output})`, async () => {
        const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
        return res?.status === 200 ? true : undefined;
      });
      kube.put({ apiVersion: 'lore.dev/v1alpha1', kind: 'Tenant', metadata: { name: 'proc', namespace: 'team-b' }, spec: { displayName: 'Process Corp', plan: 'free' } });
      const tenant = await waitFor('the Tenant Ready', () => {
        const object = kube.get('lore.dev', 'v1alpha1', 'tenants', 'team-b', 'proc') as { status?: { phase?: string; tenantId?: string } } | undefined;
        return object?.status?.phase === 'Ready' ? object.status : undefined;
      });
      // The MCP client is in Lore's own authorization server (no KEYCLOAK_URL), reached at PUBLIC_BASE_URL.
      const secret = kube.get('', 'v1', 'secrets', 'team-b', 'proc-lore-mcp-client') as { data: Record<string, string> };
      assert.equal(Buffer.from(secret.data['token-url']!, 'base64').toString(), 'https://lore.example.com/oauth/token');
      const lease = kube.get('coordination.k8s.io', 'v1', 'leases', 'lore-system', 'lore-operator') as { spec: { holderIdentity?: string } };
      assert.equal(lease.spec.holderIdentity, 'lore-operator-0');
      // The reconcile is counted once it returns, after the status it wrote is visible here.
      const metrics = await waitFor('the reconcile counted', async () => {
        const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        return /lore_operator_reconcile_total\{kind="Tenant",result="success"\} [1-9]/.test(text) ? text : undefined;
      });
      assert.match(metrics, /lore_operator_leader 1/);

      child.kill('SIGTERM');
      assert.equal(await exited, 0, output);
      const released = kube.get('coordination.k8s.io', 'v1', 'leases', 'lore-system', 'lore-operator') as { spec: { holderIdentity?: string } };
      assert.equal(released.spec.holderIdentity, undefined, 'the lease is given up for the next replica');

      // The tenant is real: the suite's own app on the same database sees it.
      const app = await startTestApp(await database.get(), { jobs: false });
      try {
        assert.equal((await app.services.tenants.get(tenantScope(tenant.tenantId!))).name, 'Process Corp');
      } finally {
        await app.close();
      }
    });
  });
}
