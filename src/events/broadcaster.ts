/**
 * EventBroadcaster and EventRecorder, as client-go's tools/record.
 *
 * Recording never blocks the caller: `event()` builds the Event and offers it to each watcher's
 * bounded queue (maxQueued, default 1000); a full queue drops the event and counts it
 * (`droppedEvents`, and the metric `kubeloop_events_dropped_total` when a registry is given).
 * Each watcher drains its queue on its own async loop. The sink watcher correlates (dedup,
 * aggregation, spam filter) and writes with upstream's retry policy: up to 12 tries, sleeping
 * `sleepDurationMs` (the first sleep randomized), giving up at once on a StatusError (the server
 * rejected the event) and retrying transport errors.
 */
import type { Event, ObjectReference } from "../apimachinery/api/core/v1.js";
import { Counter, type Registry } from "prom-client";
import type { Clock } from "../apimachinery/clock.js";
import { realClock } from "../apimachinery/clock.js";
import { isAlreadyExists, isNotFound, StatusError } from "../apimachinery/errors.js";
import type { TypedObject } from "../apimachinery/types.js";
import { formatTime } from "../apimachinery/time.js";
import { EventCorrelator, EventNamer, type CorrelatorOptions, type EventCountPatch } from "./correlator.js";
import { goSprintf } from "./format.js";
import type { EventSink } from "./sink.js";

export const EVENT_TYPE_NORMAL = "Normal";
export const EVENT_TYPE_WARNING = "Warning";
export const MAX_TRIES_PER_EVENT = 12;
/** Longest message kept (the events.k8s.io note limit), so an event is accepted by either API. */
export const MAX_MESSAGE_LENGTH = 1024;
/** Longest reason accepted (the events.k8s.io limit). */
export const MAX_REASON_LENGTH = 128;

export interface EventSource {
  component: string;
  host?: string;
}

export interface EventRecorder {
  event(object: TypedObject | ObjectReference, type: string, reason: string, message: string): void;
  eventf(object: TypedObject | ObjectReference, type: string, reason: string, format: string, ...args: unknown[]): void;
  annotatedEventf(
    object: TypedObject | ObjectReference,
    annotations: Record<string, string>,
    type: string,
    reason: string,
    format: string,
    ...args: unknown[]
  ): void;
}

/** Where the broadcaster reports what it could not do (default: silent). */
export interface EventLogger {
  error(obj: Record<string, unknown>, msg: string): void;
  info(obj: Record<string, unknown>, msg: string): void;
}

export interface BroadcasterOptions {
  clock?: Clock;
  maxQueued?: number;
  sleepDurationMs?: number;
  correlator?: CorrelatorOptions;
  logger?: EventLogger;
  random?: () => number;
  /** Registers kubeloop_events_dropped_total here. */
  registry?: Registry;
}

export interface Subscription {
  /** Stops delivering; resolves once the watcher's loop has finished its current event. */
  stop(): Promise<void>;
}

class Watcher {
  private queue: Event[] = [];
  private wake: (() => void) | undefined;
  private stopped = false;
  readonly done: Promise<void>;

  constructor(
    private readonly max: number,
    private readonly handler: (e: Event) => Promise<void> | void,
    private readonly onError: (err: unknown) => void,
  ) {
    this.done = this.loop();
  }

  offer(e: Event): boolean {
    if (this.stopped) return true;
    if (this.queue.length >= this.max) return false;
    this.queue.push(e);
    this.wake?.();
    return true;
  }

  stop(): Promise<void> {
    this.stopped = true;
    this.queue = [];
    this.wake?.();
    return this.done;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      const e = this.queue.shift();
      if (!e) {
        await new Promise<void>((r) => (this.wake = r));
        this.wake = undefined;
        continue;
      }
      try {
        await this.handler(e);
      } catch (err) {
        this.onError(err);
      }
    }
  }
}

/** An ObjectReference to an object (tools/reference.GetReference): needs kind and apiVersion. */
export function getReference(obj: TypedObject | ObjectReference): ObjectReference {
  const o = obj as TypedObject & ObjectReference;
  if (o.metadata === undefined && typeof o.name === "string") return { ...(obj as ObjectReference) };
  if (!o.kind || !o.apiVersion) {
    throw new Error(`cannot reference an object without kind and apiVersion (${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""})`);
  }
  return {
    kind: o.kind,
    apiVersion: o.apiVersion,
    name: o.metadata?.name,
    namespace: o.metadata?.namespace,
    uid: o.metadata?.uid,
    resourceVersion: o.metadata?.resourceVersion,
  };
}

