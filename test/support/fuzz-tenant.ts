/**
 * The tenant the fuzzers act as: an Enterprise tenant with raised limits, pools of keys of every
 * role (several admin keys, so bursts can be spread), and real resources of every kind for path
 * parameters. Fuzzed operations change state (plan changes, DPA, key revocation, sub-tenant and
 * account deletion); `repair()` puts everything back before each operation's run.
 */
import { randomBytes } from 'node:crypto';
import { TEST_ADMIN_TOKEN, type TestApp, client, waitForJob } from './app.js';
import { multilingualPdf } from './pdf-fixtures.js';

type Api = ReturnType<typeof client>;

/** Limits far above what a fuzz run uses, so quotas and per-minute limits do not hide the handlers. */
const LIMIT_OVERRIDES = {
  max_knowledge_bases: null,
  max_documents: 10_000_000,
  max_document_size_bytes: 200 * 1024 * 1024,
  storage_bytes: 1024 ** 4,
  max_chunks: 100_000_000,
  query_rate_limit_per_min: 10_000_000,
};

const SUB_TENANT_LIMITS_CLEARED = {
  max_total_chunks: null,
  max_knowledge_bases: null,
  max_documents: null,
  max_document_size_bytes: null,
  query_rate_limit_per_min: null,
  included_queries_per_period: null,
  storage_quota_bytes: null,
  per_user_rate_limit_per_min: null,
  translation_config: {},
};

export const KEY_POOL_SIZES = { admin: 6, write: 2, read: 2, subWrite: 2, subRead: 1 } as const;
export type KeyRole = keyof typeof KEY_POOL_SIZES;

interface Key {
  id: string;
  key: string;
}

export interface ExportLink {
  id: string;
  expires: string;
  signature: string;
}

/** Resources whose ids the fuzzers use. Every pool has a fixed size, so a replayed case picks the same kind of resource. */
export interface Pools {
  knowledgeBases: string[];
  documents: string[];
  jobs: string[];
  subTenants: string[];
  subTenantKeys: string[];
  apiKeys: string[];
  exports: ExportLink[];
  corpora: string[];
  users: string[];
}

export class FuzzTenant {
  id = '';
  readonly keys: Record<KeyRole, Key[]> = { admin: [], write: [], read: [], subWrite: [], subRead: [] };
  /** A key revoked at creation: authentication must refuse it. */
  revokedKey = '';
  dpaVersion = 1;
  pools: Pools = { knowledgeBases: [], documents: [], jobs: [], subTenants: [], subTenantKeys: [], apiKeys: [], exports: [], corpora: [], users: ['alice', 'user@example.com', '42'] };
  /** Times the tenant had to be created anew (it was deleted by DELETE /v1/account). */
  recreated = 0;
  private readonly platform: Api;
  private corporaCreated = false;

  constructor(private readonly app: TestApp) {
    this.platform = client(app.url, TEST_ADMIN_TOKEN);
  }

  private api(key: Key | undefined = this.keys.admin[0]): Api {
    return client(this.app.url, key?.key);
  }

  /** Creates the platform corpora once (they belong to the instance), and the tenant with all its resources. */
  async repair(): Promise<void> {
    if (!this.corporaCreated) await this.createCorpora();
    const exists = this.id && (await this.platform('GET', `/internal/v1/tenants/${this.id}`)).status === 200;
    if (!exists) await this.createTenant();
    await this.expect(
      this.platform('PATCH', `/internal/v1/tenants/${this.id}`, {
        plan: 'enterprise',
        status: 'active',
        limit_overrides: LIMIT_OVERRIDES,
        per_user_rate_limit_per_min: 10_000_000,
        translation_config: {},
        anonymize_default: false,
        addons: ['transcription', 'report_generation'],
      }),
      200,
    );
    await this.repairTenantKeys();
    const admin = this.api();
    const cancel = await admin('DELETE', '/v1/billing/cancel');
    if (![200, 404].includes(cancel.status)) throw new Error(`retracting a cancellation: ${cancel.status} ${JSON.stringify(cancel.body)}`);
    this.dpaVersion = (await this.expect(admin('GET', '/v1/dpa/status'), 200)).current_version as number;
    await this.expect(admin('POST', '/v1/dpa/accept', { version: this.dpaVersion }), 200);
    await this.repairSubTenants();
    await this.repairKnowledgeBases();
    await this.repairDocuments();
    if (!this.pools.exports.length) this.pools.exports = [await this.newExport()];
  }

  /**
   * Deletes the corpora (they are the instance's, seen by every other suite) and the tenant with
   * all its data: its queued ingestion jobs would otherwise be left to the job engines of the
   * suites that share the test database.
   */
  async cleanUp(): Promise<void> {
    for (const slug of this.pools.corpora) await this.platform('DELETE', `/internal/v1/corpora/${slug}`);
    if (!this.id || (await this.platform('GET', `/internal/v1/tenants/${this.id}`)).status !== 200) return;
    const issued = await this.expect(this.platform('POST', `/internal/v1/tenants/${this.id}/api-keys`, {}), 201);
    await this.expect(client(this.app.url, issued.key as string)('DELETE', '/v1/account', undefined, { 'x-confirm-delete': 'DELETE_MY_ACCOUNT' }), 202);
  }

