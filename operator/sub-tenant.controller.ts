import { ignoreNotFound } from '../core/errors.js';
import { type CreateSubTenantInput, LIMIT_FIELDS, createSubTenantSchema } from '../core/sub-tenants/sub-tenant.schema.js';
import type { ConditionResult } from './conditions.js';
import {
  type Controller,
  type ControllerDeps,
  asError,
  FINALIZER,
  INVALID_SPEC_RECHECK_MS,
  type ReconcileResult,
  WAIT_MS,
  changedFields,
  failure,
  isPermanent,
  ok,
  ownFields,
  publish,
  recordEvent,
  setFinalizer,
  snakeKeys,
} from './controller.js';
import type { CustomResource, EventNote, ObjectRef } from './kube.js';
import type { SubTenantSpec, SubTenantStatus } from './resources.js';
import { API_KEY_SECRET_KEYS, ensureApiKeySecret } from './secrets.js';
import type { TenantResource } from './tenant.controller.js';

export type SubTenantResource = CustomResource<SubTenantSpec, SubTenantStatus>;

export function subTenantNames(subTenant: Pick<SubTenantResource, 'metadata'>) {
  return { apiKeySecret: `${subTenant.metadata.name}-lore-api-key` };
}

/** The sub-tenant's record as the resource asks: its limits are the platform team's (unset: none of its own). */
function desiredSubTenant(spec: SubTenantSpec): CreateSubTenantInput {
  const limits = snakeKeys(spec.limits ?? {});
  return { name: spec.name, ...(spec.externalId ? { external_id: spec.externalId } : {}), ...Object.fromEntries(LIMIT_FIELDS.map((f) => [f, limits[f] ?? null])) };
}

/**
 * Reconciles a SubTenant of an Enterprise Tenant in the same namespace: the Lore sub-tenant (found
 * again by the resource's uid), its limits, and a write API key in a Secret. It waits while its
 * Tenant is not ready. Deleting it removes only the sub-tenant and its data.
 */
export class SubTenantController implements Controller {
  readonly kind = 'SubTenant';
  readonly plural = 'subtenants';

  constructor(private readonly deps: ControllerDeps) {}

