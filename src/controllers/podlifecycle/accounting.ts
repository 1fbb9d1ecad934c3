/**
 * NodeAccounting: what each node holds — its pod count, the sum of its pods' requests, and the
 * pod IPs in use there — kept up to date from the pod informer's notifications, so that a
 * scheduling decision or an IP allocation costs O(nodes) instead of a scan of every cached pod.
 *
 * Three sources, each keyed by pod key ("namespace/name"):
 * - observed pods: the last state the informer delivered (add/update; delete removes it).
 *   A pod counts on its assigned node (spec.nodeName, or status placement) while it is not
 *   terminal (Succeeded/Failed): one pod and its requests. Its status.podIP is in use on its
 *   assigned node whatever its phase.
 * - assumptions: scheduling decisions whose binding the informer has not delivered yet. One
 *   counts on its chosen node like a pod until the informer shows the pod bound (assigned to a
 *   node), terminal, or with another UID — then the observed pod is what counts — or until it is
 *   withdrawn (the binding failed, or the pod is forgotten).
 * - IP reservations: pod IPs handed out and not yet (or no longer) visible in a pod's status;
 *   one keeps its IP in use on its node until released.
 *
 * Invariants, per node N (what `usage`/`ipInUse` answer, and what the accounting test recounts):
 *   pods(N)         = |observed non-terminal pods assigned to N| + |assumptions on N|
 *   requested(N)[r] = Σ requests[r] over the same pods and assumptions
 *   ipsInUse(N)     = {podIP of observed pods assigned to N} ∪ {reserved IPs on N}
 * Every source entry remembers exactly what it contributed, so replacing or removing it undoes
 * that contribution whatever the new state says. Requests are summed as exact integers of
 * nano-units (BigInt): additions and removals in any order give the recount's totals, with no
 * floating-point drift.
 */
import type { Pod } from "../../apimachinery/api/core/v1.js";
import { metaNamespaceKey } from "../../apimachinery/objectname.js";
import { assignedNode } from "./podstatus.js";
import { podRequests, type Resources } from "./scheduler.js";

/** Requests in exact nano-units. */
type Nanos = ReadonlyMap<string, bigint>;

const NANO = 1e9;

function toNanos(r: Resources): Nanos {
  const out = new Map<string, bigint>();
  for (const [k, v] of Object.entries(r)) {
    const n = v * NANO;
    // Quantities beyond float range (e.g. "1e400") cannot be summed; they were never schedulable.
    if (Number.isFinite(n)) out.set(k, BigInt(Math.round(n)));
  }
  return out;
}

export interface Assumption {
  uid: string;
  node: string;
  requests: Resources;
}

export interface IPReservation {
  uid: string;
  node: string;
  ip: string;
}

export interface NodeTotals {
  pods: number;
  requested: Resources;
}

interface Observed {
  uid: string;
  /** The node the pod counts on (assigned and not terminal). */
  countedOn?: string;
  requests?: Nanos;
  /** The podIP in use, and where. */
  ip?: { node: string; ip: string };
}

interface Totals {
  pods: number;
  requested: Map<string, bigint>;
  /** IP → how many sources use it (pods and reservations may name the same IP). */
  ips: Map<string, number>;
}

function isTerminal(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === "Succeeded" || phase === "Failed";
}

/** The requests of a pod; a pod whose quantities do not parse (the API refuses those) requests nothing. */
function safeRequests(pod: Pod): Resources {
  try {
    return podRequests(pod);
  } catch {
    return {};
  }
}

export class NodeAccounting {
  private readonly observed = new Map<string, Observed>();
  private readonly assumed = new Map<string, { assumption: Assumption; nanos: Nanos }>();
  private readonly reserved = new Map<string, IPReservation>();
  private readonly totals = new Map<string, Totals>();

  private totalsOf(node: string): Totals {
    let t = this.totals.get(node);
    if (!t) {
      t = { pods: 0, requested: new Map(), ips: new Map() };
      this.totals.set(node, t);
    }
    return t;
  }

  private count(node: string, requests: Nanos, sign: 1 | -1): void {
    const t = this.totalsOf(node);
    t.pods += sign;
    for (const [k, v] of requests) {
      const next = (t.requested.get(k) ?? 0n) + (sign === 1 ? v : -v);
      if (next === 0n) t.requested.delete(k);
      else t.requested.set(k, next);
    }
    this.dropIfEmpty(node, t);
  }

  private useIP(node: string, ip: string, sign: 1 | -1): void {
    const t = this.totalsOf(node);
    const n = (t.ips.get(ip) ?? 0) + sign;
    if (n <= 0) t.ips.delete(ip);
    else t.ips.set(ip, n);
    this.dropIfEmpty(node, t);
  }

