import { OAUTH_SCOPES } from '../core/oauth/oauth.schema.js';
import { tenantScope } from '../core/shared/scope.js';
import { type UpdateTenantInput, createTenantSchema, updateTenantSchema } from '../core/tenants/tenant.schema.js';
import type { TenantRecord } from '../core/tenants/tenant.schema.js';
import type { ConditionResult } from './conditions.js';
import {
  type Controller,
  type ControllerDeps,
  asError,
  FINALIZER,
  INVALID_SPEC_RECHECK_MS,
  type ReconcileResult,
  changedFields,
  ownFields,
  failure,
  isPermanent,
  ok,
  publish,
  recordEvent,
  setFinalizer,
  snakeKeys,
} from './controller.js';
import type { McpClientCredentials } from './identity-provider.js';
import type { CustomResource, EventNote, ObjectRef } from './kube.js';
import type { TenantSpec, TenantStatus } from './resources.js';
import { API_KEY_SECRET_KEYS, OAUTH_SECRET_KEYS, ensureApiKeySecret, ensureSecret, secretValues } from './secrets.js';

export type TenantResource = CustomResource<TenantSpec, TenantStatus>;

/** Deterministic names of what the operator makes for a Tenant. */
export function tenantNames(tenant: Pick<TenantResource, 'metadata'>) {
  const { namespace, name } = tenant.metadata;
  return {
    apiKeySecret: `${name}-lore-api-key`,
    oauthSecret: `${name}-lore-mcp-client`,
    /** The identity provider's client id: unique per cluster namespace and resource name. */
    clientId: `lore-${namespace}-${name}`,
  };
}

/**
 * What the resource asks of the Lore tenant. The platform team owns name, plan, add-ons, limit
 * overrides and suspension: unset means none. Translation settings, anonymisation and the e-mail
 * are the tenant's to change through the API and portal, so the operator sets them only when the
 * resource does.
 */
function desiredTenant(spec: TenantSpec): UpdateTenantInput {
  return {
    name: spec.displayName,
    plan: spec.plan,
    status: spec.suspended ? 'suspended' : 'active',
    addons: spec.addons ?? [],
    limit_overrides: snakeKeys(spec.limitOverrides ?? {}),
    ...(spec.email !== undefined ? { email: spec.email } : {}),
    ...(spec.translation !== undefined ? { translation_config: spec.translation } : {}),
    ...(spec.anonymizeByDefault !== undefined ? { anonymize_default: spec.anonymizeByDefault } : {}),
  };
}

function describeLimits(limits: Record<string, unknown>): string {
  const entries = Object.entries(limits);
  return entries.length ? `Limit overrides applied: ${entries.map(([k, v]) => `${k}=${v === null ? 'unlimited' : JSON.stringify(v)}`).join(', ')}.` : "The plan's limits apply (no overrides).";
}

/**
 * Reconciles a Tenant: the Lore tenant (created once, found again by the resource's uid, then kept
 * equal to the spec), its limits, its admin API key in a Secret, its vector collection, and its MCP
 * OAuth client (Keycloak, or Lore's own authorization server) with credentials in a Secret. Level-
 * triggered and idempotent: every pass checks everything, repairs what drifted, and writes nothing
 * (in Kubernetes, Lore, Keycloak or Qdrant) when all is as the spec says. Deleting the resource
 * removes the client and the tenant with all its data before the finalizer is released.
 */
export class TenantController implements Controller {
  readonly kind = 'Tenant';
  readonly plural = 'tenants';

  constructor(private readonly deps: ControllerDeps) {}

