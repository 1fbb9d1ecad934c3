/**
 * Leader election end to end: two electors, each with its own KubeClient, against the embedded
 * API server. Real time with short durations (lease 1 s, renew deadline 0.7 s, retry 0.2 s).
 */
import type { Lease } from "../../src/apimachinery/api/coordination/v1.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer, type RunningApiServer } from "../../src/apiserver/index.js";
import { KubeClient } from "../../src/client/kubeclient.js";
import { builtin } from "../../src/client/typed.js";
import { StatusError } from "../../src/apimachinery/errors.js";
import { LeaderElector } from "../../src/leaderelection/leaderelector.js";
import { LeaseLock, type LeaderElectionRecord, type ResourceLock } from "../../src/leaderelection/resourcelock.js";

const LEASE_MS = 1000;
const RENEW_MS = 700;
const RETRY_MS = 200;

let api: RunningApiServer;
const clients: KubeClient[] = [];

beforeAll(async () => {
  api = await startApiServer({ port: 0 });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await api?.stop();
});

/** A lock whose writes can be cut, as a network partition between one candidate and the server. */
class PartitionableLock implements ResourceLock {
  partitioned = false;
  constructor(private readonly inner: LeaseLock) {}
  get identity(): string {
    return this.inner.identity;
  }
  describe(): string {
    return this.inner.describe();
  }
  private check(): void {
    if (this.partitioned) throw StatusError.serviceUnavailable("partitioned");
  }
  async get(signal?: AbortSignal) {
    this.check();
    return this.inner.get(signal);
  }
  async create(r: LeaderElectionRecord, signal?: AbortSignal) {
    this.check();
    return this.inner.create(r, signal);
  }
  async update(r: LeaderElectionRecord, signal?: AbortSignal) {
    this.check();
    return this.inner.update(r, signal);
  }
}

interface Candidate {
  id: string;
  lock: PartitionableLock;
  stop: AbortController;
  done: Promise<void>;
  /** [start, end] of each leadership term, by the wall clock. */
  terms: Array<[number, number | undefined]>;
  leading: boolean;
}

function candidate(id: string, leaseName: string): Candidate {
  const client = KubeClient.fromKubeconfig({ kubeconfigPath: api.kubeconfigPath, kubeconfigEnv: "", rest: { qps: -1 } });
  clients.push(client);
  const lock = new PartitionableLock(new LeaseLock(client.resource<Lease>(builtin.leases, "kube-system"), leaseName, id));
  const c = { id, lock, stop: new AbortController(), terms: [], leading: false } as unknown as Candidate;
  const elector = new LeaderElector({
    lock,
    leaseDurationMs: LEASE_MS,
    renewDeadlineMs: RENEW_MS,
    retryPeriodMs: RETRY_MS,
    random: () => 0,
    callbacks: {
      onStartedLeading: (signal) => {
        c.leading = true;
        c.terms.push([Date.now(), undefined]);
        signal.addEventListener("abort", () => {
          c.leading = false;
          c.terms[c.terms.length - 1][1] = Date.now();
        });
      },
      onStoppedLeading: () => {},
    },
  });
  c.done = elector.run(c.stop.signal);
  return c;
}

async function until(pred: () => boolean, timeoutMs: number, both: Candidate[]): Promise<number> {
  const start = Date.now();
  while (!pred()) {
    // At no sampled moment may both candidates believe they lead.
    expect(both.filter((c) => c.leading).length).toBeLessThanOrEqual(1);
    if (Date.now() - start > timeoutMs) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
  return Date.now() - start;
}

function noOverlap(a: Candidate, b: Candidate): void {
  for (const [s1, e1] of a.terms) {
    for (const [s2, e2] of b.terms) {
      const end1 = e1 ?? Infinity;
      const end2 = e2 ?? Infinity;
      expect(s1 < end2 && s2 < end1).toBe(false);
    }
  }
}

describe("leader election against the embedded API server", () => {
  it("a crashed leader is replaced within leaseDuration + retryPeriod", async () => {
    const a = candidate("a", "crash");
    await until(() => a.leading, 5000, [a]);
    const b = candidate("b", "crash");
    await new Promise((r) => setTimeout(r, 3 * LEASE_MS));
    expect(a.leading).toBe(true);
    expect(b.leading).toBe(false);
    // The leader dies without releasing: it simply stops writing.
    a.lock.partitioned = true;
    a.stop.abort();
    await a.done;
    const crashedAt = Date.now();
    await until(() => b.leading, 5000, [a, b]);
    const takeover = Date.now() - crashedAt;
    // The protocol bound (lease duration + one retry period) plus generous slack for I/O and a busy
    // machine: this checks the mechanism (expiry by observation, then one retry), not speed.
    expect(takeover).toBeLessThanOrEqual(LEASE_MS + RETRY_MS + 1000);
    noOverlap(a, b);
    b.stop.abort();
    await b.done;
  }, 20_000);

  it("a partitioned leader stops before the other starts", async () => {
    const a = candidate("a", "partition");
    await until(() => a.leading, 5000, [a]);
    const b = candidate("b", "partition");
    await new Promise((r) => setTimeout(r, 2 * LEASE_MS));
    a.lock.partitioned = true; // a keeps running but can no longer renew
    await until(() => b.leading, 6000, [a, b]);
    expect(a.leading).toBe(false);
    const aEnd = a.terms[0][1]!;
    const bStart = b.terms[0][0];
    expect(aEnd).toBeLessThan(bStart);
    noOverlap(a, b);
    const lease = await clients[clients.length - 1].resource<Lease>(builtin.leases, "kube-system").get("partition");
    expect(lease.spec?.holderIdentity).toBe("b");
    expect(lease.spec?.leaseTransitions).toBe(1);
    a.stop.abort();
    b.stop.abort();
    await Promise.all([a.done, b.done]);
  }, 20_000);
});
