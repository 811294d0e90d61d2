import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import { AppError } from '../core/errors.js';
import { type ConditionResult, type Condition, mergeConditions, statusChanged } from './conditions.js';
import type { IdentityProvider } from './identity-provider.js';
import { type CustomResource, type EventNote, type KubeApi, type ObjectRef, apiStatus } from './kube.js';
import type { LorePlatform } from './lore-platform.js';

/** Held on every Tenant and SubTenant until what the operator made outside the cluster is removed. */
export const FINALIZER = 'lore.dev/cleanup';

/** How soon to look again at an object that waits for something else (its parent tenant, a fix of its spec). */
export const WAIT_MS = 10_000;
/** Spec errors are not retried quickly: the object changes (and is reconciled) when someone fixes it. */
export const INVALID_SPEC_RECHECK_MS = 5 * 60_000;

export type ReconcileResult = { requeueAfterMs?: number } | void;

export interface Controller {
  readonly kind: string;
  readonly plural: string;
  reconcile(ref: ObjectRef): Promise<ReconcileResult>;
}

export interface ControllerDeps {
  kube: KubeApi;
  platform: LorePlatform;
  identity: IdentityProvider;
  /** The MCP resource identifiers tokens must name as audience. */
  mcpAudiences: string[];
  log: Logger;
  now: () => Date;
}

/** What a failed step throws on with, so the work queue retries it. */
export function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/** A step's failure that retrying cannot fix (Lore rejected the spec): reported, not retried with backoff. */
export function isPermanent(err: unknown): boolean {
  return err instanceof AppError && err.status >= 400 && err.status < 500 && err.status !== 409 && err.status !== 429;
}

export function failure(reason: string, err: unknown): ConditionResult {
  const status = apiStatus(err);
  const text = err instanceof Error ? err.message : String(err);
  return { status: 'False', reason, message: status ? `Kubernetes API ${status}: ${text}` : text };
}

export const ok = (reason: string, message: string): ConditionResult => ({ status: 'True', reason, message });

export interface StatusBase {
  phase?: 'Pending' | 'Ready' | 'Failed' | 'Deleting' | undefined;
  conditions?: Condition[] | undefined;
  observedGeneration?: number | undefined;
}

/** The status fields a controller keeps itself (ids, Secret references), without those `publish` computes. */
export function ownFields<S extends StatusBase>(status: S | undefined): Omit<S, keyof StatusBase> {
  const own: Record<string, unknown> = { ...status };
  delete own.phase;
  delete own.conditions;
  delete own.observedGeneration;
  return own as Omit<S, keyof StatusBase>;
}

/**
 * Writes the status a reconcile arrived at (conditions with their transition times kept, Ready as
 * the conjunction of the others, observedGeneration) and the events it collected, and writes
 * nothing when the stored status already says all of it.
 */
export async function publish<S extends StatusBase>(
  deps: ControllerDeps,
  plural: string,
  object: CustomResource<unknown, S>,
  results: Array<[string, ConditionResult]>,
  fields: Omit<S, keyof StatusBase>,
  notes: EventNote[],
): Promise<void> {
  const generation = object.metadata.generation ?? 0;
  const failed = results.find(([, r]) => r.status !== 'True');
  const ready: ConditionResult = failed
    ? { status: 'False', reason: failed[1].reason, message: `${failed[0]}: ${failed[1].message}` }
    : { status: 'True', reason: 'Reconciled', message: 'Everything the resource asks for is in place.' };
  const conditions = mergeConditions(object.status?.conditions, [['Ready', ready], ...results], generation, deps.now());
  const next = { ...(JSON.parse(JSON.stringify(fields)) as object), phase: failed ? (failed[1].status === 'False' ? 'Failed' : 'Pending') : 'Ready', conditions, observedGeneration: generation } as S;
  const ref = { namespace: object.metadata.namespace, name: object.metadata.name };
  if (statusChanged(object.status, next)) await deps.kube.patchStatus(plural, ref, withRemovals(object.status, next));
  for (const note of notes) await recordEvent(deps, object, note);
}

/** A merge patch removes a field only when it says null: fields the new status no longer has. */
function withRemovals(current: object | undefined, next: object): object {
  const patch: Record<string, unknown> = { ...next };
  for (const key of Object.keys(current ?? {})) if (!(key in next)) patch[key] = null;
  return patch;
}

/** Events are for people; failing to record one must not fail the reconcile. */
export async function recordEvent(deps: ControllerDeps, object: CustomResource<unknown, unknown>, note: EventNote): Promise<void> {
  await deps.kube.recordEvent(object, note, note.reason).catch((err: unknown) => {
    deps.log.warn({ err: String(err), reason: note.reason }, 'could not record an event');
  });
}

/** Fields of `desired` whose value differs from `current` (arrays compared as sets). */
export function changedFields<T extends Record<string, unknown>>(current: Record<string, unknown>, desired: T): Partial<T> {
  const patch: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(desired)) {
    const before = current[key];
    const same = Array.isArray(value) && Array.isArray(before) ? isDeepStrictEqual([...(value as unknown[])].sort(), [...(before as unknown[])].sort()) : isDeepStrictEqual(normalize(before), normalize(value));
    if (!same) patch[key] = value;
  }
  return patch as Partial<T>;
}

function normalize(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

/** `maxKnowledgeBases` → `max_knowledge_bases`: the resources use Kubernetes' casing, Lore's API snake case. */
export function snakeKeys(object: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]));
}

/** Adds or removes the operator's finalizer; the resourceVersion makes a concurrent change fail (409) and retry. */
export async function setFinalizer(deps: ControllerDeps, plural: string, object: CustomResource<unknown, unknown>, present: boolean): Promise<void> {
  const finalizers = object.metadata.finalizers ?? [];
  if (finalizers.includes(FINALIZER) === present) return;
  const next = present ? [...finalizers, FINALIZER] : finalizers.filter((f) => f !== FINALIZER);
  await deps.kube.setFinalizers(plural, { namespace: object.metadata.namespace, name: object.metadata.name }, next, object.metadata.resourceVersion!);
}
