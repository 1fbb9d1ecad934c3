/**
 * Resource locks for leader election: the record every candidate reads and writes, and the
 * Lease-backed lock (coordination.k8s.io/v1), as client-go's tools/leaderelection/resourcelock.
 */
import type { Lease } from "../apimachinery/api/coordination/v1.js";
import { StatusError } from "../apimachinery/errors.js";
import type { ResourceClient } from "../client/interfaces.js";
import { formatMicroTime, parseTime } from "../apimachinery/time.js";

/** What the lock stores. Times are milliseconds since the epoch. */
export interface LeaderElectionRecord {
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime?: number;
  renewTime?: number;
  leaderTransitions: number;
}

export interface ResourceLock {
  /** This candidate's identity (unique per process: hostname + random suffix, typically). */
  readonly identity: string;
  describe(): string;
  /** The current record and its raw form (compared to detect any change); 404 when absent. */
  get(signal?: AbortSignal): Promise<{ record: LeaderElectionRecord; raw: string }>;
  create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void>;
  /** Writes over the last record read or written (optimistic concurrency: 409 if it changed since). */
  update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void>;
  /** Records a LeaderElection event "<identity> <message>" about the lock object, when it has a recorder. */
  recordEvent?(message: string): void;
}

/** Where a lock records its LeaderElection events (an EventRecorder satisfies it). */
export interface LockEventRecorder {
  event(object: { apiVersion?: string; kind?: string; namespace?: string; name?: string; uid?: string; resourceVersion?: string }, type: string, reason: string, message: string): void;
}


export function leaseToRecord(lease: Lease): LeaderElectionRecord {
  const s = lease.spec ?? {};
  return {
    holderIdentity: s.holderIdentity ?? "",
    leaseDurationSeconds: s.leaseDurationSeconds ?? 0,
    acquireTime: parseTime(s.acquireTime),
    renewTime: parseTime(s.renewTime),
    leaderTransitions: s.leaseTransitions ?? 0,
  };
}

export function recordToLeaseSpec(r: LeaderElectionRecord): NonNullable<Lease["spec"]> {
  return {
    holderIdentity: r.holderIdentity,
    leaseDurationSeconds: r.leaseDurationSeconds,
    ...(r.acquireTime !== undefined ? { acquireTime: formatMicroTime(r.acquireTime) } : {}),
    ...(r.renewTime !== undefined ? { renewTime: formatMicroTime(r.renewTime) } : {}),
    leaseTransitions: r.leaderTransitions,
  };
}

/** A lock stored in a coordination.k8s.io/v1 Lease named `name` in the client's namespace. */
export class LeaseLock implements ResourceLock {
  private lease: Lease | undefined;

  constructor(
    private readonly client: ResourceClient<Lease>,
    readonly name: string,
    readonly identity: string,
    /** Receives "<identity> became leader" / "<identity> stopped leading" (reason LeaderElection). */
    private readonly recorder?: LockEventRecorder,
  ) {}

  /** LeaseLock.RecordEvent: a Normal LeaderElection event about the Lease. */
  recordEvent(message: string): void {
    if (!this.recorder) return;
    const m = this.lease?.metadata ?? {};
    this.recorder.event(
      { apiVersion: "coordination.k8s.io/v1", kind: "Lease", namespace: m.namespace ?? this.client.namespace, name: m.name ?? this.name, uid: m.uid, resourceVersion: m.resourceVersion },
      "Normal",
      "LeaderElection",
      `${this.identity} ${message}`,
    );
  }

  describe(): string {
    return `${this.client.namespace}/${this.name}`;
  }

  async get(signal?: AbortSignal): Promise<{ record: LeaderElectionRecord; raw: string }> {
    const lease = await this.client.get(this.name, { signal });
    this.lease = lease;
    const record = leaseToRecord(lease);
    return { record, raw: JSON.stringify(lease.spec ?? {}) };
  }

  async create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    this.lease = await this.client.create(
      { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: this.name, namespace: this.client.namespace }, spec: recordToLeaseSpec(record) },
      { signal },
    );
  }

  async update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    if (!this.lease) throw StatusError.badRequest("lease not initialized: call get or create first");
    const next: Lease = { ...this.lease, spec: recordToLeaseSpec(record) };
    this.lease = await this.client.update(next, { signal });
  }
}
