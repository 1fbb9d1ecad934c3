import type { Event } from "../apimachinery/api/core/v1.js";
import { describe, expect, it } from "vitest";
import { FakeClock, flushMicrotasks } from "../apimachinery/clock.js";
import { StatusError } from "../apimachinery/errors.js";
import type { KubeObject } from "../apimachinery/types.js";
import { EventBroadcaster, FakeRecorder, getReference, MAX_TRIES_PER_EVENT } from "./broadcaster.js";
import { EventCorrelator, type EventCountPatch } from "./correlator.js";
import { goSprintf } from "./format.js";
import type { EventSink } from "./sink.js";

const pod: KubeObject = { apiVersion: "v1", kind: "Pod", metadata: { name: "foo", namespace: "baz", uid: "bar", resourceVersion: "10" } };

function makeEvent(reason: string, message: string, overrides: Partial<Event> = {}): Event {
  return {
    metadata: { name: "foo.1", namespace: "baz" },
    involvedObject: { kind: "Pod", name: "foo", namespace: "baz", uid: "bar", apiVersion: "v1" },
    reason,
    message,
    count: 1,
    type: "Normal",
    source: { component: "kubelet", host: "node1" },
    firstTimestamp: "2026-01-01T00:00:00Z",
    lastTimestamp: "2026-01-01T00:00:00Z",
    ...overrides,
  };
}

describe("EventCorrelator (upstream's events_cache_test cases)", () => {
  it("identical events increment count and produce a patch", () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const c = new EventCorrelator({ clock });
    const first = c.correlate(makeEvent("Created", "created container"));
    expect(first.skip).toBe(false);
    expect(first.patch).toBeUndefined();
    expect(first.event?.count).toBe(1);
    c.updateState({ ...first.event!, metadata: { ...first.event!.metadata, resourceVersion: "7" } });
    clock.step(1000);
    const second = c.correlate(makeEvent("Created", "created container", { lastTimestamp: "2026-01-01T00:00:01Z" }));
    expect(second.event?.count).toBe(2);
    expect(second.event?.metadata?.name).toBe("foo.1");
    expect(second.event?.metadata?.resourceVersion).toBe("7");
    expect(second.event?.firstTimestamp).toBe("2026-01-01T00:00:00Z");
    expect(second.patch).toEqual({ count: 2, lastTimestamp: "2026-01-01T00:00:01Z", message: "created container" });
    const third = c.correlate(makeEvent("Created", "created container"));
    expect(third.event?.count).toBe(3);
  });

  it("similar events are combined once maxEvents distinct messages arrive within the interval", () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const c = new EventCorrelator({ clock });
    for (let i = 0; i < 9; i++) {
      const r = c.correlate(makeEvent("Failed", `message ${i}`));
      expect(r.event?.message).toBe(`message ${i}`);
    }
    const tenth = c.correlate(makeEvent("Failed", "message 9"));
    expect(tenth.event?.message).toBe("(combined from similar events): message 9");
    expect(tenth.event?.count).toBe(1);
    const eleventh = c.correlate(makeEvent("Failed", "message 10"));
    expect(eleventh.event?.message).toBe("(combined from similar events): message 10");
    expect(eleventh.event?.count).toBe(2);
    expect(eleventh.patch?.count).toBe(2);
  });

  it("the aggregation window resets after maxIntervalSeconds", () => {
    const clock = new FakeClock(0);
    const c = new EventCorrelator({ clock });
    for (let i = 0; i < 9; i++) c.correlate(makeEvent("Failed", `m${i}`));
    clock.step(601_000);
    expect(c.correlate(makeEvent("Failed", "m9")).event?.message).toBe("m9");
  });

  it("the spam filter allows a burst of 25 per source+object then 1 per 300 s", () => {
    const clock = new FakeClock(0);
    const c = new EventCorrelator({ clock });
    let passed = 0;
    for (let i = 0; i < 40; i++) if (!c.correlate(makeEvent(`Reason${i}`, "same")).skip) passed++;
    expect(passed).toBe(25);
    expect(c.correlate(makeEvent("Another", "x")).skip).toBe(true);
    clock.step(300_000);
    expect(c.correlate(makeEvent("Another", "x")).skip).toBe(false);
    expect(c.correlate(makeEvent("Another2", "x")).skip).toBe(true);
    // another object has its own bucket
    const other = makeEvent("R", "m", { involvedObject: { kind: "Pod", name: "other", namespace: "baz", uid: "o", apiVersion: "v1" } });
    expect(c.correlate(other).skip).toBe(false);
  });

  it("does not mutate its input", () => {
    const c = new EventCorrelator();
    const e = makeEvent("A", "b");
    const snapshot = JSON.stringify(e);
    c.correlate(e);
    c.correlate(e);
    expect(JSON.stringify(e)).toBe(snapshot);
  });
});

