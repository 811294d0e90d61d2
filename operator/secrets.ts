import type { V1OwnerReference, V1Secret } from '@kubernetes/client-node';
import type { Scope } from '../core/shared/scope.js';
import type { CustomResource, KubeApi } from './kube.js';
import type { LorePlatform } from './lore-platform.js';

export const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'lore-operator' };

/** The Secret keys the operator writes (documented in docs/kubernetes.md). */
export const API_KEY_SECRET_KEYS = { apiKey: 'api-key', keyId: 'key-id', tenantId: 'tenant-id', subTenantId: 'sub-tenant-id' } as const;
export const OAUTH_SECRET_KEYS = { clientId: 'client-id', clientSecret: 'client-secret', tokenUrl: 'token-url' } as const;

/** A Secret's values as text (the API returns `data` base64-encoded). */
export function secretValues(secret: V1Secret | undefined): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(secret?.data ?? {})) values[key] = Buffer.from(value, 'base64').toString('utf8');
  return values;
}

function ownerReference(owner: CustomResource<unknown, unknown>): V1OwnerReference {
  return { apiVersion: owner.apiVersion!, kind: owner.kind!, name: owner.metadata.name, uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true };
}

function isOwnedBy(secret: V1Secret, owner: CustomResource<unknown, unknown>): boolean {
  return (secret.metadata?.ownerReferences ?? []).some((ref) => ref.uid === owner.metadata.uid && ref.controller === true);
}

/**
 * Makes the Secret `name` in the owner's namespace hold exactly `values`, owned by the resource (so
 * Kubernetes deletes it with the resource). `existing` is the Secret as the caller read it (the
 * replace carries its resourceVersion, so a change since fails and is retried). Writes nothing when
 * it already holds them; true when it wrote.
 */
export async function ensureSecret(
  kube: KubeApi,
  owner: CustomResource<unknown, unknown>,
  name: string,
  existing: V1Secret | undefined,
  values: Record<string, string>,
): Promise<boolean> {
  const ref = { namespace: owner.metadata.namespace, name };
  const current = secretValues(existing);
  const same = existing && isOwnedBy(existing, owner) && Object.keys(current).length === Object.keys(values).length && Object.entries(values).every(([k, v]) => current[k] === v);
  if (same) return false;
  const body: V1Secret & { metadata: { namespace: string; name: string } } = {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      ...ref,
      labels: { ...MANAGED_BY, 'lore.dev/owner': owner.metadata.name },
      ownerReferences: [ownerReference(owner)],
      ...(existing?.metadata?.resourceVersion ? { resourceVersion: existing.metadata.resourceVersion } : {}),
    },
    stringData: values,
  };
  if (existing) await kube.replaceSecret(body);
  else await kube.createSecret(body);
  return true;
}

/**
 * The Secret holding an API key of a tenant (admin) or sub-tenant (write). Lore keeps only a key's
 * digest, so the Secret is the one copy: when it is missing, or names a key that was revoked, a new
 * key is issued and the one the Secret (or the status) named before is revoked, so no key the
 * operator issued stays valid unseen. `fresh` is the key a tenant was just created with.
 */
export async function ensureApiKeySecret(params: {
  kube: KubeApi;
  platform: LorePlatform;
  owner: CustomResource<unknown, unknown>;
  secretName: string;
  scope: Scope;
  fresh?: { key: string; id: string } | undefined;
  previousKeyId?: string | undefined;
}): Promise<{ keyId: string; changed: boolean }> {
  const { kube, platform, owner, secretName, scope } = params;
  const existing = await kube.getSecret({ namespace: owner.metadata.namespace, name: secretName });
  const stored = secretValues(existing);
  const storedId = stored[API_KEY_SECRET_KEYS.keyId];
  const storedKey = stored[API_KEY_SECRET_KEYS.apiKey];
  let key = params.fresh;
  if (!key && storedId && storedKey && (await platform.keyIsActive(scope, storedId))) key = { key: storedKey, id: storedId };
  let issued = false;
  if (!key) {
    key = await platform.issueKey(scope, `Kubernetes ${owner.kind} ${owner.metadata.namespace}/${owner.metadata.name}`);
    issued = true;
  }
  const values: Record<string, string> = { [API_KEY_SECRET_KEYS.apiKey]: key.key, [API_KEY_SECRET_KEYS.keyId]: key.id, [API_KEY_SECRET_KEYS.tenantId]: scope.tenantId };
  if (scope.subTenantId) values[API_KEY_SECRET_KEYS.subTenantId] = scope.subTenantId;
  const written = await ensureSecret(kube, owner, secretName, existing, values);
  if (issued) {
    for (const old of new Set([storedId, params.previousKeyId])) if (old && old !== key.id) await platform.revokeKey(scope, old);
  }
  return { keyId: key.id, changed: written || issued };
}
