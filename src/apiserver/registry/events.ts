/**
 * Events, served twice over the same objects: core/v1 `events` and events.k8s.io/v1 `events`.
 *
 * core/v1 keeps upstream's legacy validation only (namespace agreement with involvedObject for
 * old-style events; reporting fields for new-style events with eventTime; namespace a DNS
 * subdomain) and, like upstream, no ObjectMeta validation at all. events.k8s.io/v1 adds the strict
 * rules (ObjectMeta, eventTime required, type Normal|Warning, deprecated fields unset, series) and
 * makes most fields immutable on update. Error paths use the core field names for both APIs,
 * because upstream validates the internal (core-shaped) object for both.
 *
 * `coreEventToEventsV1` / `eventsV1ToCoreEvent` convert between the two shapes.
 */
import type { Event as CoreEvent } from "../../apimachinery/api/core/v1.js";
import type { Event as EventsV1Event } from "../../apimachinery/api/events/v1.js";
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { isDNS1123Subdomain, isQualifiedName, nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import { defineStrategy } from "./define.js";
import { validateImmutableField, validateObjectMeta, validateObjectMetaUpdate } from "./meta.js";
import type { ResourceStrategy } from "./strategy.js";

/** The core-shaped view of an event that validation works on. */
interface EventView {
  namespace: string;
  involvedObjectNamespace: string;
  eventTime?: string;
  reportingController: string;
  reportingInstance: string;
  action: string;
  reason: string;
  message: string;
}

function legacyValidate(e: EventView): FieldError[] {
  const errs: FieldError[] = [];
  if (!e.eventTime) {
    if (!e.involvedObjectNamespace) {
      if (e.namespace !== "" && e.namespace !== "default") {
        errs.push(fieldErrors.invalid("involvedObject.namespace", e.involvedObjectNamespace, "does not match event.namespace"));
      }
    } else if (e.namespace !== e.involvedObjectNamespace) {
      errs.push(fieldErrors.invalid("involvedObject.namespace", e.involvedObjectNamespace, "does not match event.namespace"));
    }
  } else {
    if (!e.involvedObjectNamespace && e.namespace !== "default" && e.namespace !== "kube-system") {
      errs.push(fieldErrors.invalid("involvedObject.namespace", e.involvedObjectNamespace, "does not match event.namespace"));
    }
    if (!e.reportingController) errs.push(fieldErrors.required("reportingController", ""));
    for (const msg of isQualifiedName(e.reportingController)) errs.push(fieldErrors.invalid("reportingController", e.reportingController, msg));
    if (!e.reportingInstance) errs.push(fieldErrors.required("reportingInstance", ""));
    if (e.reportingInstance.length > 128) errs.push(fieldErrors.invalid("reportingInstance", "", "can have at most 128 characters"));
    if (!e.action) errs.push(fieldErrors.required("action", ""));
    if (e.action.length > 128) errs.push(fieldErrors.invalid("action", "", "can have at most 128 characters"));
    if (!e.reason) errs.push(fieldErrors.required("reason", ""));
    if (e.reason.length > 128) errs.push(fieldErrors.invalid("reason", "", "can have at most 128 characters"));
    if (e.message.length > 1024) errs.push(fieldErrors.invalid("message", "", "can have at most 1024 characters"));
  }
  for (const msg of isDNS1123Subdomain(e.namespace)) errs.push(fieldErrors.invalid("namespace", e.namespace, msg));
  return errs;
}

const asCore = (o: KubeObject) => o as unknown as CoreEvent;
const asV1 = (o: KubeObject) => o as unknown as EventsV1Event;

function coreView(o: KubeObject): EventView {
  const e = asCore(o);
  return {
    namespace: e.metadata?.namespace ?? "",
    involvedObjectNamespace: e.involvedObject?.namespace ?? "",
    eventTime: e.eventTime,
    reportingController: e.reportingComponent ?? "",
    reportingInstance: e.reportingInstance ?? "",
    action: e.action ?? "",
    reason: e.reason ?? "",
    message: e.message ?? "",
  };
}

function v1View(o: KubeObject): EventView {
  const e = asV1(o);
  return {
    namespace: e.metadata?.namespace ?? "",
    involvedObjectNamespace: e.regarding?.namespace ?? "",
    eventTime: e.eventTime,
    reportingController: e.reportingController ?? "",
    reportingInstance: e.reportingInstance ?? "",
    action: e.action ?? "",
    reason: e.reason ?? "",
    message: e.note ?? "",
  };
}

/** The selectable fields of an ObjectReference under `prefix` (involvedObject / regarding). */
function referenceFields(
  prefix: string,
  ref: { kind?: string; namespace?: string; name?: string; uid?: string; apiVersion?: string; resourceVersion?: string; fieldPath?: string } | undefined,
): Record<string, string> {
  const r = ref ?? {};
  return {
    [`${prefix}.kind`]: r.kind ?? "",
    [`${prefix}.namespace`]: r.namespace ?? "",
    [`${prefix}.name`]: r.name ?? "",
    [`${prefix}.uid`]: r.uid ?? "",
    [`${prefix}.apiVersion`]: r.apiVersion ?? "",
    [`${prefix}.resourceVersion`]: r.resourceVersion ?? "",
    [`${prefix}.fieldPath`]: r.fieldPath ?? "",
  };
}

export const coreEventStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "",
    version: "v1",
    kind: "Event",
    resource: "events",
    singular: "event",
    listKind: "EventList",
    shortNames: ["ev"],
    categories: [],
    namespaced: true,
  },
  nameFn: nameIsDNSSubdomain,
  skipObjectMetaValidation: true,
  validateSpec: (obj) => legacyValidate(coreView(obj)),
  fields: (obj) => {
    const e = asCore(obj);
    return {
      ...referenceFields("involvedObject", e.involvedObject),
      reason: e.reason ?? "",
      reportingComponent: e.reportingComponent ?? "",
      source: e.source?.component || e.reportingComponent || "",
      type: e.type ?? "",
    };
  },
});