class MemorySink implements EventSink {
  created: Event[] = [];
  patched: Array<{ name: string; patch: EventCountPatch }> = [];
  failures: unknown[] = [];
  private rv = 0;
  async create(e: Event): Promise<Event> {
    const f = this.failures.shift();
    if (f) throw f;
    this.created.push(e);
    return { ...e, metadata: { ...e.metadata, resourceVersion: String(++this.rv) } };
  }
  async patch(e: Event, patch: EventCountPatch): Promise<Event> {
    const f = this.failures.shift();
    if (f) throw f;
    this.patched.push({ name: e.metadata?.name ?? "", patch });
    return { ...e, count: patch.count, metadata: { ...e.metadata, resourceVersion: String(++this.rv) } };
  }
}

describe("EventBroadcaster and recorder", () => {
  it("records an event with upstream's shape and patches repeats", async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const b = new EventBroadcaster({ clock });
    const sink = new MemorySink();
    const sub = b.startRecordingToSink(sink);
    const r = b.newRecorder({ component: "application-controller", host: "h1" });
    r.eventf(pod, "Normal", "Synced", "Application %s synced successfully", "foo");
    await flushMicrotasks();
    expect(sink.created).toHaveLength(1);
    const e = sink.created[0];
    expect(e.metadata?.name).toBe(`foo.${(BigInt(Date.UTC(2026, 0, 1)) * 1_000_000n).toString(16)}`);
    expect(e.metadata?.namespace).toBe("baz");
    expect(e.involvedObject).toEqual({ kind: "Pod", apiVersion: "v1", name: "foo", namespace: "baz", uid: "bar", resourceVersion: "10" });
    expect(e).toMatchObject({
      reason: "Synced",
      message: "Application foo synced successfully",
      type: "Normal",
      count: 1,
      source: { component: "application-controller", host: "h1" },
      reportingComponent: "application-controller",
      reportingInstance: "h1",
      firstTimestamp: "2026-01-01T00:00:00Z",
    });
    clock.step(5000);
    r.eventf(pod, "Normal", "Synced", "Application %s synced successfully", "foo");
    await flushMicrotasks();
    expect(sink.created).toHaveLength(1);
    expect(sink.patched).toEqual([{ name: e.metadata?.name, patch: { count: 2, lastTimestamp: "2026-01-01T00:00:05Z", message: "Application foo synced successfully" } }]);
    await sub.stop();
  });

  it("two different events of one object in the same millisecond get distinct names (each its own Event, counted apart)", async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const b = new EventBroadcaster({ clock });
    const sink = new MemorySink();
    const sub = b.startRecordingToSink(sink);
    const r = b.newRecorder({ component: "kubelet" });
    r.event(pod, "Normal", "Started", "Started container app");
    r.event(pod, "Normal", "Killing", "Container app failed liveness probe, will be restarted");
    await flushMicrotasks();
    expect(sink.created.map((e) => e.reason)).toEqual(["Started", "Killing"]);
    expect(new Set(sink.created.map((e) => e.metadata?.name)).size).toBe(2);
    clock.step(1000);
    r.event(pod, "Normal", "Killing", "Container app failed liveness probe, will be restarted");
    await flushMicrotasks();
    expect(sink.patched.map((p) => p.name)).toEqual([sink.created[1].metadata?.name]);
    await sub.stop();
  });

  it("rejects unknown types, missing kinds and overlong reasons; truncates long messages", async () => {
    const b = new EventBroadcaster();
    const seen: Event[] = [];
    b.startEventWatcher((e) => {
      seen.push(e);
    });
    const r = b.newRecorder({ component: "c" });
    r.event(pod, "Info", "X", "m");
    r.event({ metadata: { name: "x" } }, "Normal", "X", "m");
    r.event(pod, "Normal", "R".repeat(129), "m");
    r.event(pod, "Warning", "Long", "m".repeat(2000));
    await flushMicrotasks();
    expect(seen).toHaveLength(1);
    expect(seen[0].message).toHaveLength(1024);
    await b.shutdown();
  });

  it("cluster-scoped objects' events go to the default namespace", async () => {
    const b = new EventBroadcaster();
    const seen: Event[] = [];
    b.startEventWatcher((e) => {
      seen.push(e);
    });
    b.newRecorder({ component: "c" }).event({ apiVersion: "v1", kind: "Node", metadata: { name: "n1" } }, "Normal", "R", "m");
    await flushMicrotasks();
    expect(seen[0].metadata?.namespace).toBe("default");
    await b.shutdown();
  });

  it("retries transport errors with sleeps on the clock, gives up on StatusErrors", async () => {
    const clock = new FakeClock(0);
    const b = new EventBroadcaster({ clock, random: () => 0.5, sleepDurationMs: 10_000 });
    const sink = new MemorySink();
    sink.failures.push(new Error("ECONNREFUSED"), new Error("ECONNREFUSED"));
    b.startRecordingToSink(sink);
    const r = b.newRecorder({ component: "c" });
    r.event(pod, "Normal", "A", "one");
    await flushMicrotasks();
    expect(sink.created).toHaveLength(0);
    await clock.advance(5_000); // first sleep is randomized: 0.5 × 10 s
    expect(sink.created).toHaveLength(0);
    await clock.advance(10_000);
    expect(sink.created).toHaveLength(1);

    sink.failures.push(StatusError.forbidden({ group: "", resource: "events" }, "", "no"));
    r.event(pod, "Normal", "B", "two");
    await flushMicrotasks();
    await clock.advance(60_000);
    expect(sink.created).toHaveLength(1);
    await b.shutdown();
  });

  it("stops after MAX_TRIES_PER_EVENT tries", async () => {
    const clock = new FakeClock(0);
    const b = new EventBroadcaster({ clock, random: () => 1, sleepDurationMs: 1000 });
    let tries = 0;
    const sink: EventSink = {
      create: async () => {
        tries++;
        throw new Error("down");
      },
      patch: async () => {
        throw new Error("down");
      },
    };
    b.startRecordingToSink(sink);
    b.newRecorder({ component: "c" }).event(pod, "Normal", "A", "x");
    await clock.advance(60_000);
    expect(tries).toBe(MAX_TRIES_PER_EVENT);
    await b.shutdown();
  });

  it("never blocks: a full queue drops and counts", async () => {
    const b = new EventBroadcaster({ maxQueued: 3 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    b.startEventWatcher(() => gate);
    const r = b.newRecorder({ component: "c" });
    r.event(pod, "Normal", "first", "m");
    await flushMicrotasks(); // the watcher takes it and blocks on the gate
    for (let i = 0; i < 10; i++) r.event(pod, "Normal", `R${i}`, "m");
    // one in flight, three queued, the other seven dropped — and event() returned at once each time
    expect(b.droppedEvents).toBe(7);
    release();
    await b.shutdown();
  });

  it("a patch of an expired event falls back to create", async () => {
    const clock = new FakeClock(0);
    const b = new EventBroadcaster({ clock });
    const sink = new MemorySink();
    b.startRecordingToSink(sink);
    const r = b.newRecorder({ component: "c" });
    r.event(pod, "Normal", "A", "x");
    await flushMicrotasks();
    sink.failures.push(StatusError.notFound({ group: "", resource: "events" }, "foo.1"));
    r.event(pod, "Normal", "A", "x");
    await flushMicrotasks();
    await flushMicrotasks();
    expect(sink.created).toHaveLength(2);
    expect(sink.created[1].count).toBe(2);
    await b.shutdown();
  });

  it("FakeRecorder keeps readable lines", () => {
    const f = new FakeRecorder();
    f.eventf(pod, "Warning", "ErrResourceExists", "Resource %q already exists and is not managed by Foo", "web");
    expect(f.events).toEqual(['Warning ErrResourceExists Resource "web" already exists and is not managed by Foo']);
  });
});

describe("helpers", () => {
  it("goSprintf handles %s %v %d %q %% and missing args", () => {
    expect(goSprintf("%s/%v %d%% %q", "a", 1, 2.7, "q")).toBe('a/1 2% "q"');
    expect(goSprintf("%s %s", "x")).toBe("x %!s(MISSING)");
  });
  it("getReference needs kind and apiVersion", () => {
    expect(() => getReference({ metadata: { name: "x" } })).toThrow(/kind and apiVersion/);
    expect(getReference({ kind: "Pod", name: "p", namespace: "n" })).toEqual({ kind: "Pod", name: "p", namespace: "n" });
  });
});
