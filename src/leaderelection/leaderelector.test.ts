import type { Lease } from "../apimachinery/api/coordination/v1.js";
import { describe, expect, it } from "vitest";
import { FakeClock, flushMicrotasks } from "../apimachinery/clock.js";
import { StatusError } from "../apimachinery/errors.js";
import type { ResourceClient } from "../client/interfaces.js";
import { builtin } from "../client/typed.js";
import { FakeRecorder } from "../events/broadcaster.js";
import { FakeClient } from "../testing/fakeclient.js";
import { LeaderElectionConfigError, LeaderElector } from "./leaderelector.js";
import { Registry } from "prom-client";
import { leaderElectionMetrics } from "./metrics.js";
import { LeaseLock } from "./resourcelock.js";

const leases = builtin.leases;

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
    lock: new LeaseLock(fake.resource(leases, "kube-system"), "my-controller", id),
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
  // NewLeaderElector's validation, in upstream's order and with its messages.
  const fake = new FakeClient();
  const lock = new LeaseLock(fake.resource(leases, "ns"), "l", "me");
  const cb = { onStartedLeading: () => {}, onStoppedLeading: () => {} };
  const invalid: Array<[string, Partial<ConstructorParameters<typeof LeaderElector>[0]>, string]> = [
    ["lease equal to renew deadline", { leaseDurationMs: 10_000, renewDeadlineMs: 10_000 }, "leaseDuration must be greater than renewDeadline"],
    ["renew deadline within the jittered retry", { renewDeadlineMs: 2_000, retryPeriodMs: 2_000 }, "renewDeadline must be greater than retryPeriod*JitterFactor"],
    ["zero lease (checked after the ordering rules)", { leaseDurationMs: 0, renewDeadlineMs: -1, retryPeriodMs: -2 }, "leaseDuration must be greater than zero"],
    ["zero renew deadline", { leaseDurationMs: 10, renewDeadlineMs: 0, retryPeriodMs: -1 }, "renewDeadline must be greater than zero"],
    ["zero retry period", { leaseDurationMs: 10, renewDeadlineMs: 5, retryPeriodMs: 0 }, "retryPeriod must be greater than zero"],
    ["no OnStartedLeading", { callbacks: { onStoppedLeading: () => {} } as never }, "OnStartedLeading callback must not be nil"],
    ["no OnStoppedLeading", { callbacks: { onStartedLeading: () => {} } as never }, "OnStoppedLeading callback must not be nil"],
    ["no lock", { lock: undefined as never }, "Lock must not be nil."],
    ["empty identity", { lock: new LeaseLock(fake.resource(leases, "ns"), "l", "") }, "Lock identity is empty"],
  ];
  it.each(invalid)("rejects its configuration: %s", (_name, override, message) => {
    let thrown: unknown;
    try {
      new LeaderElector({ lock, callbacks: cb, ...override });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(LeaderElectionConfigError);
    expect((thrown as Error).message).toBe(message);
  });

  it("accepts upstream's defaults", () => {
    expect(new LeaderElector({ lock, callbacks: cb }).state).toBe("Idle");
  });

  it("creates the lease, leads, and renews", async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const fake = new FakeClient({ clock });
    const a = candidate(fake, clock, "a");
    await advance(clock, 100, [a]);
    expect(a.leading).toBe(true);
    expect(a.elector.state).toBe("Leading");
    const lease = await fake.resource(leases, "kube-system").get("my-controller");
    expect(lease.spec?.holderIdentity).toBe("a");
    expect(lease.spec?.leaseDurationSeconds).toBe(15);
    expect(lease.spec?.leaseTransitions).toBe(0);
    expect(lease.spec?.acquireTime).toBe("2026-01-01T00:00:00.000000Z");
    await advance(clock, 4_100, [a]);
    const renewed = await fake.resource(leases, "kube-system").get("my-controller");
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
    const lease = await fake.resource(leases, "kube-system").get("my-controller");
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
    const released = await fake.resource(leases, "kube-system").get("my-controller");
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
    const client = fake.resource(leases, "kube-system");
    const cur = await client.get("my-controller");
    await client.update({ ...cur, spec: { ...cur.spec, holderIdentity: "intruder" } });
    await advance(clock, 2_100, [a]);
    expect(a.leading).toBe(false);
    await a.done;
    expect(a.newLeaders).toEqual(["a", "intruder"]);
  });

  it("records LeaderElection events about the Lease: became leader, stopped leading", async () => {
    const clock = new FakeClock(0);
    const fake = new FakeClient({ clock });
    const recorder = new FakeRecorder();
    const elector = new LeaderElector({
      lock: new LeaseLock(fake.resource(leases, "kube-system"), "my-controller", "a_1", recorder),
      clock,
      random: () => 0,
      callbacks: { onStartedLeading: () => {}, onStoppedLeading: () => {} },
    });
    const stop = new AbortController();
    const done = elector.run(stop.signal);
    await clock.advance(100);
    expect(recorder.events).toEqual(["Normal LeaderElection a_1 became leader"]);
    expect(recorder.recorded[0].object).toMatchObject({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", namespace: "kube-system", name: "my-controller" });
    stop.abort();
    await done;
    expect(recorder.events).toEqual(["Normal LeaderElection a_1 became leader", "Normal LeaderElection a_1 stopped leading"]);
  });

  it("a candidate that never led records no event", async () => {
    const clock = new FakeClock(0);
    const fake = new FakeClient({ clock });
    candidate(fake, clock, "a");
    await clock.advance(100);
    const recorder = new FakeRecorder();
    const b = new LeaderElector({
      lock: new LeaseLock(fake.resource(leases, "kube-system"), "my-controller", "b", recorder),
      clock,
      random: () => 0,
      callbacks: { onStartedLeading: () => {}, onStoppedLeading: () => {} },
    });
    const stop = new AbortController();
    const done = b.run(stop.signal);
    await clock.advance(3_000);
    stop.abort();
    await done;
    expect(recorder.events).toEqual([]);
  });
});