export class EventBroadcaster {
  private readonly watchers = new Set<Watcher>();
  private readonly clock: Clock;
  private readonly maxQueued: number;
  private readonly sleepDurationMs: number;
  private readonly logger: EventLogger | undefined;
  private readonly random: () => number;
  private readonly dropCounter: Counter | undefined;
  private readonly abort = new AbortController();
  private dropped = 0;

  constructor(private readonly opts: BroadcasterOptions = {}) {
    this.clock = opts.clock ?? realClock;
    this.maxQueued = opts.maxQueued ?? 1000;
    this.sleepDurationMs = opts.sleepDurationMs ?? 10_000;
    this.logger = opts.logger;
    this.random = opts.random ?? Math.random;
    if (opts.registry) {
      const existing = opts.registry.getSingleMetric("kubeloop_events_dropped_total");
      this.dropCounter =
        (existing as Counter | undefined) ??
        new Counter({ name: "kubeloop_events_dropped_total", help: "Events dropped because a watcher's queue was full.", registers: [opts.registry] });
    }
  }

  /** Events dropped because a queue was full. */
  get droppedEvents(): number {
    return this.dropped;
  }

  newRecorder(source: EventSource): EventRecorder {
    return new Recorder(this, source, this.clock, this.logger);
  }

  /** @internal Offers an event to every watcher without blocking. */
  action(e: Event): void {
    for (const w of this.watchers) {
      if (!w.offer(e)) {
        this.dropped++;
        this.dropCounter?.inc();
        this.logger?.error({ reason: e.reason, object: e.involvedObject?.name }, "Unable to record event: too many queued events, dropped event");
      }
    }
  }

  startEventWatcher(handler: (e: Event) => Promise<void> | void): Subscription {
    const w = new Watcher(this.maxQueued, handler, (err) => this.logger?.error({ err }, "event handler failed"));
    this.watchers.add(w);
    return {
      stop: () => {
        this.watchers.delete(w);
        return w.stop();
      },
    };
  }

  startStructuredLogging(log: (fields: Record<string, unknown>, msg: string) => void): Subscription {
    return this.startEventWatcher((e) =>
      log(
        {
          object: `${e.involvedObject.namespace ? `${e.involvedObject.namespace}/` : ""}${e.involvedObject.name ?? ""}`,
          kind: e.involvedObject.kind,
          apiVersion: e.involvedObject.apiVersion,
          fieldPath: e.involvedObject.fieldPath,
          type: e.type,
          reason: e.reason,
          message: e.message,
        },
        "Event occurred",
      ),
    );
  }

  startRecordingToSink(sink: EventSink): Subscription {
    const correlator = new EventCorrelator({ clock: this.clock, ...this.opts.correlator });
    return this.startEventWatcher((e) => this.recordToSink(sink, e, correlator));
  }

  /** Stops every watcher and abandons retries in progress. */
  async shutdown(): Promise<void> {
    this.abort.abort();
    const all = [...this.watchers];
    this.watchers.clear();
    await Promise.all(all.map((w) => w.stop()));
  }

  private async recordToSink(sink: EventSink, input: Event, correlator: EventCorrelator): Promise<void> {
    const result = correlator.correlate(input);
    if (result.skip || !result.event) return;
    const event = result.event;
    for (let tries = 1; ; tries++) {
      if (await this.recordEvent(sink, event, result.patch, correlator)) return;
      if (tries >= MAX_TRIES_PER_EVENT) {
        this.logger?.error({ reason: event.reason, object: event.involvedObject.name }, "Unable to write event (retry limit exceeded!)");
        return;
      }
      // Randomize the first sleep so that many clients do not retry in lockstep.
      const delay = tries === 1 ? this.sleepDurationMs * this.random() : this.sleepDurationMs;
      try {
        await this.clock.sleep(delay, this.abort.signal);
      } catch {
        return;
      }
    }
  }