function validateSeries(e: EventsV1Event): FieldError[] {
  const errs: FieldError[] = [];
  if (e.series) {
    if ((e.series.count ?? 0) < 2) errs.push(fieldErrors.invalid("series.count", "", "should be at least 2"));
    if (!e.series.lastObservedTime) errs.push(fieldErrors.required("series.lastObservedTime", ""));
  }
  return errs;
}

/** ValidateEventCreate for events.k8s.io/v1 (strict). */
export function validateEventsV1Create(obj: KubeObject): FieldError[] {
  const e = asV1(obj);
  const errs = legacyValidate(v1View(obj));
  errs.push(...validateObjectMeta(e.metadata, true, nameIsDNSSubdomain));
  errs.push(...validateSeries(e));
  if (!e.eventTime) errs.push(fieldErrors.required("eventTime", ""));
  if (e.type !== "Normal" && e.type !== "Warning") errs.push(fieldErrors.invalid("type", "", `has invalid value: ${e.type ?? ""}`));
  if (e.deprecatedFirstTimestamp) errs.push(fieldErrors.invalid("firstTimestamp", "", "needs to be unset"));
  if (e.deprecatedLastTimestamp) errs.push(fieldErrors.invalid("lastTimestamp", "", "needs to be unset"));
  if (e.deprecatedCount) errs.push(fieldErrors.invalid("count", "", "needs to be unset"));
  if (e.deprecatedSource?.component || e.deprecatedSource?.host) errs.push(fieldErrors.invalid("source", "", "needs to be unset"));
  return errs;
}

/** ValidateEventUpdate for events.k8s.io/v1 (strict). */
export function validateEventsV1Update(obj: KubeObject, old: KubeObject): FieldError[] {
  const n = asV1(obj);
  const o = asV1(old);
  const errs = legacyValidate(v1View(obj));
  errs.push(...validateObjectMetaUpdate(n.metadata, o.metadata));
  if (JSON.stringify(n.series ?? null) !== JSON.stringify(o.series ?? null)) errs.push(...validateSeries(n));
  const pairs: [unknown, unknown, string][] = [
    [n.regarding, o.regarding, "involvedObject"],
    [n.reason, o.reason, "reason"],
    [n.note, o.note, "message"],
    [n.deprecatedSource, o.deprecatedSource, "source"],
    [n.deprecatedFirstTimestamp, o.deprecatedFirstTimestamp, "firstTimestamp"],
    [n.deprecatedLastTimestamp, o.deprecatedLastTimestamp, "lastTimestamp"],
    [n.deprecatedCount, o.deprecatedCount, "count"],
    [n.type, o.type, "type"],
    [n.eventTime, o.eventTime, "eventTime"],
    [n.action, o.action, "action"],
    [n.related, o.related, "related"],
    [n.reportingController, o.reportingController, "reportingController"],
    [n.reportingInstance, o.reportingInstance, "reportingInstance"],
  ];
  for (const [a, b, f] of pairs) errs.push(...validateImmutableField(a, b, f));
  return errs;
}

export const eventsV1EventStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "events.k8s.io",
    version: "v1",
    kind: "Event",
    resource: "events",
    singular: "event",
    listKind: "EventList",
    shortNames: ["ev"],
    categories: [],
    namespaced: true,
  },
  nameFn: nameIsDNSSubdomain,
  skipObjectMetaValidation: true,
  validateCreate: validateEventsV1Create,
  validateUpdate: validateEventsV1Update,
  fields: (obj) => {
    const e = asV1(obj);
    return {
      ...referenceFields("regarding", e.regarding),
      reason: e.reason ?? "",
      reportingController: e.reportingController ?? "",
      type: e.type ?? "",
    };
  },
});

function drop<T extends Record<string, unknown>>(o: T): T {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

/** core/v1 Event → events.k8s.io/v1 Event (the field mapping of upstream's conversion). */
export function coreEventToEventsV1(e: CoreEvent): EventsV1Event {
  const source = e.source && (e.source.component || e.source.host) ? e.source : undefined;
  return drop({
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: e.metadata,
    eventTime: e.eventTime as string,
    series: e.series ? drop({ count: e.series.count ?? 0, lastObservedTime: e.series.lastObservedTime as string }) : undefined,
    reportingController: e.reportingComponent,
    reportingInstance: e.reportingInstance,
    action: e.action,
    reason: e.reason,
    regarding: e.involvedObject,
    related: e.related,
    note: e.message,
    type: e.type,
    deprecatedSource: source,
    deprecatedFirstTimestamp: e.firstTimestamp,
    deprecatedLastTimestamp: e.lastTimestamp,
    deprecatedCount: e.count,
  }) as EventsV1Event;
}

/** events.k8s.io/v1 Event → core/v1 Event. */
export function eventsV1ToCoreEvent(e: EventsV1Event): CoreEvent {
  return drop({
    apiVersion: "v1",
    kind: "Event",
    metadata: e.metadata,
    involvedObject: e.regarding ?? {},
    reason: e.reason,
    message: e.note,
    source: e.deprecatedSource ?? {},
    firstTimestamp: e.deprecatedFirstTimestamp,
    lastTimestamp: e.deprecatedLastTimestamp,
    count: e.deprecatedCount,
    type: e.type,
    eventTime: e.eventTime,
    series: e.series,
    action: e.action,
    related: e.related,
    reportingComponent: e.reportingController ?? "",
    reportingInstance: e.reportingInstance ?? "",
  }) as CoreEvent;
}
