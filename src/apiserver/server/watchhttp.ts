/**
 * Serving a watch over HTTP: 200 with headers flushed at once, then one JSON frame per event
 * (`{"type":...,"object":...}\n`), written with backpressure. Plain JSON frames of storage
 * events are built once and shared by all watchers (StorageEvent.encoded); Table watches send a
 * one-row Table per event. The stream ends on timeout, client disconnect, or when the watcher
 * is closed by the store for falling behind (the client then re-watches or relists).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { KubeObject } from "../../apimachinery/types.js";
import type { ListOptions } from "../rest/options.js";
import type { ResourceStore } from "../rest/store.js";
import { watchCollection, type WatchOutEvent } from "../rest/watch.js";
import { contentTypeFor, toTableObject } from "./convert.js";
import type { HandlerEnv, IncludeObject } from "./env.js";
import type { ObjectRepresentation } from "./negotiate.js";
import { objectBytes } from "./serialize.js";

const frameEnd = Buffer.from("}\n");

function frame(type: string, object: unknown): Buffer {
  if (typeof object !== "object" || object === null) return Buffer.from(`{"type":${JSON.stringify(type)},"object":${JSON.stringify(object)}}\n`);
  // The object's bytes are shared with every other response carrying it (serialize.ts).
  return Buffer.concat([Buffer.from(`{"type":${JSON.stringify(type)},"object":`), objectBytes(object), frameEnd]);
}

function encode(env: HandlerEnv, store: ResourceStore, ev: WatchOutEvent, rep: ObjectRepresentation, include: IncludeObject): Buffer {
  if (ev.type === "ERROR" || ev.type === "BOOKMARK" || rep.kind === "json") {
    const src = ev.source;
    if (src && rep.kind === "json") return src.encoded(`json:${ev.type}`, () => frame(ev.type, ev.object));
    return frame(ev.type, ev.object);
  }
  const obj = ev.object as KubeObject;
  const build = () => {
    if (rep.kind === "table") {
      return frame(ev.type, toTableObject(env, store, [obj], include, rep.version, { resourceVersion: obj.metadata?.resourceVersion }));
    }
    return frame(ev.type, { kind: "PartialObjectMetadata", apiVersion: `meta.k8s.io/${rep.version}`, metadata: obj.metadata });
  };
  return ev.source ? ev.source.encoded(`${rep.kind}:${rep.kind === "table" ? rep.version : rep.version}:${include}:${ev.type}`, build) : build();
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
  const ac = new AbortController();
  const onClose = () => ac.abort();
  res.on("close", onClose);
  // Selector errors must become HTTP errors before the stream starts.
  store.predicate(opts.labelSelector, opts.fieldSelector);
  const events = watchCollection(store, namespace, opts, env.watch, ac.signal);
  const sent = env.watchEvents?.(store.gr.group, store.strategy.names.version, store.gr.resource);
  res.writeHead(200, { "Content-Type": contentTypeFor(rep), "Cache-Control": "no-cache, private", "Transfer-Encoding": "chunked" });
  res.flushHeaders();
  try {
    for await (const ev of events) {
      if (ac.signal.aborted) break;
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
