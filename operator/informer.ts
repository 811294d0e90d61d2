import { ADD, DELETE, ERROR, type KubeConfig, type KubernetesListObject, type KubernetesObject, ListWatch, UPDATE, Watch } from '@kubernetes/client-node';
import type { Logger } from 'pino';

export interface InformerOptions<T extends KubernetesObject> {
  kubeConfig: KubeConfig;
  /** The collection to watch, e.g. `/apis/lore.dev/v1alpha1/tenants` (all namespaces). */
  path: string;
  list: () => Promise<KubernetesListObject<T>>;
  /** Every cached object is handed to `onChange` again this often (level-triggered safety net). */
  resyncMs: number;
  /** A watch that failed is started again after this delay, doubling up to 30 s. */
  restartDelayMs?: number;
  onChange: (object: T, event: 'add' | 'update' | 'delete' | 'resync') => void;
  log: Logger;
}

/** `namespace/name`: the work queue's key of an object. */
export function objectKey(object: KubernetesObject): string {
  return `${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;
}

/**
 * A shared informer over client-node's ListWatch: it lists, then watches from the list's
 * resourceVersion, and lists again when the server says that version has expired (410 Gone) or the
 * watch ends. What ListWatch leaves to its user is added here: a watch that fails with anything
 * else is restarted with backoff instead of staying stopped, the cache is resynced periodically,
 * and `hasSynced` tells when the first list has arrived.
 */
export class Informer<T extends KubernetesObject> {
  private readonly listWatch: ListWatch<T>;
  private synced = false;
  private stopped = true;
  private restartDelay: number;
  private restartTimer: NodeJS.Timeout | undefined;
  private resyncTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: InformerOptions<T>) {
    this.restartDelay = options.restartDelayMs ?? 1000;
    const list = async () => {
      const result = await options.list();
      this.synced = true;
      this.restartDelay = options.restartDelayMs ?? 1000;
      return result;
    };
    this.listWatch = new ListWatch<T>(options.path, new Watch(options.kubeConfig), list, false);
    this.listWatch.on(ADD, (o) => options.onChange(o, 'add'));
    this.listWatch.on(UPDATE, (o) => options.onChange(o, 'update'));
    this.listWatch.on(DELETE, (o) => options.onChange(o, 'delete'));
    this.listWatch.on(ERROR, (err) => this.restart(err));
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.listWatch.start();
    this.resyncTimer = setInterval(() => {
      for (const object of this.listWatch.list()) this.options.onChange(object, 'resync');
    }, this.options.resyncMs);
    this.resyncTimer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    clearInterval(this.resyncTimer);
    await this.listWatch.stop();
  }

  hasSynced(): boolean {
    return this.synced;
  }

  get(namespace: string, name: string): T | undefined {
    return this.listWatch.get(name, namespace);
  }

  list(namespace?: string): readonly T[] {
    return this.listWatch.list(namespace);
  }

  private restart(err: unknown): void {
    if (this.stopped) return;
    const delay = this.restartDelay;
    this.restartDelay = Math.min(30_000, delay * 2);
    this.options.log.warn({ err: describe(err), path: this.options.path, retryInMs: delay }, 'watch failed; starting it again');
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => {
      if (!this.stopped) this.listWatch.start().catch((e: unknown) => this.restart(e));
    }, delay);
    this.restartTimer.unref();
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
