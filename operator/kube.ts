import {
  ApiException,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  EventsV1Api,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  PatchStrategy,
  type V1Lease,
  type V1ObjectMeta,
  type V1OwnerReference,
  type V1Secret,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { GROUP, VERSION } from './resources.js';

/** A Tenant or SubTenant as the API server returns it. */
export interface CustomResource<Spec, Status> extends KubernetesObject {
  metadata: V1ObjectMeta & { name: string; namespace: string; uid: string };
  spec: Spec;
  status?: Status;
}

export interface ObjectRef {
  namespace: string;
  name: string;
}

export interface EventNote {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/** The HTTP status of a failed Kubernetes API call, if it was one. */
export function apiStatus(err: unknown): number | undefined {
  return err instanceof ApiException ? (err as ApiException<unknown>).code : undefined;
}

async function orUndefinedOn404<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (err) {
    if (apiStatus(err) === 404) return undefined;
    throw err;
  }
}

/**
 * Lease times are MicroTime: the API server parses exactly six fractional digits, while
 * `Date#toISOString` writes three (kubernetes-client/javascript#828), so every lease write would
 * get a 400. This Date serialises with six.
 */
export class MicroTime extends Date {
  override toISOString(): string {
    return super.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
  }
}

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/**
 * The Kubernetes calls the operator makes, through client-node's generated clients: custom
 * resources and their status subresource, Secrets, Events and the leader-election Lease.
 */
export class KubeApi {
  private readonly custom: CustomObjectsApi;
  private readonly core: CoreV1Api;
  private readonly events: EventsV1Api;
  private readonly coordination: CoordinationV1Api;

  constructor(
    readonly kubeConfig: KubeConfig,
    /** Recorded as the reporting controller of Events. */
    private readonly controllerName = 'lore.dev/operator',
    private readonly instance = 'lore-operator',
  ) {
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.events = kubeConfig.makeApiClient(EventsV1Api);
    this.coordination = kubeConfig.makeApiClient(CoordinationV1Api);
  }

  /** The path informers watch: one namespace, or all of them. */
  resourcePath(plural: string, namespace?: string): string {
    return namespace ? `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${plural}` : `/apis/${GROUP}/${VERSION}/${plural}`;
  }

  listResources<T extends KubernetesObject>(plural: string, namespace?: string): Promise<KubernetesListObject<T>> {
    const call = namespace
      ? this.custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, plural, namespace })
      : this.custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural });
    return call as Promise<KubernetesListObject<T>>;
  }

  getResource<T>(plural: string, ref: ObjectRef): Promise<T | undefined> {
    return orUndefinedOn404(this.custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural, ...ref }) as Promise<T>);
  }

  /** Replaces the finalizers; the resourceVersion makes it fail (409) if the object changed meanwhile. */
  async setFinalizers(plural: string, ref: ObjectRef, finalizers: string[], resourceVersion: string): Promise<void> {
    await this.custom.patchNamespacedCustomObject(
      { group: GROUP, version: VERSION, plural, ...ref, body: { metadata: { finalizers, resourceVersion } } },
      mergePatch,
    );
  }

  /** Replaces the owner references (their list is the operator's to extend; a merge patch replaces lists whole). */
  async setOwnerReferences(plural: string, ref: ObjectRef, ownerReferences: V1OwnerReference[]): Promise<void> {
    await this.custom.patchNamespacedCustomObject({ group: GROUP, version: VERSION, plural, ...ref, body: { metadata: { ownerReferences } } }, mergePatch);
  }

  /** Writes `.status` through the status subresource (a merge patch: the fields given replace the stored ones). */
  async patchStatus(plural: string, ref: ObjectRef, status: object): Promise<void> {
    await this.custom.patchNamespacedCustomObjectStatus({ group: GROUP, version: VERSION, plural, ...ref, body: { status } }, mergePatch);
  }

  getSecret(ref: ObjectRef): Promise<V1Secret | undefined> {
    return orUndefinedOn404(this.core.readNamespacedSecret(ref));
  }

  async createSecret(secret: V1Secret & { metadata: { namespace: string } }): Promise<void> {
    await this.core.createNamespacedSecret({ namespace: secret.metadata.namespace, body: secret });
  }

  async replaceSecret(secret: V1Secret & { metadata: { namespace: string; name: string } }): Promise<void> {
    await this.core.replaceNamespacedSecret({ namespace: secret.metadata.namespace, name: secret.metadata.name, body: secret });
  }

  async deleteSecret(ref: ObjectRef): Promise<void> {
    await orUndefinedOn404(this.core.deleteNamespacedSecret(ref));
  }

  /** Records an Event about an object (events.k8s.io/v1), shown by `kubectl describe`. */
  async recordEvent(object: CustomResource<unknown, unknown>, note: EventNote, action: string): Promise<void> {
    const now = new MicroTime();
    await this.events.createNamespacedEvent({
      namespace: object.metadata.namespace,
      body: {
        metadata: { generateName: `${object.metadata.name}.`, namespace: object.metadata.namespace },
        eventTime: now,
        type: note.type,
        reason: note.reason,
        note: note.message.slice(0, 1024),
        action,
        reportingController: this.controllerName,
        reportingInstance: this.instance,
        regarding: {
          apiVersion: object.apiVersion,
          kind: object.kind,
          name: object.metadata.name,
          namespace: object.metadata.namespace,
          uid: object.metadata.uid,
          resourceVersion: object.metadata.resourceVersion,
        },
      },
    });
  }

  getLease(ref: ObjectRef): Promise<V1Lease | undefined> {
    return orUndefinedOn404(this.coordination.readNamespacedLease(ref));
  }

  createLease(lease: V1Lease & { metadata: { namespace: string } }): Promise<V1Lease> {
    return this.coordination.createNamespacedLease({ namespace: lease.metadata.namespace, body: lease });
  }

  /** Fails with 409 when the lease changed since it was read (its resourceVersion is in `lease`). */
  replaceLease(lease: V1Lease & { metadata: { namespace: string; name: string } }): Promise<V1Lease> {
    return this.coordination.replaceNamespacedLease({ namespace: lease.metadata.namespace, name: lease.metadata.name, body: lease });
  }
}
