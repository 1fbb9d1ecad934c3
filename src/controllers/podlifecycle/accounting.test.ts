import type { Pod } from "../../apimachinery/api/core/v1.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { NodeAccounting } from "./accounting.js";
import { assignedNode } from "./podstatus.js";
import { podRequests, type Resources } from "./scheduler.js";

const NODES = ["n1", "n2", "n3"];
const NAMES = ["a", "b", "c", "d", "e"];

interface PodSpec {
  name: string;
  uid: string;
  node?: string;
  /** Placed by spec.nodeName, or by status (nominatedNodeName + PodScheduled=True). */
  byStatus: boolean;
  phase: string;
  cpu?: string;
  memory?: string;
  initCpu?: string;
  podIP?: string;
}

function pod(s: PodSpec): Pod {
  const requests: Record<string, string> = {};
  if (s.cpu) requests.cpu = s.cpu;
  if (s.memory) requests.memory = s.memory;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: s.name, namespace: "default", uid: s.uid },
    spec: {
      containers: [{ name: "app", image: "nginx", resources: { requests } }],
      ...(s.initCpu ? { initContainers: [{ name: "init", image: "busybox", resources: { requests: { cpu: s.initCpu } } }] } : {}),
      ...(s.node && !s.byStatus ? { nodeName: s.node } : {}),
    },
    status: {
      phase: s.phase,
      ...(s.node && s.byStatus ? { nominatedNodeName: s.node, conditions: [{ type: "PodScheduled", status: "True" }] } : {}),
      ...(s.podIP ? { podIP: s.podIP } : {}),
    },
  };
}

const podSpec = fc.record({
  name: fc.constantFrom(...NAMES),
  uid: fc.constantFrom("u1", "u2"),
  node: fc.option(fc.constantFrom(...NODES), { nil: undefined }),
  byStatus: fc.boolean(),
  phase: fc.constantFrom("Pending", "Running", "Succeeded", "Failed"),
  cpu: fc.option(fc.constantFrom("100m", "250m", "1", "0.3", "1500m"), { nil: undefined }),
  memory: fc.option(fc.constantFrom("64Mi", "1.5Gi", "100M", "1e3"), { nil: undefined }),
  initCpu: fc.option(fc.constantFrom("200m", "2"), { nil: undefined }),
  // A small pool, so that pods and reservations share IPs.
  podIP: fc.option(fc.constantFrom("10.0.0.2", "10.0.0.3", "10.0.0.4"), { nil: undefined }),
});

const key = (name: string) => `default/${name}`;

type Op =
  | { op: "put"; pod: PodSpec }
  | { op: "delete"; name: string }
  | { op: "assume"; name: string; uid: string; node: string; cpu: string }
  | { op: "unassume"; name: string }
  | { op: "reserve"; name: string; uid: string; node: string; ip: string }
  | { op: "release"; name: string }
  | { op: "forget"; name: string };

const name = fc.constantFrom(...NAMES);
const ops: fc.Arbitrary<Op[]> = fc.array(
  fc.oneof(
    { weight: 5, arbitrary: podSpec.map((p): Op => ({ op: "put", pod: p })) },
    { weight: 2, arbitrary: name.map((n): Op => ({ op: "delete", name: n })) },
    {
      weight: 2,
      arbitrary: fc
        .record({ name, uid: fc.constantFrom("u1", "u2"), node: fc.constantFrom(...NODES), cpu: fc.constantFrom("100m", "600m", "2") })
        .map((r): Op => ({ op: "assume", ...r })),
    },
    { weight: 1, arbitrary: name.map((n): Op => ({ op: "unassume", name: n })) },
    {
      weight: 2,
      arbitrary: fc
        .record({ name, uid: fc.constantFrom("u1", "u2"), node: fc.constantFrom(...NODES), ip: fc.constantFrom("10.0.0.2", "10.0.0.3", "10.0.0.5") })
        .map((r): Op => ({ op: "reserve", ...r })),
    },
    { weight: 1, arbitrary: name.map((n): Op => ({ op: "release", name: n })) },
    { weight: 1, arbitrary: name.map((n): Op => ({ op: "forget", name: n })) },
  ),
  { maxLength: 60 },
);

const terminal = (p: Pod) => p.status?.phase === "Succeeded" || p.status?.phase === "Failed";

/** The invariants of accounting.ts, computed from scratch over the cache and the live assumptions/reservations. */
function recount(cache: ReadonlyMap<string, Pod>, acc: NodeAccounting, node: string): { pods: number; requested: Resources; ips: string[] } {
  let pods = 0;
  const requested: Resources = {};
  const add = (r: Resources) => {
    pods++;
    for (const [k, v] of Object.entries(r)) requested[k] = (requested[k] ?? 0) + v;
  };
  const ips = new Set<string>();
  for (const p of cache.values()) {
    if (assignedNode(p) !== node) continue;
    if (!terminal(p)) add(podRequests(p));
    if (p.status?.podIP) ips.add(p.status.podIP);
  }
  for (const a of acc.assumptions().values()) if (a.node === node) add(a.requests);
  for (const r of acc.reservations().values()) if (r.node === node) ips.add(r.ip);
  return { pods, requested, ips: [...ips].sort() };
}