  async reconcile(ref: ObjectRef): Promise<ReconcileResult> {
    const tenant = await this.deps.kube.getResource<TenantResource>(this.plural, ref);
    if (!tenant) return;
    if (tenant.metadata.deletionTimestamp) return this.finalize(tenant);
    await setFinalizer(this.deps, this.plural, tenant, true);

    const results: Array<[string, ConditionResult]> = [];
    const notes: EventNote[] = [];
    const names = tenantNames(tenant);
    const status = ownFields(tenant.status);
    let retry: unknown;
    const finish = async (): Promise<ReconcileResult> => {
      await publish(this.deps, this.plural, tenant, results, status, notes);
      if (retry !== undefined) throw asError(retry);
      return undefined;
    };

    // 1. The Lore tenant and its limits.
    const desired = updateTenantSchema.safeParse(desiredTenant(tenant.spec));
    if (!desired.success) {
      results.push(['TenantSynced', { status: 'False', reason: 'InvalidSpec', message: desired.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') }]);
      notes.push({ type: 'Warning', reason: 'InvalidSpec', message: results[0]![1].message });
      await finish();
      return { requeueAfterMs: INVALID_SPEC_RECHECK_MS };
    }
    let record: TenantRecord;
    let fresh: { key: string; id: string } | undefined;
    try {
      const found = await this.deps.platform.findTenant(tenant.metadata.uid);
      if (found) record = found;
      else {
        const input = createTenantSchema.parse({ name: tenant.spec.displayName, plan: tenant.spec.plan, email: tenant.spec.email });
        const created = await this.deps.platform.createTenant(input, tenant.metadata.uid);
        record = created.tenant;
        fresh = { key: created.apiKey, id: created.apiKeyId };
        notes.push({ type: 'Normal', reason: 'TenantCreated', message: `Created Lore tenant ${record.id} on the ${record.plan} plan.` });
      }
      const patch = changedFields(record as unknown as Record<string, unknown>, desired.data);
      if (Object.keys(patch).length > 0) {
        record = await this.deps.platform.updateTenant(record.id, patch);
        if (!fresh) notes.push({ type: 'Normal', reason: 'TenantUpdated', message: `Updated ${Object.keys(patch).join(', ')} of Lore tenant ${record.id}.` });
      }
      status.tenantId = record.id;
      results.push(['TenantSynced', ok('Synced', `Lore tenant ${record.id}: ${record.plan} plan, ${record.status}.`)]);
      results.push(['QuotasApplied', ok('Applied', describeLimits(record.limit_overrides))]);
    } catch (err) {
      results.push(['TenantSynced', failure(isPermanent(err) ? 'Rejected' : 'SyncFailed', err)]);
      notes.push({ type: 'Warning', reason: 'TenantSyncFailed', message: results.at(-1)![1].message });
      if (!isPermanent(err)) retry = err;
      await finish();
      return { requeueAfterMs: INVALID_SPEC_RECHECK_MS };
    }
    const scope = tenantScope(record.id);

    // 2. The admin API key, in a Secret.
    try {
      const key = await ensureApiKeySecret({ ...this.deps, owner: tenant, secretName: names.apiKeySecret, scope, fresh, previousKeyId: tenant.status?.apiKeyId });
      status.apiKeyId = key.keyId;
      status.apiKeySecretRef = { name: names.apiKeySecret, key: API_KEY_SECRET_KEYS.apiKey };
      if (key.changed && !fresh) notes.push({ type: 'Normal', reason: 'ApiKeySecretRepaired', message: `Issued a new admin key into Secret ${names.apiKeySecret}; the previous one is revoked.` });
    } catch (err) {
      // The key belongs to the tenant's synchronisation: its condition reports the failure.
      results[results.findIndex(([type]) => type === 'TenantSynced')] = ['TenantSynced', failure('ApiKeySecretFailed', err)];
      retry = err;
    }

    // 3. The vector collection (Qdrant keeps one per tenant; the other indexes share tables).
    try {
      const vectors = await this.deps.platform.ensureTenantVectors(record.id);
      if (vectors === 'created') notes.push({ type: 'Normal', reason: 'VectorCollectionCreated', message: 'Created the tenant\'s vector collection.' });
      results.push(['VectorCollectionsReady', ok(vectors === 'shared' ? 'SharedIndex' : 'CollectionReady', vectors === 'shared' ? 'The vector index keeps every tenant in shared, tenant-scoped tables.' : "The tenant's collection exists with its payload indexes.")]);
    } catch (err) {
      results.push(['VectorCollectionsReady', failure('VectorIndexUnavailable', err)]);
      retry ??= err;
    }

    // 4. The MCP OAuth client, with its credentials in a Secret.
    try {
      const existing = await this.deps.kube.getSecret({ namespace: tenant.metadata.namespace, name: names.oauthSecret });
      const stored = secretValues(existing);
      const [clientId, clientSecret, tokenUrl] = [stored[OAUTH_SECRET_KEYS.clientId], stored[OAUTH_SECRET_KEYS.clientSecret], stored[OAUTH_SECRET_KEYS.tokenUrl]];
      const current: McpClientCredentials | undefined = clientId && clientSecret && tokenUrl ? { clientId, clientSecret, tokenUrl } : undefined;
      const { credentials, changed } = await this.deps.identity.ensureClient(
        { clientId: names.clientId, displayName: `Lore MCP: ${tenant.spec.displayName}`, tenantId: record.id, subTenantId: null, scopes: OAUTH_SCOPES, audiences: this.deps.mcpAudiences },
        current,
      );
      const written = await ensureSecret(this.deps.kube, tenant, names.oauthSecret, existing, {
        [OAUTH_SECRET_KEYS.clientId]: credentials.clientId,
        [OAUTH_SECRET_KEYS.clientSecret]: credentials.clientSecret,
        [OAUTH_SECRET_KEYS.tokenUrl]: credentials.tokenUrl,
      });
      status.oauthClientSecretRef = { name: names.oauthSecret, key: OAUTH_SECRET_KEYS.clientSecret };
      if (changed || written) notes.push({ type: 'Normal', reason: 'IdentityClientSynced', message: `MCP client ${credentials.clientId} (${this.deps.identity.kind}) is in Secret ${names.oauthSecret}.` });
      results.push(['IdentityClientReady', ok('ClientReady', `MCP client ${credentials.clientId} in ${this.deps.identity.kind === 'keycloak' ? 'Keycloak' : "Lore's authorization server"}.`)]);
    } catch (err) {
      results.push(['IdentityClientReady', failure('IdentityProviderFailed', err)]);
      retry ??= err;
    }

    if (retry !== undefined) notes.push({ type: 'Warning', reason: 'ReconcileFailed', message: asError(retry).message });
    return finish();
  }

  /** Deletion: the MCP client, then the tenant with all its data (and vectors), then the finalizer. */
  private async finalize(tenant: TenantResource): Promise<ReconcileResult> {
    if (!(tenant.metadata.finalizers ?? []).includes(FINALIZER)) return;
    const names = tenantNames(tenant);
    const ref = { namespace: tenant.metadata.namespace, name: tenant.metadata.name };
    if (tenant.status?.phase !== 'Deleting') await this.deps.kube.patchStatus(this.plural, ref, { phase: 'Deleting' });
    const stored = secretValues(await this.deps.kube.getSecret({ namespace: ref.namespace, name: names.oauthSecret }));
    await this.deps.identity.deleteClient(stored[OAUTH_SECRET_KEYS.clientId] ?? names.clientId);
    const record = await this.deps.platform.findTenant(tenant.metadata.uid);
    if (record) await this.deps.platform.removeTenant(record.id);
    for (const secret of [names.apiKeySecret, names.oauthSecret]) await this.deps.kube.deleteSecret({ namespace: ref.namespace, name: secret });
    await recordEvent(this.deps, tenant, { type: 'Normal', reason: 'TenantDeleted', message: record ? `Deleted Lore tenant ${record.id} and all its data.` : 'No Lore tenant was left to delete.' });
    await setFinalizer(this.deps, this.plural, tenant, false);
  }
}