  /** One write; true when done (written, or rejected for good), false to retry. */
  private async recordEvent(sink: EventSink, event: Event, patch: EventCountPatch | undefined, correlator: EventCorrelator): Promise<boolean> {
    let written: Event | undefined;
    let error: unknown;
    try {
      if (patch && (event.count ?? 1) > 1) {
        try {
          written = await sink.patch(event, patch);
        } catch (err) {
          if (!isNotFound(err)) throw err;
          // The event expired on the server: create it afresh.
          written = await sink.create({ ...event, metadata: { ...event.metadata, resourceVersion: undefined } });
        }
      } else {
        written = await sink.create({ ...event, metadata: { ...event.metadata, resourceVersion: undefined } });
      }
    } catch (err) {
      error = err;
    }
    if (written) {
      correlator.updateState(written);
      return true;
    }
    if (error instanceof StatusError) {
      if (!isAlreadyExists(error)) this.logger?.error({ err: error.message, reason: event.reason }, "Server rejected event (will not retry!)");
      return true;
    }
    this.logger?.error({ err: error instanceof Error ? error.message : String(error) }, "Unable to write event (may retry after sleeping)");
    return false;
  }
}

class Recorder implements EventRecorder {
  /** Two events recorded in the same millisecond still get distinct names. */
  private readonly namer = new EventNamer();

  constructor(
    private readonly broadcaster: EventBroadcaster,
    private readonly source: EventSource,
    private readonly clock: Clock,
    private readonly logger: EventLogger | undefined,
  ) {}

  event(object: TypedObject | ObjectReference, type: string, reason: string, message: string): void {
    this.generate(object, undefined, type, reason, message);
  }

  eventf(object: TypedObject | ObjectReference, type: string, reason: string, format: string, ...args: unknown[]): void {
    this.generate(object, undefined, type, reason, goSprintf(format, ...args));
  }

  annotatedEventf(
    object: TypedObject | ObjectReference,
    annotations: Record<string, string>,
    type: string,
    reason: string,
    format: string,
    ...args: unknown[]
  ): void {
    this.generate(object, annotations, type, reason, goSprintf(format, ...args));
  }

  private generate(
    object: TypedObject | ObjectReference,
    annotations: Record<string, string> | undefined,
    type: string,
    reason: string,
    message: string,
  ): void {
    let ref: ObjectReference;
    try {
      ref = getReference(object);
    } catch (err) {
      this.logger?.error({ err: (err as Error).message, reason }, "Could not construct reference, will not report event");
      return;
    }
    if (type !== EVENT_TYPE_NORMAL && type !== EVENT_TYPE_WARNING) {
      this.logger?.error({ eventType: type }, "Unsupported event type");
      return;
    }
    if (reason.length > MAX_REASON_LENGTH) {
      this.logger?.error({ reason }, `Event reason longer than ${MAX_REASON_LENGTH} characters, will not report event`);
      return;
    }
    const now = this.clock.now();
    const t = formatTime(now);
    const e: Event = {
      metadata: {
        name: `${ref.name ?? ""}.${this.namer.suffix(now)}`,
        namespace: ref.namespace || "default",
        ...(annotations ? { annotations: { ...annotations } } : {}),
      },
      involvedObject: ref,
      reason,
      message: message.length > MAX_MESSAGE_LENGTH ? message.slice(0, MAX_MESSAGE_LENGTH) : message,
      firstTimestamp: t,
      lastTimestamp: t,
      count: 1,
      type,
      source: { component: this.source.component, ...(this.source.host ? { host: this.source.host } : {}) },
      reportingComponent: this.source.component,
      reportingInstance: this.source.host ?? "",
    };
    this.broadcaster.action(e);
  }
}

/** A recorder that keeps events in memory, for tests (client-go's FakeRecorder). */
export class FakeRecorder implements EventRecorder {
  /** "<type> <reason> <message>" per event, in order (client-go FakeRecorder's channel lines). */
  readonly events: string[] = [];
  /** The same events with the object they are about. */
  readonly recorded: Array<{ object: TypedObject | ObjectReference; type: string; reason: string; message: string }> = [];

  event(o: TypedObject | ObjectReference, type: string, reason: string, message: string): void {
    this.events.push(`${type} ${reason} ${message}`);
    this.recorded.push({ object: o, type, reason, message });
  }

  eventf(o: TypedObject | ObjectReference, type: string, reason: string, format: string, ...args: unknown[]): void {
    this.event(o, type, reason, goSprintf(format, ...args));
  }

  annotatedEventf(o: TypedObject | ObjectReference, _a: Record<string, string>, type: string, reason: string, format: string, ...args: unknown[]): void {
    this.event(o, type, reason, goSprintf(format, ...args));
  }
}
