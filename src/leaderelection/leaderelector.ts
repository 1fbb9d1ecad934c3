/**
 * LeaderElector: client-go's leader election over a ResourceLock.
 *
 * Phases (an explicit state machine): Idle → Acquiring → Leading → Stopped. Acquiring retries
 * every retryPeriod (with jitter) until the lock is free or expired; Leading renews every
 * retryPeriod; Stopped is final (run() resolves).
 *
 * The guarantee: a leader that cannot renew stops acting before any other candidate can
 * acquire. A leader stops — aborting the signal given to onStartedLeading — as soon as
 * renewDeadline has passed since its last successful renewal (an in-flight write is aborted at
 * that instant too). Another candidate only takes the lock after it has observed the same record,
 * unchanged, for leaseDuration by its own clock; it cannot have observed that record before the
 * leader wrote it. So with leaseDuration > renewDeadline (enforced) and clocks that run at
 * comparable rates, the old leader has stopped before the new one starts. Expiry is judged by
 * the observer's local clock, never by the renewTime written by another machine.
 */
import type { Clock } from "../apimachinery/clock.js";
import { realClock } from "../apimachinery/clock.js";
import { isNotFound } from "../apimachinery/errors.js";
import type { LeaderElectionMetrics } from "./metrics.js";
import type { LeaderElectionRecord, ResourceLock } from "./resourcelock.js";

export type ElectorPhase = "Idle" | "Acquiring" | "Leading" | "Stopped";

export interface LeaderCallbacks {
  /** Called when this candidate becomes leader; `signal` aborts when leadership ends. */
  onStartedLeading(signal: AbortSignal): void | Promise<void>;
  /** Called once when run() ends, whether or not this candidate ever led. */
  onStoppedLeading(): void;
  /** Called when the observed leader changes (including the first leader observed). */
  onNewLeader?(identity: string): void;
}

export interface LeaderElectionConfig {
  lock: ResourceLock;
  /** How long a non-leader waits, from its last observation of a change, before taking over. Default 15 s. */
  leaseDurationMs?: number;
  /** How long the leader keeps retrying a failed renewal before giving up. Default 10 s. */
  renewDeadlineMs?: number;
  /** How often to try acquiring or renewing. Default 2 s. */
  retryPeriodMs?: number;
  /** Write a released record (lease duration 1 s, no holder) when run() is cancelled while leading. */
  releaseOnCancel?: boolean;
  callbacks: LeaderCallbacks;
  clock?: Clock;
  name?: string;
  /** Where failures are reported (default: silent). */
  onError?: (message: string, err: unknown) => void;
  /** Random source for jitter (tests may fix it). */
  random?: () => number;
  /** leader_election_master_status (see metrics.ts): 0 from the start, 1 while leading. */
  metrics?: LeaderElectionMetrics;
}

export const JITTER_FACTOR = 1.2;

export class LeaderElectionConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LeaderElectionConfigError";
  }
}

export class LeaderElector {
  private readonly lock: ResourceLock;
  private readonly leaseDuration: number;
  private readonly renewDeadline: number;
  private readonly retryPeriod: number;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly cfg: LeaderElectionConfig;

  private phase: ElectorPhase = "Idle";
  /** The last record seen or written, and when (by our clock) it last changed. */
  private observedRecord: LeaderElectionRecord = { holderIdentity: "", leaseDurationSeconds: 0, leaderTransitions: 0 };
  private observedRaw = "";
  private observedTime = 0;
  private reportedLeader = "";
  private lastRenew = 0;

  constructor(cfg: LeaderElectionConfig) {
    this.cfg = cfg;
    this.lock = cfg.lock;
    this.leaseDuration = cfg.leaseDurationMs ?? 15_000;
    this.renewDeadline = cfg.renewDeadlineMs ?? 10_000;
    this.retryPeriod = cfg.retryPeriodMs ?? 2_000;
    this.clock = cfg.clock ?? realClock;
    this.random = cfg.random ?? Math.random;
    // NewLeaderElector's checks, in its order and with its messages.
    if (this.leaseDuration <= this.renewDeadline) throw new LeaderElectionConfigError("leaseDuration must be greater than renewDeadline");
    if (this.renewDeadline <= JITTER_FACTOR * this.retryPeriod) {
      throw new LeaderElectionConfigError("renewDeadline must be greater than retryPeriod*JitterFactor");
    }
    if (this.leaseDuration < 1) throw new LeaderElectionConfigError("leaseDuration must be greater than zero");
    if (this.renewDeadline < 1) throw new LeaderElectionConfigError("renewDeadline must be greater than zero");
    if (this.retryPeriod < 1) throw new LeaderElectionConfigError("retryPeriod must be greater than zero");
    if (typeof cfg.callbacks?.onStartedLeading !== "function") throw new LeaderElectionConfigError("OnStartedLeading callback must not be nil");
    if (typeof cfg.callbacks.onStoppedLeading !== "function") throw new LeaderElectionConfigError("OnStoppedLeading callback must not be nil");
    if (!cfg.lock) throw new LeaderElectionConfigError("Lock must not be nil.");
    if (!this.lock.identity) throw new LeaderElectionConfigError("Lock identity is empty");
  }

