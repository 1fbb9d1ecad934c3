import type { Lease } from "kubernetes-types/coordination/v1.js";
import { describe, expect, it } from "vitest";
import { FakeClock, flushMicrotasks } from "../apimachinery/clock.js";
import { StatusError } from "../apimachinery/errors.js";
import type { ResourceDescriptor } from "../client/interfaces.js";
import { FakeClient } from "../testing/fakeclient.js";
import { LeaderElectionConfigError, LeaderElector } from "./leaderelector.js";
import { Registry } from "prom-client";
import { leaderElectionMetrics } from "./metrics.js";
import { LeaseLock } from "./resourcelock.js";

const leases: ResourceDescriptor = { group: "coordination.k8s.io", version: "v1", resource: "leases", kind: "Lease", namespaced: true };

interface Candidate {
  elector: LeaderElector;
  stop: AbortController;
  done: Promise<void>;
  leading: boolean;
  started: number;
  stopped: number;
  newLeaders: string[];
}

function candidate(fake: FakeClient, clock: FakeClock, id: string, opts: { releaseOnCancel?: boolean; registry?: Registry } = {}): Candidate {
  const c = { leading: false, started: 0, stopped: 0, newLeaders: [] as string[] } as Candidate;
  c.elector = new LeaderElector({
    lock: new LeaseLock(fake.resource<Lease>(leases, "kube-system"), "my-controller", id),
    clock,
    random: () => 0,
    releaseOnCancel: opts.releaseOnCancel,
    metrics: opts.registry ? leaderElectionMetrics(opts.registry, "my-controller") : undefined,
    callbacks: {
      onStartedLeading: (signal) => {
        c.leading = true;
        c.started++;
        signal.addEventListener("abort", () => (c.leading = false));
      },
      onStoppedLeading: () => {
        c.leading = false;
        c.stopped++;
      },
      onNewLeader: (who) => c.newLeaders.push(who),
    },
  });
  c.stop = new AbortController();
  c.done = c.elector.run(c.stop.signal);
  return c;
}

/** Advances time in small steps, checking after each that at most one candidate leads. */
async function advance(clock: FakeClock, ms: number, all: Candidate[], stepMs = 100): Promise<void> {
  for (let t = 0; t < ms; t += stepMs) {
    await clock.advance(stepMs);
    expect(all.filter((c) => c.leading).length).toBeLessThanOrEqual(1);
  }
}

describe("leader_election_master_status", () => {
  it("is 1 only while this candidate leads (client-go's leaderOn/leaderOff)", async () => {
    const clock = new FakeClock(0);
    const fake = new FakeClient({ clock });
    const ra = new Registry();
    const rb = new Registry();
    const value = async (r: Registry) => (await r.getSingleMetric("leader_election_master_status")!.get()).values.find((v) => v.labels.name === "my-controller")?.value;
    const a = candidate(fake, clock, "a", { registry: ra, releaseOnCancel: true });
    await advance(clock, 500, [a]);
    expect(a.leading).toBe(true);
    const b = candidate(fake, clock, "b", { registry: rb });
    await advance(clock, 500, [a, b]);
    expect(await value(ra)).toBe(1);
    expect(await value(rb)).toBe(0);
    a.stop.abort();
    await a.done;
    expect(await value(ra)).toBe(0);
    await advance(clock, 5_000, [b]);
    expect(b.leading).toBe(true);
    expect(await value(rb)).toBe(1);
    b.stop.abort();
    await b.done;
  });
});

