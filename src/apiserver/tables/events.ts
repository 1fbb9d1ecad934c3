/**
 * Events, core/v1 and events.k8s.io/v1 alike (upstream prints both through the internal
 * Event type): LAST SEEN TYPE REASON OBJECT MESSAGE; wide SUBOBJECT SOURCE FIRST SEEN COUNT NAME.
 */
import type { Event as CoreEvent, ObjectReference } from "../../apimachinery/api/core/v1.js";
import type { Event as EventsEvent } from "../../apimachinery/api/events/v1.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { CORE, col, nameColumn } from "./columns.js";
import { translateTimestampSince } from "./duration.js";
import type { PrintContext, PrintedRow, Printer } from "./types.js";

/** The fields the printer reads, in core/v1 terms. */
interface EventView {
  name: string;
  type: string;
  reason: string;
  message: string;
  involvedObject: ObjectReference;
  source: { component?: string; host?: string };
  firstTimestamp?: string;
  lastTimestamp?: string;
  eventTime?: string;
  count: number;
  series?: { count?: number; lastObservedTime?: string };
}

function fromCore(e: CoreEvent): EventView {
  return {
    name: e.metadata?.name ?? "",
    type: e.type ?? "",
    reason: e.reason ?? "",
    message: e.message ?? "",
    involvedObject: e.involvedObject ?? {},
    source: e.source ?? {},
    firstTimestamp: e.firstTimestamp,
    lastTimestamp: e.lastTimestamp,
    eventTime: e.eventTime,
    count: e.count ?? 0,
    series: e.series,
  };
}

/** events.k8s.io/v1 → core/v1 field mapping (regarding, note, deprecated* fields). */
function fromEvents(e: EventsEvent): EventView {
  return {
    name: e.metadata?.name ?? "",
    type: e.type ?? "",
    reason: e.reason ?? "",
    message: e.note ?? "",
    involvedObject: e.regarding ?? {},
    source: e.deprecatedSource ?? {},
    firstTimestamp: e.deprecatedFirstTimestamp,
    lastTimestamp: e.deprecatedLastTimestamp,
    eventTime: e.eventTime,
    count: e.deprecatedCount ?? 0,
    series: e.series,
  };
}

function formatEventSource(s: { component?: string; host?: string }): string {
  const parts = [s.component ?? ""];
  if (s.host) parts.push(s.host);
  return parts.join(", ");
}

export function printEventView(e: EventView, ctx: PrintContext): PrintedRow {
  let firstTimestamp = translateTimestampSince(e.firstTimestamp, ctx.now);
  if (!e.firstTimestamp) firstTimestamp = translateTimestampSince(e.eventTime, ctx.now);
  let lastTimestamp = translateTimestampSince(e.lastTimestamp, ctx.now);
  if (!e.lastTimestamp) lastTimestamp = firstTimestamp;
  let count = e.count;
  if (e.series) {
    lastTimestamp = translateTimestampSince(e.series.lastObservedTime, ctx.now);
    // A series starts after an isomorphic singleton event the series count does not include.
    count = (e.series.count ?? 0) + 1;
  } else if (count === 0) {
    // Singleton events of the new API carry no count.
    count = 1;
  }
  const kind = (e.involvedObject.kind ?? "").toLowerCase();
  const target = e.involvedObject.name ? `${kind}/${e.involvedObject.name}` : kind;
  return {
    cells: [
      lastTimestamp,
      e.type,
      e.reason,
      target,
      e.involvedObject.fieldPath ?? "",
      formatEventSource(e.source),
      e.message.trim(),
      firstTimestamp,
      count,
      e.name,
    ],
  };
}

function eventColumns() {
  const EVENT = `${CORE}.Event`;
  return [
    col("Last Seen", "string", EVENT, "lastTimestamp"),
    col("Type", "string", EVENT, "type"),
    col("Reason", "string", EVENT, "reason"),
    col("Object", "string", EVENT, "involvedObject"),
    col("Subobject", "string", `${CORE}.ObjectReference`, "fieldPath", 1),
    col("Source", "string", EVENT, "source", 1),
    col("Message", "string", EVENT, "message"),
    col("First Seen", "string", EVENT, "firstTimestamp", 1),
    col("Count", "string", EVENT, "count", 1),
    nameColumn(1),
  ];
}

export const coreEventPrinter = (): Printer => ({
  columns: eventColumns(),
  print: (obj: KubeObject, ctx: PrintContext) => printEventView(fromCore(obj as unknown as CoreEvent), ctx),
});

export const eventsEventPrinter = (): Printer => ({
  columns: eventColumns(),
  print: (obj: KubeObject, ctx: PrintContext) => printEventView(fromEvents(obj as unknown as EventsEvent), ctx),
});