// upstream testReleaseLease / TestReleaseMethodCallsGet, restated: release() re-reads the lock,
// writes an empty holder over the current record, and the empty leader is reported.
describe("LeaderElector.release", () => {
  interface ReleaseCase {
    name: string;
    /** Done to the stored Lease after this candidate acquired it, before release(). */
    meanwhile?: (client: ResourceClient<Lease>) => Promise<void>;
    expectReleased: boolean;
    /** Verbs the release sends after acquiring. */
    actions: string[];
    holder: string;
    transitions: number;
    reported: string[];
  }
  const cases: ReleaseCase[] = [
    { name: "release acquired lock", expectReleased: true, actions: ["get", "update"], holder: "", transitions: 0, reported: ["baz", ""] },
    {
      name: "re-reads first, so a write by someone else in between does not make it conflict",
      meanwhile: async (c) => {
        const cur = await c.get("bar");
        await c.update({ ...cur, metadata: { ...cur.metadata, annotations: { touched: "yes" } }, spec: { ...cur.spec, leaseTransitions: 4 } });
      },
      expectReleased: true,
      actions: ["get", "update"],
      holder: "",
      transitions: 4,
      reported: ["baz", ""],
    },
    {
      name: "the lease vanished: nothing written, nothing reported",
      meanwhile: async (c) => void (await c.delete("bar")),
      expectReleased: false,
      actions: ["get"],
      holder: "",
      transitions: 0,
      reported: ["baz"],
    },
  ];
  it.each(cases)("$name", async (tc) => {
    const clock = new FakeClock(0);
    const fake = new FakeClient({ clock });
    const reported: string[] = [];
    const client = fake.resource(leases, "foo");
    const le = new LeaderElector({
      lock: new LeaseLock(client, "bar", "baz"),
      clock,
      leaseDurationMs: 10_000,
      renewDeadlineMs: 5_000,
      retryPeriodMs: 1_000,
      callbacks: { onStartedLeading: () => {}, onStoppedLeading: () => {}, onNewLeader: (l) => reported.push(l) },
    });
    const stop = new AbortController();
    const done = le.run(stop.signal);
    await clock.advance(10);
    expect(le.isLeader()).toBe(true);
    stop.abort();
    await done;
    await tc.meanwhile?.(fake.resource(leases, "foo"));
    fake.clearActions();
    expect(await le.release()).toBe(tc.expectReleased);
    le.maybeReportTransition();
    expect(fake.actions().map((a) => a.verb)).toEqual(tc.actions);
    if (tc.expectReleased) {
      const stored = await fake.resource(leases, "foo").get("bar");
      expect(stored.spec).toMatchObject({ holderIdentity: tc.holder, leaseDurationSeconds: 1, leaseTransitions: tc.transitions });
    }
    expect(le.getLeader()).toBe(tc.expectReleased ? "" : "baz");
    expect(reported).toEqual(tc.reported);
  });

  it("a candidate that does not lead releases nothing", async () => {
    const clock = new FakeClock(0);
    const fake = new FakeClient({ clock });
    const a = candidate(fake, clock, "a");
    await clock.advance(100);
    const b = new LeaderElector({
      lock: new LeaseLock(fake.resource(leases, "kube-system"), "my-controller", "b"),
      clock,
      callbacks: { onStartedLeading: () => {}, onStoppedLeading: () => {} },
    });
    fake.clearActions();
    expect(await b.release()).toBe(true);
    expect(fake.actions().map((x) => x.verb)).toEqual(["get"]);
    a.stop.abort();
    await a.done;
  });

  it("releaseOnCancel reports the empty leader to onNewLeader", async () => {
    const clock = new FakeClock(0);
    const fake = new FakeClient({ clock });
    const a = candidate(fake, clock, "a", { releaseOnCancel: true });
    await clock.advance(100);
    a.stop.abort();
    await a.done;
    expect(a.newLeaders).toEqual(["a", ""]);
  });
});
