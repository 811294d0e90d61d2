import type { KubernetesObject } from '@kubernetes/client-node';
import type { OperatorConfig } from '../core/config.js';
import type { Controller, ControllerDeps } from './controller.js';
import { Informer, objectKey } from './informer.js';
import { LeaderElector } from './leader-election.js';
import type { OperatorMetrics } from './operator-metrics.js';
import type { SubTenantResource } from './sub-tenant.controller.js';
import { SubTenantController } from './sub-tenant.controller.js';
import { TenantController } from './tenant.controller.js';
import { WorkQueue } from './work-queue.js';

export interface OperatorOptions extends ControllerDeps {
  config: Pick<OperatorConfig, 'watchNamespaces' | 'lease' | 'identity' | 'resyncSeconds' | 'concurrency'>;
  metrics: OperatorMetrics;
  /** Leader-election timings (client-go's defaults: 15 s lease, 10 s renew deadline, 2 s retry). */
  leaderElection?: { leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number };
  /** First and longest retry delay of a failing reconcile. */
  backoff?: { baseDelayMs: number; maxDelayMs: number };
}

interface Loop {
  controller: Controller;
  queue: WorkQueue;
  informers: Array<Informer<KubernetesObject>>;
}

/**
 * The operator's wiring: per resource kind, informers (one per watched namespace, or one for all)
 * feed a work queue whose workers call the controller. Every replica watches, so a new leader
 * starts with a warm cache; only the leader's queues run.
 */
export class Operator {
  private readonly loops: Loop[];
  private readonly elector: LeaderElector;

  constructor(private readonly options: OperatorOptions) {
    const subTenantLoop = this.loop(new SubTenantController(options));
    // A Tenant's change (its plan, its readiness) matters to its SubTenants: look at them again.
    const wakeSubTenants = (tenant: KubernetesObject) => {
      for (const sub of subTenantLoop.informers.flatMap((i) => i.list(tenant.metadata?.namespace)) as SubTenantResource[]) {
        if (sub.spec.tenantRef.name === tenant.metadata?.name) subTenantLoop.queue.add(objectKey(sub));
      }
    };
    this.loops = [this.loop(new TenantController(options), wakeSubTenants), subTenantLoop];
    this.elector = new LeaderElector(options.kube, {
      lease: options.config.lease,
      identity: options.config.identity,
      ...(options.leaderElection ?? { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 }),
      log: options.log.child({ component: 'leader-election' }),
      onStartedLeading: () => {
        options.metrics.setLeader(true);
        for (const { queue, informers } of this.loops) {
          for (const informer of informers) for (const object of informer.list()) queue.add(objectKey(object));
          queue.resume();
        }
      },
      onStoppedLeading: () => {
        options.metrics.setLeader(false);
        for (const { queue } of this.loops) queue.pause();
      },
    });
  }

  private loop(controller: Controller, onChange?: (object: KubernetesObject) => void): Loop {
    const { options } = this;
    const log = options.log.child({ controller: controller.kind });
    const queue = new WorkQueue({
      concurrency: options.config.concurrency,
      ...(options.backoff ?? { baseDelayMs: 1000, maxDelayMs: 5 * 60_000 }),
      process: async (key) => {
        const [namespace = '', name = ''] = key.split('/');
        const started = process.hrtime.bigint();
        try {
          const result = await controller.reconcile({ namespace, name });
          options.metrics.reconciled(controller.kind, result?.requeueAfterMs !== undefined ? 'requeue' : 'success', seconds(started));
          return result;
        } catch (err) {
          options.metrics.reconciled(controller.kind, 'error', seconds(started));
          throw err;
        }
      },
      onFailure: (key, err, failures) => log.warn({ key, failures, err: err instanceof Error ? err.message : String(err) }, 'reconcile failed; retrying with backoff'),
    });
    options.metrics.watchQueue(controller.kind, () => queue.depth());
    const namespaces = options.config.watchNamespaces.length ? options.config.watchNamespaces : [undefined];
    const informers = namespaces.map(
      (namespace) =>
        new Informer<KubernetesObject>({
          kubeConfig: options.kube.kubeConfig,
          path: options.kube.resourcePath(controller.plural, namespace),
          list: () => options.kube.listResources(controller.plural, namespace),
          resyncMs: options.config.resyncSeconds * 1000,
          onChange: (object) => {
            queue.add(objectKey(object));
            onChange?.(object);
          },
          log,
        }),
    );
    return { controller, queue, informers };
  }

  async start(): Promise<void> {
    await Promise.all(this.loops.flatMap((l) => l.informers.map((i) => i.start())));
    this.elector.start();
  }

  /** Ready when every informer has its first list (leader or not: a standby is ready to take over). */
  isReady(): boolean {
    return this.loops.every((l) => l.informers.every((i) => i.hasSynced()));
  }

  isLeader(): boolean {
    return this.elector.isLeader();
  }

  /** Resolves when no reconcile is queued, running or waiting for a retry (tests). */
  async idle(): Promise<void> {
    await Promise.all(this.loops.map((l) => l.queue.idle()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.loops.flatMap((l) => l.informers.map((i) => i.stop())));
    await Promise.all(this.loops.map((l) => l.queue.shutDown()));
    await this.elector.stop();
  }
}

function seconds(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e9;
}
