/**
 * The API server's own metrics, named and labelled as kube-apiserver's (1.36
 * endpoints/metrics, storage/etcd3/metrics), served on /metrics with the process and Node.js
 * defaults beside them:
 *
 * - apiserver_request_total{verb,dry_run,group,version,resource,subresource,scope,component,code}
 * - apiserver_request_duration_seconds{verb,dry_run,group,version,resource,subresource,scope,component}
 * - apiserver_longrunning_requests{verb,group,version,resource,subresource,scope,component}
 * - apiserver_current_inflight_requests{request_kind="readOnly"|"mutating"}
 * - apiserver_watch_events_total{group,version,resource}
 * - apiserver_storage_objects{resource} ("pods", "deployments.apps") and
 *   apiserver_resource_objects{group,resource}
 * - kubeloop_apiserver_storage_writes_total{group,resource,operation} (committed writes, what
 *   etcd would count) and kubeloop_apiserver_noop_writes_total{group,resource}: committed
 *   updates whose new object equals the old one apart from metadata.resourceVersion and
 *   managedFields timestamps — writes that change nothing a client can see.
 *
 * Cost on the hot path: every series is a metricvec child resolved by its label values (a
 * string join and a map lookup), updated with plain arithmetic; object counts and write counts
 * come from the storage's synchronous event listener (one key slice and map lookup per write,
 * plus an equality check for updates). Only resource requests are counted in the request
 * series, as upstream's installer instruments only resource routes; in-flight counting covers
 * every request that is not long-running.
 */
import { Registry, collectDefaultMetrics } from "prom-client";
import { CounterVec, GaugeVec, HistogramVec, type CounterChild, type GaugeChild, type HistogramChild } from "../../apimachinery/metricvec.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { semanticEqual } from "../../apimachinery/deepcopy.js";
import type { Storage, StorageEvent } from "../storage/interface.js";
import type { RequestLabels } from "./requestlabels.js";

/** Upstream's buckets of apiserver_request_duration_seconds. */
export const requestDurationBuckets: readonly number[] = Object.freeze([
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
]);

const component = "apiserver";

/**
 * Requests being served that are not long-running, by kind, with the highest count seen since
 * the last read (kube-apiserver reports the maximum of the last second: its watermark). An
 * in-flight limiter can keep its counts here (`enter`/`leave`) so that the metric and the limit
 * see the same numbers.
 */
export class InFlightRequests {
  readOnly = 0;
  mutating = 0;
  private maxReadOnly = 0;
  private maxMutating = 0;

  enter(mutating: boolean): void {
    if (mutating) {
      if (++this.mutating > this.maxMutating) this.maxMutating = this.mutating;
    } else if (++this.readOnly > this.maxReadOnly) this.maxReadOnly = this.readOnly;
  }

  leave(mutating: boolean): void {
    if (mutating) this.mutating--;
    else this.readOnly--;
  }

  /** The highest counts since the previous call (then starts a new window at the current counts). */
  watermarks(): { readOnly: number; mutating: number } {
    const w = { readOnly: this.maxReadOnly, mutating: this.maxMutating };
    this.maxReadOnly = this.readOnly;
    this.maxMutating = this.mutating;
    return w;
  }
}

/** Whether a request of this method mutates (upstream: every verb but get, list and watch). */
export function isMutatingMethod(method: string | undefined): boolean {
  return method !== "GET" && method !== "HEAD" && method !== "OPTIONS" && method !== undefined;
}

/** The series a storage key prefix (/registry/<group|core>/<resource>/) feeds. */
interface ResourceSeries {
  objects: GaugeChild;
  resourceObjects: GaugeChild;
  created: CounterChild;
  updated: CounterChild;
  deleted: CounterChild;
  noop: CounterChild;
}

/**
 * Whether two states of an object are equal apart from metadata.resourceVersion and the
 * `time` of managedFields entries. Keys are compared last-first: status and spec, where writes
 * usually differ, come after metadata.
 */
