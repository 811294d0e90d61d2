import type { V1Lease } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { type KubeApi, MicroTime, type ObjectRef, apiStatus } from './kube.js';

export interface LeaderElectionOptions {
  lease: ObjectRef;
  /** This replica's identity (its pod name). */
  identity: string;
  /** How long a lease holds without renewal before another replica may take it. */
  leaseDurationMs: number;
  /** A leader that has not renewed for this long stops acting (shorter than the lease duration). */
  renewDeadlineMs: number;
  /** How often to try to acquire or renew. */
  retryPeriodMs: number;
  onStartedLeading: () => void;
  onStoppedLeading: () => void;
  log: Logger;
  now?: () => number;
}

/**
 * Leader election over a coordination.k8s.io Lease, as client-go does it: a replica takes the lease
 * when nobody holds it or its holder has not renewed within the lease duration, and every write is
 * a replace with the resourceVersion it read, so of two replicas racing only one succeeds (the other
 * gets 409). Expiry is judged by when this replica last saw the lease change, on its own clock, not
 * by the holder's timestamps, so clocks that disagree cannot make two leaders. A leader that cannot
 * renew within the renew deadline stops acting before its lease can expire for others.
 */
export class LeaderElector {
  private leading = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private observed: { record: string; at: number } | undefined;
  private lastRenewed = 0;
  private readonly now: () => number;

  constructor(
    private readonly api: KubeApi,
    private readonly options: LeaderElectionOptions,
  ) {
    if (options.renewDeadlineMs >= options.leaseDurationMs) throw new Error('the renew deadline must be shorter than the lease duration');
    this.now = options.now ?? Date.now;
  }

  isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    this.stopped = false;
    void this.tick();
  }

  /** Stops competing; a leader gives the lease up so another replica takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    if (!this.leading) return;
    this.setLeading(false);
    try {
      const lease = await this.api.getLease(this.options.lease);
      if (lease?.spec?.holderIdentity === this.options.identity) {
        await this.api.replaceLease({
          ...lease,
          metadata: { ...lease.metadata, ...this.options.lease },
          spec: { ...lease.spec, holderIdentity: undefined, leaseDurationSeconds: 1, renewTime: new MicroTime(this.now()) },
        });
      }
    } catch (err) {
      this.options.log.warn({ err: String(err) }, 'could not release the leader lease; it expires on its own');
    }
  }

  /** One attempt to acquire or renew (exported for tests through `tick`). */
  async tryAcquireOrRenew(): Promise<boolean> {
    const { lease: ref, identity } = this.options;
    const now = this.now();
    const durationSeconds = Math.ceil(this.options.leaseDurationMs / 1000);
    const current = await this.api.getLease(ref);
    if (!current) {
      try {
        await this.api.createLease({
          metadata: { ...ref },
          spec: { holderIdentity: identity, leaseDurationSeconds: durationSeconds, acquireTime: new MicroTime(now), renewTime: new MicroTime(now), leaseTransitions: 0 },
        });
        return true;
      } catch (err) {
        if (apiStatus(err) === 409) return false; // another replica created it first
        throw err;
      }
    }
    const spec = current.spec ?? {};
    const holder = spec.holderIdentity;
    this.observe(current, now);
    const heldByOther = holder !== undefined && holder !== '' && holder !== identity;
    if (heldByOther && !this.expired(current, now)) return false;
    try {
      await this.api.replaceLease({
        ...current,
        metadata: { ...current.metadata, ...ref },
        spec: {
          ...spec,
          holderIdentity: identity,
          leaseDurationSeconds: durationSeconds,
          renewTime: new MicroTime(now),
          acquireTime: holder === identity ? spec.acquireTime : new MicroTime(now),
          leaseTransitions: holder === identity ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? 0) + 1,
        },
      });
      return true;
    } catch (err) {
      if (apiStatus(err) === 409) return false; // it changed since we read it: someone else acted
      throw err;
    }
  }

  private observe(lease: V1Lease, now: number): void {
    const record = `${lease.spec?.holderIdentity ?? ''}|${String(lease.spec?.renewTime ?? '')}|${lease.metadata?.resourceVersion ?? ''}`;
    if (this.observed?.record !== record) this.observed = { record, at: now };
  }

  private expired(lease: V1Lease, now: number): boolean {
    const durationMs = (lease.spec?.leaseDurationSeconds ?? Math.ceil(this.options.leaseDurationMs / 1000)) * 1000;
    return this.observed !== undefined && this.observed.at + durationMs <= now;
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    let renewed = false;
    try {
      renewed = await this.tryAcquireOrRenew();
    } catch (err) {
      this.options.log.warn({ err: String(err) }, 'leader election: the lease could not be read or written');
    }
    const now = this.now();
    if (renewed) {
      this.lastRenewed = now;
      if (!this.leading) this.setLeading(true);
    } else if (this.leading && now - this.lastRenewed >= this.options.renewDeadlineMs) {
      this.setLeading(false);
    } else if (this.leading && this.observed && !renewed) {
      // Someone else holds it now (we lost a race after our lease lapsed): stop at once.
      const lease = await this.api.getLease(this.options.lease).catch(() => undefined);
      if (lease?.spec?.holderIdentity && lease.spec.holderIdentity !== this.options.identity) this.setLeading(false);
    }
    if (!this.stopped) {
      this.timer = setTimeout(() => void this.tick(), this.options.retryPeriodMs);
      this.timer.unref();
    }
  }

  private setLeading(leading: boolean): void {
    if (this.leading === leading) return;
    this.leading = leading;
    this.options.log.info({ identity: this.options.identity, leading }, leading ? 'became the leader' : 'stopped leading');
    if (leading) this.options.onStartedLeading();
    else this.options.onStoppedLeading();
  }
}