/** `observedAfter`: keys whose pod the informer reported after the key's assumption was made. */
function expectMatches(cache: ReadonlyMap<string, Pod>, acc: NodeAccounting, observedAfter: ReadonlySet<string>): void {
  for (const node of NODES) {
    const want = recount(cache, acc, node);
    const got = acc.usage(node);
    expect(got.pods).toBe(want.pods);
    const resources = new Set([...Object.keys(got.requested), ...Object.keys(want.requested)]);
    for (const r of resources) {
      // The recount sums floats in cache order; the accounting sums exactly.
      const w = want.requested[r] ?? 0;
      expect(Math.abs((got.requested[r] ?? 0) - w)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(w)));
    }
    expect(acc.ipsInUse(node)).toEqual(want.ips);
    for (const ip of ["10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.0.5"]) expect(acc.ipInUse(node, ip)).toBe(want.ips.includes(ip));
  }
  // An assumption outlives no report of its pod bound, finished or replaced.
  for (const [k, a] of acc.assumptions()) {
    const p = cache.get(k);
    if (!p || !observedAfter.has(k)) continue;
    expect(p.metadata?.uid).toBe(a.uid);
    expect(assignedNode(p)).toBeUndefined();
    expect(terminal(p)).toBe(false);
  }
}

describe("NodeAccounting", () => {
  it("matches a full recount after any series of pod adds/updates/deletes, assumptions and IP reservations", () => {
    fc.assert(
      fc.property(ops, (series) => {
        const acc = new NodeAccounting();
        const cache = new Map<string, Pod>();
        const observedAfter = new Set<string>();
        for (const o of series) {
          switch (o.op) {
            case "put": {
              const p = pod(o.pod);
              cache.set(key(o.pod.name), p);
              acc.observe(p);
              observedAfter.add(key(o.pod.name));
              break;
            }
            case "delete":
              // The informer only reports deletes of pods it has.
              if (cache.delete(key(o.name))) acc.observeDeleted(key(o.name));
              break;
            case "assume":
              // Made from the lister, which may be ahead of the notifications delivered so far.
              observedAfter.delete(key(o.name));
              acc.assume(key(o.name), { uid: o.uid, node: o.node, requests: { cpu: podRequests(pod({ name: o.name, uid: o.uid, byStatus: false, phase: "Pending", cpu: o.cpu })).cpu } });
              break;
            case "unassume":
              acc.unassume(key(o.name));
              break;
            case "reserve":
              acc.reserveIP(key(o.name), { uid: o.uid, node: o.node, ip: o.ip });
              break;
            case "release":
              acc.releaseIP(key(o.name));
              break;
            case "forget":
              acc.forget(key(o.name));
              break;
          }
          expectMatches(cache, acc, observedAfter);
        }
        // Taking everything away leaves nothing behind: the sums are exact.
        for (const k of [...cache.keys()]) {
          cache.delete(k);
          acc.observeDeleted(k);
        }
        for (const n of NAMES) acc.forget(key(n));
        expect(acc.nodes()).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it("sums requests exactly: no drift from adding and removing", () => {
    const acc = new NodeAccounting();
    for (const n of ["a", "b", "c"]) acc.observe(pod({ name: n, uid: n, node: "n1", byStatus: false, phase: "Running", cpu: "100m" }));
    acc.observeDeleted(key("b"));
    expect(acc.usage("n1")).toEqual({ pods: 2, requested: { cpu: 0.2 } });
    acc.observe(pod({ name: "c", uid: "c", node: "n1", byStatus: false, phase: "Succeeded", cpu: "100m" }));
    expect(acc.usage("n1")).toEqual({ pods: 1, requested: { cpu: 0.1 } });
  });

  it("drops an assumption once the informer shows the pod bound, and keeps it while the pod is pending", () => {
    const acc = new NodeAccounting();
    const pending = pod({ name: "a", uid: "u1", byStatus: false, phase: "Pending", cpu: "1" });
    acc.observe(pending);
    acc.assume(key("a"), { uid: "u1", node: "n2", requests: { cpu: 1 } });
    acc.observe(pending);
    expect(acc.usage("n2")).toEqual({ pods: 1, requested: { cpu: 1 } });
    acc.observe(pod({ name: "a", uid: "u1", node: "n2", byStatus: true, phase: "Pending", cpu: "1" }));
    expect(acc.assumption(key("a"))).toBeUndefined();
    expect(acc.usage("n2")).toEqual({ pods: 1, requested: { cpu: 1 } });
  });

  it("keeps an IP in use while a pod or a reservation holds it", () => {
    const acc = new NodeAccounting();
    acc.reserveIP(key("a"), { uid: "u1", node: "n1", ip: "10.0.0.2" });
    acc.observe(pod({ name: "a", uid: "u1", node: "n1", byStatus: false, phase: "Running", podIP: "10.0.0.2" }));
    acc.releaseIP(key("a"));
    expect(acc.ipInUse("n1", "10.0.0.2")).toBe(true);
    acc.observeDeleted(key("a"));
    expect(acc.ipInUse("n1", "10.0.0.2")).toBe(false);
    expect(acc.nodes()).toEqual([]);
  });
});