export function equalApartFromVolatile(a: KubeObject, b: KubeObject): boolean {
  const ka = Object.keys(a);
  let count = 0;
  for (let i = ka.length - 1; i >= 0; i--) {
    const k = ka[i];
    const av = (a as Record<string, unknown>)[k];
    if (av === undefined) continue;
    count++;
    const bv = (b as Record<string, unknown>)[k];
    if (k === "metadata") {
      if (!metadataEqual(av as Record<string, unknown>, bv as Record<string, unknown> | undefined)) return false;
    } else if (!semanticEqual(av, bv)) return false;
  }
  for (const k in b) if ((b as Record<string, unknown>)[k] !== undefined) count--;
  return count === 0;
}

function metadataEqual(a: Record<string, unknown>, b: Record<string, unknown> | undefined): boolean {
  if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) return semanticEqual(a, b);
  let count = 0;
  for (const k in a) {
    const av = a[k];
    if (av === undefined || k === "resourceVersion") continue;
    count++;
    if (k === "managedFields") {
      if (!managedFieldsEqual(av, b[k])) return false;
    } else if (!semanticEqual(av, b[k])) return false;
  }
  for (const k in b) if (b[k] !== undefined && k !== "resourceVersion") count--;
  return count === 0;
}

function managedFieldsEqual(a: unknown, b: unknown): boolean {
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return semanticEqual(a, b);
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as Record<string, unknown>;
    const y = b[i] as Record<string, unknown>;
    if (typeof x !== "object" || x === null || typeof y !== "object" || y === null) {
      if (!semanticEqual(x, y)) return false;
      continue;
    }
    let count = 0;
    for (const k in x) {
      if (x[k] === undefined || k === "time") continue;
      count++;
      if (!semanticEqual(x[k], y[k])) return false;
    }
    for (const k in y) if (y[k] !== undefined && k !== "time") count--;
    if (count !== 0) return false;
  }
  return true;
}