  async reconcile(ref: ObjectRef): Promise<ReconcileResult> {
    const subTenant = await this.deps.kube.getResource<SubTenantResource>(this.plural, ref);
    if (!subTenant) return;
    if (subTenant.metadata.deletionTimestamp) return this.finalize(subTenant);
    await setFinalizer(this.deps, this.plural, subTenant, true);

    const results: Array<[string, ConditionResult]> = [];
    const notes: EventNote[] = [];
    const status = ownFields(subTenant.status);
    const finish = (requeueAfterMs?: number) => publish(this.deps, this.plural, subTenant, results, status, notes).then(() => (requeueAfterMs === undefined ? undefined : { requeueAfterMs }));

    const parent = await this.deps.kube.getResource<TenantResource>('tenants', { namespace: ref.namespace, name: subTenant.spec.tenantRef.name });
    const owners = subTenant.metadata.ownerReferences ?? [];
    if (parent && !owners.some((owner) => owner.uid === parent.metadata.uid)) {
      // Owned by its Tenant: deleting the Tenant deletes its SubTenants (each through its own finalizer).
      const owner = { apiVersion: parent.apiVersion!, kind: parent.kind!, name: parent.metadata.name, uid: parent.metadata.uid };
      await this.deps.kube.setOwnerReferences(this.plural, ref, [...owners, owner]);
    }
    const tenant = parent && !parent.metadata.deletionTimestamp ? await this.deps.platform.findTenant(parent.metadata.uid) : undefined;
    if (!tenant) {
      results.push(['TenantSynced', { status: 'Unknown', reason: 'TenantNotReady', message: `Tenant ${subTenant.spec.tenantRef.name} does not exist or has no Lore tenant yet.` }]);
      return finish(WAIT_MS);
    }
    if (tenant.plan !== 'enterprise') {
      results.push(['TenantSynced', { status: 'False', reason: 'EnterprisePlanRequired', message: `Sub-tenants require the Enterprise plan; Tenant ${parent!.metadata.name} is on ${tenant.plan}.` }]);
      return finish(INVALID_SPEC_RECHECK_MS);
    }
    const desired = createSubTenantSchema.safeParse(desiredSubTenant(subTenant.spec));
    if (!desired.success) {
      results.push(['TenantSynced', { status: 'False', reason: 'InvalidSpec', message: desired.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') }]);
      return finish(INVALID_SPEC_RECHECK_MS);
    }
    status.tenantId = tenant.id;

    let retry: unknown;
    try {
      let row = await this.deps.platform.findSubTenant(tenant.id, subTenant.metadata.uid);
      if (!row) {
        row = await this.deps.platform.createSubTenant(tenant.id, desired.data, subTenant.metadata.uid);
        notes.push({ type: 'Normal', reason: 'SubTenantCreated', message: `Created Lore sub-tenant ${row.id} of tenant ${tenant.id}.` });
      }
      const { external_id: _externalId, ...updatable } = desired.data;
      const patch = changedFields(row as unknown as Record<string, unknown>, updatable);
      if (Object.keys(patch).length > 0) {
        row = await this.deps.platform.updateSubTenant(tenant.id, row.id, patch);
        notes.push({ type: 'Normal', reason: 'SubTenantUpdated', message: `Updated ${Object.keys(patch).join(', ')} of Lore sub-tenant ${row.id}.` });
      }
      status.subTenantId = row.id;
      results.push(['TenantSynced', ok('Synced', `Lore sub-tenant ${row.id} of tenant ${tenant.id}.`)]);
      results.push(['QuotasApplied', ok('Applied', subTenant.spec.limits ? 'The sub-tenant limits are applied, inside the tenant\'s own.' : "The tenant's limits apply (no sub-tenant limits).")]);
      const key = await ensureApiKeySecret({
        ...this.deps,
        owner: subTenant,
        secretName: subTenantNames(subTenant).apiKeySecret,
        scope: { tenantId: tenant.id, subTenantId: row.id },
        previousKeyId: subTenant.status?.apiKeyId,
      });
      status.apiKeyId = key.keyId;
      status.apiKeySecretRef = { name: subTenantNames(subTenant).apiKeySecret, key: API_KEY_SECRET_KEYS.apiKey };
      if (key.changed) notes.push({ type: 'Normal', reason: 'ApiKeySecretWritten', message: `A write key of the sub-tenant is in Secret ${status.apiKeySecretRef.name}.` });
    } catch (err) {
      results.splice(0, results.length, ['TenantSynced', failure(isPermanent(err) ? 'Rejected' : 'SyncFailed', err)]);
      notes.push({ type: 'Warning', reason: 'ReconcileFailed', message: results[0]![1].message });
      if (!isPermanent(err)) retry = err;
      await finish();
      if (retry !== undefined) throw asError(retry);
      return { requeueAfterMs: INVALID_SPEC_RECHECK_MS };
    }
    try {
      await this.deps.platform.ensureTenantVectors(tenant.id);
      results.push(['VectorCollectionsReady', ok('TenantCollection', "The sub-tenant's vectors live in its tenant's collection, filtered by sub-tenant.")]);
    } catch (err) {
      results.push(['VectorCollectionsReady', failure('VectorIndexUnavailable', err)]);
      retry = err;
    }
    await finish();
    if (retry !== undefined) throw asError(retry);
    return undefined;
  }

  private async finalize(subTenant: SubTenantResource): Promise<ReconcileResult> {
    if (!(subTenant.metadata.finalizers ?? []).includes(FINALIZER)) return;
    const { tenantId, subTenantId } = subTenant.status ?? {};
    if (tenantId && subTenantId) {
      // Gone already, with its tenant or by hand: nothing left to remove.
      await this.deps.platform.removeSubTenant(tenantId, subTenantId).catch(ignoreNotFound);
    }
    await this.deps.kube.deleteSecret({ namespace: subTenant.metadata.namespace, name: subTenantNames(subTenant).apiKeySecret });
    await recordEvent(this.deps, subTenant, { type: 'Normal', reason: 'SubTenantDeleted', message: subTenantId ? `Deleted Lore sub-tenant ${subTenantId} and its data.` : 'No Lore sub-tenant was left to delete.' });
    await setFinalizer(this.deps, this.plural, subTenant, false);
  }
}