  private async expect(pending: ReturnType<Api>, status: number): Promise<any> {
    const res = await pending;
    if (res.status !== status) throw new Error(`fuzz tenant set-up: expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  private async createCorpora(): Promise<void> {
    const suffix = randomBytes(4).toString('hex');
    const specs = [
      { slug: `fuzz-open-${suffix}`, plans: ['free', 'payg', 'standard', 'enterprise'], requires_dua: false },
      { slug: `fuzz-dua-${suffix}`, plans: ['enterprise'], requires_dua: true },
      { slug: `fuzz-closed-${suffix}`, plans: [], requires_dua: false },
    ];
    for (const spec of specs) {
      await this.expect(this.platform('POST', '/internal/v1/corpora', { name: `Fuzz ${spec.slug}`, ...spec }), 201);
      this.pools.corpora.push(spec.slug);
    }
    const records = [
      { source_record_id: 'r1', content: 'Green tea is brewed at 80 degrees for two minutes.', metadata: { year: 2019, lang: 'en' } },
      { source_record_id: 'r2', content: 'Le thé noir infuse quatre minutes dans une eau frémissante.', metadata: { year: 2021, lang: 'fr' } },
    ];
    await this.expect(this.platform('POST', `/internal/v1/corpora/${specs[0]!.slug}/records`, { records }), 202);
    this.corporaCreated = true;
  }

  private async createTenant(): Promise<void> {
    if (this.id) this.recreated += 1;
    const created = await this.expect(this.platform('POST', '/internal/v1/tenants', { name: 'Fuzz tenant', plan: 'enterprise' }), 201);
    this.id = created.id as string;
    const listed = await this.expect(client(this.app.url, created.api_key as string)('GET', '/v1/auth/keys'), 200);
    this.keys.admin = [{ id: listed[0].id as string, key: created.api_key as string }];
    for (const role of ['write', 'read', 'subWrite', 'subRead'] as const) this.keys[role] = [];
    const pools = this.pools;
    this.pools = { ...pools, knowledgeBases: [], documents: [], jobs: [], subTenants: [], subTenantKeys: [], apiKeys: [], exports: [] };
    const revoked = await this.expect(this.api()('POST', '/v1/auth/keys', { name: 'revoked', role: 'admin' }), 201);
    await this.expect(this.api()('DELETE', `/v1/auth/keys/${revoked.id}`), 204);
    this.revokedKey = revoked.key as string;
  }

  /** Keeps the pools of tenant-level keys and the keys to be revoked full, replacing revoked ones. */
  private async repairTenantKeys(): Promise<void> {
    let active = await this.activeKeyIds();
    if (!this.keys.admin.some((k) => active.has(k.id))) {
      const issued = await this.expect(this.platform('POST', `/internal/v1/tenants/${this.id}/api-keys`, {}), 201);
      this.keys.admin.unshift({ id: issued.id as string, key: issued.key as string });
      active = await this.activeKeyIds();
    }
    for (const role of ['admin', 'write', 'read'] as const) {
      this.keys[role] = this.keys[role].filter((k) => active.has(k.id));
      while (this.keys[role].length < KEY_POOL_SIZES[role]) {
        const created = await this.expect(this.api()('POST', '/v1/auth/keys', { name: `fuzz ${role}`, role }), 201);
        this.keys[role].push({ id: created.id as string, key: created.key as string });
      }
    }
    // Keys that DELETE /v1/auth/keys/{id} may revoke: never those the fuzzer authenticates with.
    const victims = this.pools.apiKeys.filter((id) => active.has(id));
    while (victims.length < 3) {
      victims.push((await this.expect(this.api()('POST', '/v1/auth/keys', { name: 'fuzz victim', role: 'read' }), 201)).id as string);
    }
    this.pools.apiKeys = victims;
  }

  private async activeKeyIds(): Promise<Set<string>> {
    for (const key of this.keys.admin) {
      const res = await this.api(key)('GET', '/v1/auth/keys');
      if (res.status === 200) {
        // The working key goes first: set-up requests use keys.admin[0].
        this.keys.admin = [key, ...this.keys.admin.filter((k) => k !== key)];
        return new Set((res.body as { id: string }[]).map((k) => k.id));
      }
    }
    return new Set();
  }

  /** Two sub-tenants (the first holds a knowledge base and the sub-tenant keys), limits cleared. */
  private async repairSubTenants(): Promise<void> {
    const admin = this.api();
    const alive: string[] = [];
    for (const id of this.pools.subTenants) if ((await admin('GET', `/v1/sub-tenants/${id}`)).status === 200) alive.push(id);
    if (alive[0] === undefined || alive[0] !== this.pools.subTenants[0]) {
      // The main sub-tenant is gone (or never was): its keys, knowledge base and documents went with it.
      this.keys.subWrite = [];
      this.keys.subRead = [];
      this.pools.subTenantKeys = [];
    }
    while (alive.length < 2) alive.push((await this.expect(admin('POST', '/v1/sub-tenants', { name: `fuzz sub-tenant ${alive.length + 1}` }), 201)).id as string);
    this.pools.subTenants = alive;
    const main = alive[0]!;
    for (const id of alive) await this.expect(admin('PATCH', `/v1/sub-tenants/${id}`, { name: 'fuzz sub-tenant', ...SUB_TENANT_LIMITS_CLEARED }), 200);
    const active = new Set(((await this.expect(admin('GET', `/v1/sub-tenants/${main}/api-keys`), 200)) as { id: string }[]).map((k) => k.id));
    for (const [pool, role] of [['subWrite', 'write'], ['subRead', 'read']] as const) {
      this.keys[pool] = this.keys[pool].filter((k) => active.has(k.id));
      while (this.keys[pool].length < KEY_POOL_SIZES[pool]) {
        const created = await this.expect(admin('POST', `/v1/sub-tenants/${main}/api-keys`, { role }), 201);
        this.keys[pool].push({ id: created.id as string, key: created.key as string });
      }
    }
    const victims = this.pools.subTenantKeys.filter((id) => active.has(id));
    while (victims.length < 2) victims.push((await this.expect(admin('POST', `/v1/sub-tenants/${main}/api-keys`, { role: 'read' }), 201)).id as string);
    this.pools.subTenantKeys = victims;
  }

  /** One knowledge base of the tenant and one of the main sub-tenant, their settings reset. */
  private async repairKnowledgeBases(): Promise<void> {
    const visible = new Set(((await this.expect(this.api()('GET', '/v1/knowledge-bases'), 200)) as { id: string }[]).map((kb) => kb.id));
    const [own, sub] = this.pools.knowledgeBases;
    const kbs = [
      own && visible.has(own) ? own : ((await this.expect(this.api()('POST', '/v1/knowledge-bases', { name: 'fuzz' }), 201)).id as string),
      sub && visible.has(sub) ? sub : ((await this.expect(this.api(this.keys.subWrite[0])('POST', '/v1/knowledge-bases', { name: 'fuzz sub' }), 201)).id as string),
    ];
    for (const kb of kbs) await this.expect(this.api()('PATCH', `/v1/knowledge-bases/${kb}`, { name: 'fuzz', translation_config: {} }), 204);
    if (kbs.some((kb, i) => kb !== this.pools.knowledgeBases[i])) this.pools.documents = [];
    this.pools.knowledgeBases = kbs;
  }

  /** A text document, an uploaded text file, an uploaded PDF (tenant), and a text document of the sub-tenant. */
  private async repairDocuments(): Promise<void> {
    const admin = this.api();
    const present: boolean[] = [];
    for (const id of this.pools.documents) present.push((await admin('GET', `/v1/documents/${id}`)).status === 200);
    if (present.length === 4 && present.every(Boolean)) return;
    const [own, sub] = this.pools.knowledgeBases as [string, string];
    const text = 'Green tea is brewed at 80 degrees. Black tea needs boiling water and four minutes.';
    const makers: (() => Promise<{ job_id: string; document_id: string }>)[] = [
      () => this.expect(admin('POST', '/v1/documents', { knowledge_base_id: own, title: 'Tea', content: text, tags: { topic: 'tea' } }), 202),
      () => this.upload(own, Buffer.from(text), 'text/plain', 'tea.txt'),
      async () => this.upload(own, Buffer.from(await multilingualPdf()), 'application/pdf', 'lore.pdf'),
      () => this.expect(this.api(this.keys.subWrite[0])('POST', '/v1/documents', { knowledge_base_id: sub, title: 'Sub tea', content: text }), 202),
    ];
    const documents: string[] = [];
    const jobs: string[] = [];
    for (const [i, make] of makers.entries()) {
      if (present[i]) {
        documents.push(this.pools.documents[i]!);
        jobs.push(this.pools.jobs[i]!);
        continue;
      }
      const { job_id, document_id } = await make();
      await waitForJob(this.app, this.keys.admin[0]!.key, job_id);
      documents.push(document_id);
      jobs.push(job_id);
    }
    this.pools.documents = documents;
    this.pools.jobs = jobs;
  }

  private async upload(kb: string, data: Buffer, type: string, name: string): Promise<{ job_id: string; document_id: string }> {
    const form = new FormData();
    form.append('metadata', JSON.stringify({ knowledge_base_id: kb }));
    form.append('file', new Blob([data], { type }), name);
    return this.expect(this.api()('POST', '/v1/documents/upload', form), 202);
  }

  private async newExport(): Promise<ExportLink> {
    const body = await this.expect(this.api()('POST', '/v1/account/export'), 200);
    const url = new URL(body.download_url as string);
    return { id: url.pathname.split('/').pop()!, expires: url.searchParams.get('expires')!, signature: url.searchParams.get('signature')! };
  }
}
