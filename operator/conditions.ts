import { isDeepStrictEqual } from 'node:util';

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string | undefined;
  message?: string | undefined;
  lastTransitionTime?: string | undefined;
  observedGeneration?: number | undefined;
}

/** What one reconcile step concluded about its condition. */
export interface ConditionResult {
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
}

/**
 * The conditions after a reconcile: each type set to its result for this generation. A condition
 * keeps its lastTransitionTime unless its status changed (Kubernetes' convention), so a reconcile
 * that finds nothing new computes exactly the stored list and writes nothing.
 */
export function mergeConditions(
  previous: readonly Condition[] | undefined,
  results: ReadonlyArray<[string, ConditionResult]>,
  generation: number,
  now: Date,
): Condition[] {
  return results.map(([type, result]) => {
    const before = previous?.find((c) => c.type === type);
    const lastTransitionTime = before && before.status === result.status && before.lastTransitionTime ? before.lastTransitionTime : now.toISOString().replace(/\.\d{3}Z$/, 'Z');
    return { type, status: result.status, reason: result.reason, message: result.message.slice(0, 4096), lastTransitionTime, observedGeneration: generation };
  });
}

/** Whether writing `next` as the status would change anything (the no-op reconcile writes nothing). */
export function statusChanged(current: object | undefined, next: object): boolean {
  return !isDeepStrictEqual(JSON.parse(JSON.stringify(current ?? {})), JSON.parse(JSON.stringify(next)));
}
