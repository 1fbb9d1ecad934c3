/** What the HTTP handlers need from the server: resources, codecs, clock and limits. */
import type { Clock } from "../../apimachinery/clock.js";
import type { KubeObject } from "../../apimachinery/types.js";
import type { WatchSettings } from "../rest/watch.js";
import type { ProtobufDecoder } from "./body.js";
import type { ResourceRegistry } from "./resources.js";
import type { PodLogSource } from "../core/podlogs.js";

export type IncludeObject = "None" | "Metadata" | "Object";

/** meta.k8s.io/v1 Table conversion (the tables module's toTable). */
export type TableConverter = (
  gk: { group: string; kind: string },
  objects: KubeObject[],
  opts: { includeObject?: IncludeObject; now?: number },
) => object;

export interface HandlerEnv {
  registry: ResourceRegistry;
  clock: Clock;
  decodeProtobuf?: ProtobufDecoder;
  toTable?: TableConverter;
  maxBodyBytes: number;
  watch: WatchSettings;
  /** The counter of events a watch of this resource sends (apiserver_watch_events_total; metrics/). */
  watchEvents?: (group: string, version: string, resource: string) => { inc(): void };
  /** Where pods/log reads containers' lines (absent: the subresource is unservable). */
  podLogs?: PodLogSource;
}
