/** Event sinks: where correlated events go — the core/v1 Events API through any client. */
import type { Event } from "../apimachinery/api/core/v1.js";
import type { ResourceClientFactory } from "../client/interfaces.js";
import { builtin } from "../client/typed.js";
import type { EventCountPatch } from "./correlator.js";

export interface EventSink {
  create(event: Event): Promise<Event>;
  /** Bumps count, lastTimestamp (and message) of an existing event. */
  patch(event: Event, patch: EventCountPatch): Promise<Event>;
}

export const coreEventsResource = builtin.events;

/** Writes core/v1 Events in the event's own namespace: create, and a strategic merge PATCH for repeats. */
export class ClientEventSink implements EventSink {
  constructor(private readonly client: ResourceClientFactory) {}

  create(event: Event): Promise<Event> {
    const ns = event.metadata?.namespace ?? "default";
    const { resourceVersion: _rv, ...meta } = event.metadata ?? {};
    return this.client.resource(coreEventsResource, ns).create({ apiVersion: "v1", kind: "Event", ...event, metadata: meta });
  }

  patch(event: Event, patch: EventCountPatch): Promise<Event> {
    const ns = event.metadata?.namespace ?? "default";
    return this.client.resource(coreEventsResource, ns).patch(event.metadata?.name ?? "", "strategic", patch);
  }
}