/** Process-wide default metrics (one set per process, whatever the number of servers). */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export class ApiServerMetrics {
  /** The server's own series (the process defaults live in a process-wide registry). */
  readonly registry = new Registry();
  readonly inFlight = new InFlightRequests();
  private readonly requests: CounterVec;
  private readonly durations: HistogramVec;
  private readonly longRunning: GaugeVec;
  private readonly watchEvents: CounterVec;
  private readonly storageObjects: GaugeVec;
  private readonly resourceObjects: GaugeVec;
  private readonly storageWrites: CounterVec;
  private readonly noopWrites: CounterVec;
  private readonly byPrefix = new Map<string, ResourceSeries>();

  constructor() {
    const registers = [this.registry];
    this.requests = new CounterVec({
      name: "apiserver_request_total",
      help: "[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
      labelNames: ["verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component", "code"],
      registers,
    });
    this.durations = new HistogramVec({
      name: "apiserver_request_duration_seconds",
      help: "[STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.",
      labelNames: ["verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component"],
      buckets: requestDurationBuckets,
      registers,
    });
    this.longRunning = new GaugeVec({
      name: "apiserver_longrunning_requests",
      help: "[STABLE] Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.",
      labelNames: ["verb", "group", "version", "resource", "subresource", "scope", "component"],
      registers,
    });
    const inflight = new GaugeVec({
      name: "apiserver_current_inflight_requests",
      help: "[STABLE] Maximal number of currently used inflight request limit of this apiserver per request kind in last second.",
      labelNames: ["request_kind"],
      registers,
      collect: () => {
        const w = this.inFlight.watermarks();
        inflight.child("readOnly").set(w.readOnly);
        inflight.child("mutating").set(w.mutating);
      },
    });
    inflight.child("readOnly");
    inflight.child("mutating");
    this.watchEvents = new CounterVec({
      name: "apiserver_watch_events_total",
      help: "[ALPHA] Number of events sent in watch clients",
      labelNames: ["group", "version", "resource"],
      registers,
    });
    this.storageObjects = new GaugeVec({
      name: "apiserver_storage_objects",
      help: "[STABLE] [DEPRECATED, consider using apiserver_resource_objects instead] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.",
      labelNames: ["resource"],
      registers,
    });
    this.resourceObjects = new GaugeVec({
      name: "apiserver_resource_objects",
      help: "[ALPHA] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.",
      labelNames: ["group", "resource"],
      registers,
    });
    this.storageWrites = new CounterVec({
      name: "kubeloop_apiserver_storage_writes_total",
      help: "Committed storage writes (each consumes one revision), by group, resource and operation (create, update, delete).",
      labelNames: ["group", "resource", "operation"],
      registers,
    });
    this.noopWrites = new CounterVec({
      name: "kubeloop_apiserver_noop_writes_total",
      help: "Committed updates whose new object equals the old one apart from metadata.resourceVersion and managedFields timestamps.",
      labelNames: ["group", "resource"],
      registers,
    });
  }

  /** Records one finished resource request. */
  observeRequest(l: RequestLabels, code: number, seconds: number): void {
    // Labels objects are shared between requests (RequestLabelsCache): their children are resolved once.
    let s = this.requestSeries.get(l);
    if (s === undefined) {
      s = { duration: this.durations.child(l.verb, l.dryRun, l.group, l.version, l.resource, l.subresource, l.scope, component), total: new Map() };
      this.requestSeries.set(l, s);
    }
    let total = s.total.get(code);
    if (total === undefined) {
      total = this.requests.child(l.verb, l.dryRun, l.group, l.version, l.resource, l.subresource, l.scope, component, String(code));
      s.total.set(code, total);
    }
    total.inc();
    s.duration.observe(seconds);
  }

  /** The children of apiserver_request_total (by code) and _duration_seconds of each labels object. */
  private readonly requestSeries = new WeakMap<RequestLabels, { duration: HistogramChild; total: Map<number, CounterChild> }>();

  /** The gauge of open long-running requests like this one. */
  longRunningGauge(l: RequestLabels): GaugeChild {
    return this.longRunning.child(l.verb, l.group, l.version, l.resource, l.subresource, l.scope, component);
  }

  /** The counter a watch of this resource increments for every event it sends. */
  watchEventCounter(group: string, version: string, resource: string): CounterChild {
    return this.watchEvents.child(group, version, resource);
  }

  private series(key: string): ResourceSeries | undefined {
    // Keys: /registry/<group|core>/<resource>/...
    const a = key.indexOf("/", 10);
    const b = a === -1 ? -1 : key.indexOf("/", a + 1);
    if (b === -1) return undefined;
    const prefix = key.slice(0, b + 1);
    let s = this.byPrefix.get(prefix);
    if (!s) {
      const g = key.slice(10, a);
      const group = g === "core" ? "" : g;
      const resource = key.slice(a + 1, b);
      s = {
        objects: this.storageObjects.child(group === "" ? resource : `${resource}.${group}`),
        resourceObjects: this.resourceObjects.child(group, resource),
        created: this.storageWrites.child(group, resource, "create"),
        updated: this.storageWrites.child(group, resource, "update"),
        deleted: this.storageWrites.child(group, resource, "delete"),
        noop: this.noopWrites.child(group, resource),
      };
      this.byPrefix.set(prefix, s);
    }
    return s;
  }

  /** Applies one committed write (the storage listener). */
  onStorageEvent = (ev: StorageEvent): void => {
    const s = this.series(ev.key);
    if (!s) return;
    switch (ev.type) {
      case "ADDED":
        s.objects.inc();
        s.resourceObjects.inc();
        s.created.inc();
        break;
      case "DELETED":
        s.objects.dec();
        s.resourceObjects.dec();
        s.deleted.inc();
        break;
      case "MODIFIED":
        s.updated.inc();
        if (ev.prevObject && equalApartFromVolatile(ev.object, ev.prevObject)) s.noop.inc();
        break;
    }
  };

  /**
   * Counts the objects already stored and follows every later write (storage.subscribe); returns
   * the function that stops following. Without `subscribe` the storage series stay empty.
   */
  async observeStorage(storage: Storage): Promise<() => void> {
    if (!storage.subscribe) return () => {};
    const stop = storage.subscribe(this.onStorageEvent);
    const all = await storage.list("/registry/");
    for (const item of all.items) {
      const s = this.series(item.key);
      if (!s) continue;
      s.objects.inc();
      s.resourceObjects.inc();
    }
    return stop;
  }

  /** The exposition: this server's series, then the process and Node.js defaults. */
  async expose(): Promise<{ contentType: string; body: string }> {
    const [own, proc] = await Promise.all([this.registry.metrics(), processMetrics().metrics()]);
    return { contentType: this.registry.contentType, body: `${own}\n${proc}` };
  }
}
