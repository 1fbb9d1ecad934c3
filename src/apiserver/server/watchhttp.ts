/**
 * Serving a watch over HTTP: 200 with headers flushed at once, then one frame per event — JSON
 * (`{"type":...,"object":...}\n`) or, when negotiated, length-prefixed protobuf WatchEvents —
 * written with backpressure. Plain JSON frames of storage
 * events are built once and shared by all watchers (StorageEvent.encoded); Table watches send a
 * one-row Table per event. The stream ends on timeout, client disconnect, or when the watcher
 * is closed by the store for falling behind (the client then re-watches or relists).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { StatusError } from "../../apimachinery/errors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { parseResourceVersion, type ListOptions } from "../rest/options.js";
import type { ResourceStore } from "../rest/store.js";
import { watchCollection, type WatchOutEvent } from "../rest/watch.js";
import { contentTypeFor, toTableObject } from "./convert.js";
import type { HandlerEnv, IncludeObject } from "./env.js";
import { PROTOBUF_MEDIA_TYPE, type ObjectRepresentation } from "./negotiate.js";
import { objectBytes, protobufWatchFrame } from "./serialize.js";

const frameEnd = Buffer.from("}\n");

function frame(type: string, object: unknown): Buffer {
  if (typeof object !== "object" || object === null) return Buffer.from(`{"type":${JSON.stringify(type)},"object":${JSON.stringify(object)}}\n`);
  // The object's bytes are shared with every other response carrying it (serialize.ts).
  return Buffer.concat([Buffer.from(`{"type":${JSON.stringify(type)},"object":`), objectBytes(object), frameEnd]);
}

/** A protobuf frame; an object that cannot be encoded becomes an ERROR event (the stream has begun). */
function protobufFrame(type: string, object: unknown): Buffer {
  const f = protobufWatchFrame(type, object);
  if (f !== undefined) return f;
  const err = StatusError.internalError(new Error(`unable to encode ${type} event object as protobuf`));
  return protobufWatchFrame("ERROR", err.status)!;
}

function encode(env: HandlerEnv, store: ResourceStore, ev: WatchOutEvent, rep: ObjectRepresentation, include: IncludeObject): Buffer {
  const src = ev.source;
  if (rep.kind === "protobuf" || (rep.kind === "partial" && rep.protobuf && ev.type === "ERROR")) {
    return src ? src.encoded(`pb:${ev.type}`, () => protobufFrame(ev.type, ev.object)) : protobufFrame(ev.type, ev.object);
  }
  // Bookmarks of a PartialObjectMetadata watch are PartialObjectMetadata too (a metadata-only
  // client has no decoder for the resource's own kind), as upstream transforms every event.
  if (ev.type === "ERROR" || (ev.type === "BOOKMARK" && rep.kind !== "partial") || rep.kind === "json") {
    if (src && rep.kind === "json") return src.encoded(`json:${ev.type}`, () => frame(ev.type, ev.object));
    return frame(ev.type, ev.object);
  }
  const obj = ev.object as KubeObject;
  const build = () => {
    if (rep.kind === "table") {
      return frame(ev.type, toTableObject(env, store, [obj], include, rep.version, { resourceVersion: obj.metadata?.resourceVersion }));
    }
    const partial = { kind: "PartialObjectMetadata", apiVersion: `meta.k8s.io/${rep.version}`, metadata: obj.metadata };
    return rep.protobuf ? protobufFrame(ev.type, partial) : frame(ev.type, partial);
  };
  const key = rep.kind === "table" ? `table:${rep.version}:${include}` : `partial:${rep.version}:${rep.protobuf ? "pb" : "json"}`;
  return src ? src.encoded(`${key}:${ev.type}`, build) : build();
}

/** The Content-Type of a watch stream: protobuf streams say so with `;stream=watch`. */
function watchContentType(rep: ObjectRepresentation): string {
  if (rep.kind === "protobuf" || (rep.kind === "partial" && rep.protobuf)) return `${PROTOBUF_MEDIA_TYPE};stream=watch`;
  return contentTypeFor(rep);
}

export async function serveWatch(
  env: HandlerEnv,
  store: ResourceStore,
  namespace: string | undefined,
  opts: ListOptions,
  rep: ObjectRepresentation,
  include: IncludeObject,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  // Malformed selectors and resource versions must become HTTP errors before the stream starts.
  store.predicate(opts.labelSelector, opts.fieldSelector);
  parseResourceVersion(opts.resourceVersion);
  const ac = new AbortController();
  const onClose = () => ac.abort();
  res.on("close", onClose);
  const events = watchCollection(store, namespace, opts, env.watch, ac.signal);
  const sent = env.watchEvents?.(store.gr.group, store.strategy.names.version, store.gr.resource);
  res.writeHead(200, { "Content-Type": watchContentType(rep), "Cache-Control": "no-cache, private", "Transfer-Encoding": "chunked" });
  res.flushHeaders();
  // Events that are ready together (a watch-list's initial events, a burst of writes) go out in
  // one socket write: the response is corked at the first of them and uncorked once the
  // microtasks that produce them have run, instead of one write — and one HTTP chunk for the
  // client to receive — per event. Backpressure still holds: a full buffer makes write() return
  // false, and the uncork that follows flushes it.
  let corked = false;
  const uncork = () => {
    corked = false;
    res.uncork();
  };
  try {
    for await (const ev of events) {
      if (ac.signal.aborted) break;
      if (!corked) {
        corked = true;
        res.cork();
        process.nextTick(uncork);
      }
      const ok = res.write(encode(env, store, ev, rep, include));
      sent?.inc();
      if (!ok) {
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off("drain", done);
            res.off("close", done);
            resolve();
          };
          res.on("drain", done);
          res.on("close", done);
        });
      }
    }
  } finally {
    res.off("close", onClose);
    void req;
    if (!res.writableEnded && !res.destroyed) res.end();
  }
}