  get state(): ElectorPhase {
    return this.phase;
  }

  /** The identity of the last observed leader, or "". */
  getLeader(): string {
    return this.observedRecord.holderIdentity;
  }

  isLeader(): boolean {
    return this.observedRecord.holderIdentity === this.lock.identity;
  }

  /** For health checks: an error when we lead but have not renewed for leaseDuration + tolerance. */
  check(maxTolerableExpiredMs: number): Error | undefined {
    if (!this.isLeader() || this.phase !== "Leading") return undefined;
    if (this.clock.now() - this.observedTime > this.leaseDuration + maxTolerableExpiredMs) {
      return new Error(`failed election to renew leadership on lease ${this.cfg.name ?? this.lock.describe()}`);
    }
    return undefined;
  }

  /**
   * Campaigns until leading, leads until renewal fails or `signal` aborts, then resolves.
   * onStoppedLeading is always called exactly once at the end.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.phase !== "Idle") throw new Error("LeaderElector.run may be called once");
    try {
      this.phase = "Acquiring";
      this.cfg.metrics?.off();
      if (!(await this.acquire(signal))) return;
      this.phase = "Leading";
      this.cfg.metrics?.on();
      this.lastRenew = this.clock.now();
      this.lock.recordEvent?.("became leader");
      const leading = new AbortController();
      const onOuterAbort = () => leading.abort();
      signal.addEventListener("abort", onOuterAbort, { once: true });
      try {
        // Leading work runs beside the renew loop; its errors are reported, never fatal here.
        Promise.resolve()
          .then(() => this.cfg.callbacks.onStartedLeading(leading.signal))
          .catch((err: unknown) => this.cfg.onError?.("onStartedLeading failed", err));
        await this.renew(signal, leading);
      } finally {
        signal.removeEventListener("abort", onOuterAbort);
        leading.abort();
        this.lock.recordEvent?.("stopped leading");
      }
      if (this.cfg.releaseOnCancel) {
        await this.release();
        this.maybeReportTransition();
      }
    } finally {
      this.phase = "Stopped";
      this.cfg.metrics?.off();
      this.cfg.callbacks.onStoppedLeading();
    }
  }

  private async acquire(signal: AbortSignal): Promise<boolean> {
    while (!signal.aborted) {
      const ok = await this.tryAcquireOrRenew(signal);
      this.maybeReportTransition();
      if (ok) return true;
      const wait = this.retryPeriod + this.random() * JITTER_FACTOR * this.retryPeriod;
      try {
        await this.clock.sleep(wait, signal);
      } catch {
        return false;
      }
    }
    return false;
  }

  /** Renews every retryPeriod; gives up (aborting `leading`) once renewDeadline passes without success. */
  private async renew(signal: AbortSignal, leading: AbortController): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.clock.sleep(this.retryPeriod, signal);
      } catch {
        return;
      }
      // The attempt is cut off exactly at the renew deadline, measured from the last success.
      const deadline = this.lastRenew + this.renewDeadline;
      const attempt = new AbortController();
      const onAbort = () => attempt.abort();
      signal.addEventListener("abort", onAbort, { once: true });
      const timer = this.clock.setTimer(deadline - this.clock.now(), () => attempt.abort());
      let ok = false;
      try {
        ok = await this.tryAcquireOrRenew(attempt.signal);
      } finally {
        timer.cancel();
        signal.removeEventListener("abort", onAbort);
      }
      // A write that completed after the deadline is not trusted: we already count as stopped.
      if (ok && !attempt.signal.aborted && this.clock.now() < deadline) {
        this.lastRenew = this.clock.now();
        this.maybeReportTransition();
        continue;
      }
      this.maybeReportTransition();
      if (signal.aborted) return;
      // Someone else holds the lock now: stop at once rather than wait for the deadline.
      if (!this.isLeader()) {
        this.cfg.onError?.(`lost lease ${this.lock.describe()} to ${this.getLeader()}`, undefined);
        leading.abort();
        return;
      }
      if (this.clock.now() >= deadline || attempt.signal.aborted) {
        this.cfg.onError?.(`failed to renew lease ${this.lock.describe()}: renew deadline exceeded`, undefined);
        leading.abort();
        return;
      }
    }
  }

  private setObserved(record: LeaderElectionRecord, raw?: string): void {
    this.observedRecord = { ...record };
    if (raw !== undefined) this.observedRaw = raw;
    this.observedTime = this.clock.now();
  }

  private leaseValid(now: number): boolean {
    return this.observedTime + this.observedRecord.leaseDurationSeconds * 1000 > now;
  }

  /** One attempt, as upstream's tryAcquireOrRenew: true when we hold the lock afterwards. */
  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const now = this.clock.now();
    const desired: LeaderElectionRecord = {
      holderIdentity: this.lock.identity,
      leaseDurationSeconds: Math.floor(this.leaseDuration / 1000),
      acquireTime: now,
      renewTime: now,
      leaderTransitions: 0,
    };
    // Fast path: the leader writes optimistically over the record it last wrote.
    if (this.isLeader() && this.leaseValid(now)) {
      desired.acquireTime = this.observedRecord.acquireTime;
      desired.leaderTransitions = this.observedRecord.leaderTransitions;
      try {
        await this.lock.update(desired, signal);
        this.setObserved(desired);
        return true;
      } catch (err) {
        if (signal.aborted) return false;
        this.cfg.onError?.("failed to update lock optimistically, falling back to slow path", err);
      }
    }
    let current: { record: LeaderElectionRecord; raw: string };
    try {
      current = await this.lock.get(signal);
    } catch (err) {
      if (!isNotFound(err)) {
        this.cfg.onError?.(`error retrieving resource lock ${this.lock.describe()}`, err);
        return false;
      }
      try {
        await this.lock.create(desired, signal);
      } catch (createErr) {
        this.cfg.onError?.("error initially creating leader election record", createErr);
        return false;
      }
      this.setObserved(desired);
      return true;
    }
    if (current.raw !== this.observedRaw) this.setObserved(current.record, current.raw);
    if (current.record.holderIdentity !== "" && this.leaseValid(now) && !this.isLeader()) return false;
    if (this.isLeader()) {
      desired.acquireTime = current.record.acquireTime;
      desired.leaderTransitions = current.record.leaderTransitions;
    } else {
      desired.leaderTransitions = current.record.leaderTransitions + 1;
    }
    try {
      await this.lock.update(desired, signal);
    } catch (err) {
      this.cfg.onError?.("failed to update lock", err);
      return false;
    }
    this.setObserved(desired);
    return true;
  }

  /**
   * Gives the lease up if we hold it (upstream release): re-reads the lock first — so the write
   * goes over the current resourceVersion and keeps its leaderTransitions — then writes a record
   * with no holder and a one-second lease, within renewDeadline. true when released (or not ours).
   * The caller reports the new, empty leader (maybeReportTransition).
   */
  async release(): Promise<boolean> {
    const attempt = new AbortController();
    const timer = this.clock.setTimer(this.renewDeadline, () => attempt.abort());
    try {
      let current: LeaderElectionRecord;
      try {
        current = (await this.lock.get(attempt.signal)).record;
      } catch (err) {
        if (isNotFound(err)) this.cfg.onError?.(`lease lock not found: ${this.lock.describe()}`, err);
        else this.cfg.onError?.(`error retrieving resource lock ${this.lock.describe()}`, err);
        return false;
      }
      if (!this.isLeader()) return true;
      const now = this.clock.now();
      const record: LeaderElectionRecord = {
        holderIdentity: "",
        leaseDurationSeconds: 1,
        acquireTime: now,
        renewTime: now,
        leaderTransitions: current.leaderTransitions,
      };
      try {
        await this.lock.update(record, attempt.signal);
      } catch (err) {
        this.cfg.onError?.(`Failed to release lease ${this.lock.describe()}`, err);
        return false;
      }
      this.setObserved(record);
      return true;
    } finally {
      timer.cancel();
    }
  }

  /** Reports a change of the observed holder — the empty one after a release included — to onNewLeader. */
  maybeReportTransition(): void {
    const holder = this.observedRecord.holderIdentity;
    if (holder === this.reportedLeader) return;
    this.reportedLeader = holder;
    this.cfg.callbacks.onNewLeader?.(holder);
  }
}