describe("LeaderElector", () => {
  it("validates its timing configuration", () => {
    const fake = new FakeClient();
    const lock = new LeaseLock(fake.resource<Lease>(leases, "ns"), "l", "me");
    const cb = { onStartedLeading: () => {}, onStoppedLeading: () => {} };
    expect(() => new LeaderElector({ lock, callbacks: cb, leaseDurationMs: 10_000, renewDeadlineMs: 10_000 })).toThrow(LeaderElectionConfigError);
    expect(() => new LeaderElector({ lock, callbacks: cb, renewDeadlineMs: 2_000, retryPeriodMs: 2_000 })).toThrow(LeaderElectionConfigError);
    expect(() => new LeaderElector({ lock: new LeaseLock(fake.resource<Lease>(leases, "ns"), "l", ""), callbacks: cb })).toThrow();
    expect(new LeaderElector({ lock, callbacks: cb }).state).toBe("Idle");
  });

  it("creates the lease, leads, and renews", async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const fake = new FakeClient({ clock });
    const a = candidate(fake, clock, "a");
    await advance(clock, 100, [a]);
    expect(a.leading).toBe(true);
    expect(a.elector.state).toBe("Leading");
    const lease = await fake.resource<Lease>(leases, "kube-system").get("my-controller");
    expect(lease.spec?.holderIdentity).toBe("a");
    expect(lease.spec?.leaseDurationSeconds).toBe(15);
    expect(lease.spec?.leaseTransitions).toBe(0);
    expect(lease.spec?.acquireTime).toBe("2026-01-01T00:00:00.000000Z");
    await advance(clock, 4_100, [a]);
    const renewed = await fake.resource<Lease>(leases, "kube-system").get("my-controller");
    expect(renewed.spec?.renewTime).toBe("2026-01-01T00:00:04.000000Z");
    expect(renewed.spec?.acquireTime).toBe("2026-01-01T00:00:00.000000Z");
    expect(a.newLeaders).toEqual(["a"]);
    a.stop.abort();
    await a.done;
    expect(a.stopped).toBe(1);
    expect(a.elector.state).toBe("Stopped");
  });

  it("a second candidate waits while the lease is renewed", async () => {
    const clock = new FakeClock(0);
    const fake = new FakeClient({ clock });
    const a = candidate(fake, clock, "a");
    await advance(clock, 100, [a]);
    const b = candidate(fake, clock, "b");
    await advance(clock, 60_000, [a, b]);
    expect(a.leading).toBe(true);
    expect(b.leading).toBe(false);
    expect(b.newLeaders).toEqual(["a"]);
    a.stop.abort();
    b.stop.abort();
    await Promise.all([a.done, b.done]);
  });

  it("when the leader cannot renew it stops before the other acquires, and the other takes over", async () => {
    const clock = new FakeClock(0);
    const fake = new FakeClient({ clock });
    const a = candidate(fake, clock, "a");
    await advance(clock, 100, [a]);
    const b = candidate(fake, clock, "b");
    await advance(clock, 3_000, [a, b]);
    // From now on every write by "a" fails: a network partition between a and the server.
    let cutAt = 0;
    fake.prependReactor("update", "leases", (action) => {
      const holder = (action.object as Lease | undefined)?.spec?.holderIdentity;
      return holder === "a" ? { handled: true, error: StatusError.serviceUnavailable("partitioned") } : { handled: false };
    });
    cutAt = clock.now();
    let aStoppedAt = -1;
    let bStartedAt = -1;
    for (let t = 0; t < 30_000 && bStartedAt < 0; t += 100) {
      await advance(clock, 100, [a, b]);
      if (!a.leading && aStoppedAt < 0) aStoppedAt = clock.now();
      if (b.leading && bStartedAt < 0) bStartedAt = clock.now();
    }
    expect(aStoppedAt).toBeGreaterThan(0);
    expect(bStartedAt).toBeGreaterThan(aStoppedAt);
    // a stops within renewDeadline of its last renewal; b takes over within leaseDuration + retryPeriod.
    expect(aStoppedAt - cutAt).toBeLessThanOrEqual(10_000);
    expect(bStartedAt - cutAt).toBeLessThanOrEqual(15_000 + 2_000 + 2_000);
    await a.done;
    expect(a.stopped).toBe(1);
    const lease = await fake.resource<Lease>(leases, "kube-system").get("my-controller");
    expect(lease.spec?.holderIdentity).toBe("b");
    expect(lease.spec?.leaseTransitions).toBe(1);
    b.stop.abort();
    await b.done;
  });

  it("releaseOnCancel hands the lease over quickly", async () => {
    const clock = new FakeClock(0);
    const fake = new FakeClient({ clock });
    const a = candidate(fake, clock, "a", { releaseOnCancel: true });
    await advance(clock, 100, [a]);
    const b = candidate(fake, clock, "b");
    await advance(clock, 2_000, [a, b]);
    a.stop.abort();
    await a.done;
    await flushMicrotasks();
    const released = await fake.resource<Lease>(leases, "kube-system").get("my-controller");
    expect(released.spec?.holderIdentity).toBe("");
    expect(released.spec?.leaseDurationSeconds).toBe(1);
    await advance(clock, 5_000, [a, b]);
    expect(b.leading).toBe(true);
    b.stop.abort();
    await b.done;
  });

  it("stops at once when it observes another holder", async () => {
    const clock = new FakeClock(0);
    const fake = new FakeClient({ clock });
    const a = candidate(fake, clock, "a");
    await advance(clock, 100, [a]);
    // Someone overwrites the lease (e.g. an operator) with another holder.
    const client = fake.resource<Lease>(leases, "kube-system");
    const cur = await client.get("my-controller");
    await client.update({ ...cur, spec: { ...cur.spec, holderIdentity: "intruder" } });
    await advance(clock, 2_100, [a]);
    expect(a.leading).toBe(false);
    await a.done;
    expect(a.newLeaders).toEqual(["a", "intruder"]);
  });
});