  private dropIfEmpty(node: string, t: Totals): void {
    if (t.pods === 0 && t.requested.size === 0 && t.ips.size === 0) this.totals.delete(node);
  }

  // ---------------------------------------------------------------------------------------------
  // Observed pods (the informer's notifications)

  /** An add or update: the pod's new state replaces what its key contributed before. */
  observe(pod: Pod): void {
    const key = metaNamespaceKey(pod);
    this.unobserve(key);
    const uid = pod.metadata?.uid ?? "";
    const node = assignedNode(pod);
    const entry: Observed = { uid };
    if (node !== undefined && !isTerminal(pod)) {
      entry.countedOn = node;
      entry.requests = toNanos(safeRequests(pod));
      this.count(node, entry.requests, 1);
    }
    const ip = pod.status?.podIP;
    if (node !== undefined && ip) {
      entry.ip = { node, ip };
      this.useIP(node, ip, 1);
    }
    this.observed.set(key, entry);
    // The informer shows the binding (or a pod that will never be bound, or another pod): the
    // assumption has served its purpose.
    const a = this.assumed.get(key)?.assumption;
    if (a && (a.uid !== uid || node !== undefined || isTerminal(pod))) this.unassume(key);
  }

  /** A delete: the pod no longer counts (assumptions and reservations are withdrawn separately). */
  observeDeleted(key: string): void {
    this.unobserve(key);
  }

  private unobserve(key: string): void {
    const prev = this.observed.get(key);
    if (!prev) return;
    this.observed.delete(key);
    if (prev.countedOn !== undefined) this.count(prev.countedOn, prev.requests ?? new Map(), -1);
    if (prev.ip) this.useIP(prev.ip.node, prev.ip.ip, -1);
  }

  // ---------------------------------------------------------------------------------------------
  // Assumptions (scheduling decisions in flight)

  /** Counts `a` on its node until the informer shows the binding, or `unassume`. Replaces the key's previous one. */
  assume(key: string, a: Assumption): void {
    this.unassume(key);
    const nanos = toNanos(a.requests);
    this.assumed.set(key, { assumption: { ...a, requests: { ...a.requests } }, nanos });
    this.count(a.node, nanos, 1);
  }

  unassume(key: string): void {
    const prev = this.assumed.get(key);
    if (!prev) return;
    this.assumed.delete(key);
    this.count(prev.assumption.node, prev.nanos, -1);
  }

  assumption(key: string): Assumption | undefined {
    return this.assumed.get(key)?.assumption;
  }

  // ---------------------------------------------------------------------------------------------
  // IP reservations

  /** Keeps `r.ip` in use on `r.node` until released. Replaces the key's previous reservation. */
  reserveIP(key: string, r: IPReservation): void {
    this.releaseIP(key);
    this.reserved.set(key, { ...r });
    this.useIP(r.node, r.ip, 1);
  }

  releaseIP(key: string): void {
    const prev = this.reserved.get(key);
    if (!prev) return;
    this.reserved.delete(key);
    this.useIP(prev.node, prev.ip, -1);
  }

  reservation(key: string): IPReservation | undefined {
    return this.reserved.get(key);
  }

  /** Withdraws the key's assumption and IP reservation (the simulator forgets the pod). */
  forget(key: string): void {
    this.unassume(key);
    this.releaseIP(key);
  }

  // ---------------------------------------------------------------------------------------------
  // Answers

  /** Pods counted on `node` and the sum of their requests (base units). */
  usage(node: string): NodeTotals {
    const t = this.totals.get(node);
    const requested: Resources = {};
    if (!t) return { pods: 0, requested };
    for (const [k, v] of t.requested) requested[k] = Number(v) / NANO;
    return { pods: t.pods, requested };
  }

  /** Whether `ip` is in use on `node` (a pod's status or a reservation). */
  ipInUse(node: string, ip: string): boolean {
    return this.totals.get(node)?.ips.has(ip) ?? false;
  }

  /** The IPs in use on `node`, sorted (for tests and diagnostics). */
  ipsInUse(node: string): string[] {
    return [...(this.totals.get(node)?.ips.keys() ?? [])].sort();
  }

  /** Live assumptions by pod key (for tests and diagnostics). */
  assumptions(): ReadonlyMap<string, Assumption> {
    return new Map([...this.assumed].map(([k, v]) => [k, v.assumption]));
  }

  /** IP reservations by pod key (for tests and diagnostics). */
  reservations(): ReadonlyMap<string, IPReservation> {
    return new Map(this.reserved);
  }

  /** Nodes with anything counted or in use. */
  nodes(): string[] {
    return [...this.totals.keys()].sort();
  }
}
