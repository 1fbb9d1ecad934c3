/**
 * The REST routes of one group-version, as kube-apiserver documents them: paths, operations,
 * operation ids, descriptions, parameters, request and response types. A version-neutral
 * model; v2.ts and v3.ts render it.
 */
import {
  CREATE_PARAMS,
  DELETE_COLLECTION_PARAMS,
  DELETE_PARAMS,
  LIST_PARAMS,
  PARAMS,
  PATCH_PARAMS,
  UPDATE_PARAMS,
  nameParam,
  type ParameterSpec,
} from "./parameters.js";
import type { GroupVersionKindExt } from "./schema.js";
import type { ServedResource } from "./types.js";

export type HttpMethod = "get" | "put" | "post" | "patch" | "delete";

export type Action = "get" | "list" | "watch" | "watchlist" | "post" | "put" | "patch" | "delete" | "deletecollection";

/** What an operation returns: a definition, or plain text (pod logs). */
export type Payload = { definition: string } | { text: true };

export interface Operation {
  method: HttpMethod;
  action: Action;
  operationId: string;
  description: string;
  gvk: GroupVersionKindExt;
  query: readonly ParameterSpec[];
  /** Request body definition; PATCH bodies are io.k8s.apimachinery.pkg.apis.meta.v1.Patch. */
  body?: string;
  /** Response code → payload (200, 201, 202). */
  responses: Array<{ code: "200" | "201" | "202"; description: "OK" | "Created" | "Accepted"; payload: Payload }>;
  /** Streams (list, watch) also answer with the ;stream=watch media types. */
  streaming?: boolean;
  /** Whether strategic merge patch is accepted (built-in kinds only). */
  strategicMerge?: boolean;
  /** Whether protobuf is offered (built-in kinds only). */
  protobuf: boolean;
}

export interface Route {
  path: string;
  /** Path-level parameters (path parameters and `pretty`). */
  parameters: readonly ParameterSpec[];
  operations: Operation[];
}

export const META = "io.k8s.apimachinery.pkg.apis.meta.v1";
export const DELETE_OPTIONS = `${META}.DeleteOptions`;
export const STATUS = `${META}.Status`;
export const PATCH = `${META}.Patch`;
export const WATCH_EVENT = `${META}.WatchEvent`;
export const API_RESOURCE_LIST = `${META}.APIResourceList`;

/** How a resource's object and list definitions are named. */
export interface ResourceDefinitions {
  object: string;
  list: string;
  /** Built-in kinds speak protobuf and strategic merge patch; custom resources do not. */
  builtin: boolean;
}

/** "apps" → "Apps", "rbac.authorization.k8s.io" → "RbacAuthorization", "" → "Core", "stable.example.com" → "StableExampleCom". */
export function groupIdentifier(group: string): string {
  if (group === "") return "Core";
  const trimmed = group.endsWith(".k8s.io") ? group.slice(0, -".k8s.io".length) : group;
  return trimmed
    .split(/[.-]/)
    .filter((p) => p !== "")
    .map((p) => p[0]!.toUpperCase() + p.slice(1))
    .join("");
}

/** The operation tag: "apps_v1", "core_v1", "rbacAuthorization_v1". */
export function tagFor(group: string, version: string): string {
  const id = groupIdentifier(group);
  return `${id[0]!.toLowerCase()}${id.slice(1)}_${version}`;
}

function capitalize(s: string): string {
  return s === "" ? s : s[0]!.toUpperCase() + s.slice(1);
}

interface SubresourceSpec {
  verbs: Array<"get" | "update" | "patch" | "create">;
  /** The kind read and written, when not the resource's own. */
  kind?: { gvk: GroupVersionKindExt; definition: string };
  text?: boolean;
}

const SCALE = { gvk: { group: "autoscaling", kind: "Scale", version: "v1" }, definition: "io.k8s.api.autoscaling.v1.Scale" };

/** The subresources kube-apiserver serves and what they accept. */
const SUBRESOURCES: Record<string, SubresourceSpec> = {
  status: { verbs: ["get", "update", "patch"] },
  scale: { verbs: ["get", "update", "patch"], kind: SCALE },
  ephemeralcontainers: { verbs: ["get", "update", "patch"] },
  resize: { verbs: ["get", "update", "patch"] },
  approval: { verbs: ["get", "update", "patch"] },
  finalize: { verbs: ["update"] },
  binding: { verbs: ["create"], kind: { gvk: { group: "", kind: "Binding", version: "v1" }, definition: "io.k8s.api.core.v1.Binding" } },
  eviction: { verbs: ["create"], kind: { gvk: { group: "policy", kind: "Eviction", version: "v1" }, definition: "io.k8s.api.policy.v1.Eviction" } },
  token: {
    verbs: ["create"],
    kind: { gvk: { group: "authentication.k8s.io", kind: "TokenRequest", version: "v1" }, definition: "io.k8s.api.authentication.v1.TokenRequest" },
  },
  log: { verbs: ["get"], text: true },
};

const LOG_PARAMS: readonly ParameterSpec[] = [
  { name: "container", in: "query", type: "string", description: "The container for which to stream logs. Defaults to only container if there is one container in the pod." },
  { name: "follow", in: "query", type: "boolean", description: "Follow the log stream of the pod. Defaults to false." },
  { name: "limitBytes", in: "query", type: "integer", description: "If set, the number of bytes to read from the server before terminating the log output. This may not display a complete final line of logging, and may return slightly more or slightly less than the specified limit." },
  { name: "previous", in: "query", type: "boolean", description: "Return previous terminated container logs. Defaults to false." },
  { name: "sinceSeconds", in: "query", type: "integer", description: "A relative time in seconds before the current time from which to show logs. If this value precedes the time a pod was started, only logs since the pod start will be returned. If this value is in the future, no logs will be returned. Only one of sinceSeconds or sinceTime may be specified." },
  { name: "tailLines", in: "query", type: "integer", description: "If set, the number of lines from the end of the logs to show. If not specified, logs are shown from the creation of the container or sinceSeconds or sinceTime" },
  { name: "timestamps", in: "query", type: "boolean", description: "If true, add an RFC3339 or RFC3339Nano timestamp at the beginning of every line of log output. Defaults to false." },
];

const ok = (payload: Payload) => ({ code: "200" as const, description: "OK" as const, payload });
const created = (payload: Payload) => ({ code: "201" as const, description: "Created" as const, payload });
const accepted = (payload: Payload) => ({ code: "202" as const, description: "Accepted" as const, payload });

/** The routes serving `resources` (all of one group-version), sorted by path. */
export function routesFor(
  group: string,
  version: string,
  resources: readonly ServedResource[],
  definitionsOf: (r: ServedResource) => ResourceDefinitions,
): Route[] {
  const routes = new Map<string, Route>();
  const gvId = `${groupIdentifier(group)}${capitalize(version)}`;
  const prefix = group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
  const pretty = [PARAMS.pretty];
  const add = (path: string, parameters: readonly ParameterSpec[], op: Operation) => {
    let route = routes.get(path);
    if (!route) {
      route = { path, parameters, operations: [] };
      routes.set(path, route);
    }
    route.operations.push(op);
  };

  add(`${prefix}/`, [], {
    method: "get",
    action: "get",
    operationId: `get${gvId}APIResources`,
    description: "get available resources",
    gvk: { group: "", kind: "APIResourceList", version: "v1" },
    query: [],
    responses: [ok({ definition: API_RESOURCE_LIST })],
    protobuf: true,
  });

  for (const r of resources) {
    const defs = definitionsOf(r);
    const verbs = new Set(r.verbs);
    const gvk = { group: r.group, kind: r.kind, version: r.version };
    const ns = r.namespaced ? "Namespaced" : "";
    const nsPath = r.namespaced ? "/namespaces/{namespace}" : "";
    const nsParams = r.namespaced ? [PARAMS.namespace] : [];
    const collection = `${prefix}${nsPath}/${r.resource}`;
    const item = `${collection}/{name}`;
    const itemParams = [nameParam(r.kind), ...nsParams, ...pretty];
    const object = { definition: defs.object };
    const list = { definition: defs.list };
    const status = { definition: STATUS };
    const base = { gvk, protobuf: defs.builtin };
    const deprecatedWatch = "deprecated: use the 'watch' parameter with a list operation instead";

    if (verbs.has("list")) {
      add(collection, [...nsParams, ...pretty], {
        ...base,
        method: "get",
        action: "list",
        operationId: `list${gvId}${ns}${r.kind}`,
        description: `list or watch objects of kind ${r.kind}`,
        query: LIST_PARAMS,
        responses: [ok(list)],
        streaming: true,
      });
      if (r.namespaced) {
        add(`${prefix}/${r.resource}`, [...LIST_PARAMS, ...pretty], {
          ...base,
          method: "get",
          action: "list",
          operationId: `list${gvId}${r.kind}ForAllNamespaces`,
          description: `list or watch objects of kind ${r.kind}`,
          query: [],
          responses: [ok(list)],
          streaming: true,
        });
      }
    }
    if (verbs.has("watch")) {
      const watchEvent = { definition: WATCH_EVENT };
      add(`${prefix}/watch${nsPath}/${r.resource}`, [...LIST_PARAMS, ...nsParams, ...pretty], {
        ...base,
        method: "get",
        action: "watchlist",
        operationId: `watch${gvId}${ns}${r.kind}List`,
        description: `watch individual changes to a list of ${r.kind}. ${deprecatedWatch}.`,
        query: [],
        responses: [ok(watchEvent)],
        streaming: true,
      });
      add(`${prefix}/watch${nsPath}/${r.resource}/{name}`, [...LIST_PARAMS, nameParam(r.kind), ...nsParams, ...pretty], {
        ...base,
        method: "get",
        action: "watch",
        operationId: `watch${gvId}${ns}${r.kind}`,
        description: `watch changes to an object of kind ${r.kind}. ${deprecatedWatch}, filtered to a single item with the 'fieldSelector' parameter.`,
        query: [],
        responses: [ok(watchEvent)],
        streaming: true,
      });
      if (r.namespaced) {
        add(`${prefix}/watch/${r.resource}`, [...LIST_PARAMS, ...pretty], {
          ...base,
          method: "get",
          action: "watchlist",
          operationId: `watch${gvId}${r.kind}ListForAllNamespaces`,
          description: `watch individual changes to a list of ${r.kind}. ${deprecatedWatch}.`,
          query: [],
          responses: [ok(watchEvent)],
          streaming: true,
        });
      }
    }
    if (verbs.has("create")) {
      add(collection, [...nsParams, ...pretty], {
        ...base,
        method: "post",
        action: "post",
        operationId: `create${gvId}${ns}${r.kind}`,
        description: `create ${article(r.kind)} ${r.kind}`,
        query: CREATE_PARAMS,
        body: defs.object,
        responses: [ok(object), created(object), accepted(object)],
      });
    }
    if (verbs.has("deletecollection")) {
      add(collection, [...nsParams, ...pretty], {
        ...base,
        method: "delete",
        action: "deletecollection",
        operationId: `delete${gvId}Collection${ns}${r.kind}`,
        description: `delete collection of ${r.kind}`,
        query: DELETE_COLLECTION_PARAMS,
        body: DELETE_OPTIONS,
        responses: [ok(status)],
      });
    }
    if (verbs.has("get")) {
      add(item, itemParams, {
        ...base,
        method: "get",
        action: "get",
        operationId: `read${gvId}${ns}${r.kind}`,
        description: `read the specified ${r.kind}`,
        query: [],
        responses: [ok(object)],
      });
    }
    if (verbs.has("update")) {
      add(item, itemParams, {
        ...base,
        method: "put",
        action: "put",
        operationId: `replace${gvId}${ns}${r.kind}`,
        description: `replace the specified ${r.kind}`,
        query: UPDATE_PARAMS,
        body: defs.object,
        responses: [ok(object), created(object)],
      });
    }
    if (verbs.has("patch")) {
      add(item, itemParams, {
        ...base,
        method: "patch",
        action: "patch",
        operationId: `patch${gvId}${ns}${r.kind}`,
        description: `partially update the specified ${r.kind}`,
        query: PATCH_PARAMS,
        body: PATCH,
        responses: [ok(object), created(object)],
        strategicMerge: defs.builtin,
      });
    }
    if (verbs.has("delete")) {
      add(item, itemParams, {
        ...base,
        method: "delete",
        action: "delete",
        operationId: `delete${gvId}${ns}${r.kind}`,
        description: `delete ${article(r.kind)} ${r.kind}`,
        query: DELETE_PARAMS,
        body: DELETE_OPTIONS,
        responses: [ok(status), accepted(status)],
      });
    }

    for (const sub of r.subresources) {
      const spec = SUBRESOURCES[sub];
      // Subresources with no documented shape (e.g. exec, attach, proxy) are not published.
      if (!spec) continue;
      const subKind = spec.kind?.gvk ?? gvk;
      const subDef = spec.kind?.definition ?? defs.object;
      const payload: Payload = spec.text ? { text: true } : { definition: subDef };
      const path = `${item}/${sub}`;
      const params = [nameParam(subKind.kind, spec.kind ? subKind.kind : r.kind), ...nsParams, ...pretty];
      const opBase = { gvk: subKind, protobuf: defs.builtin };
      const suffix = capitalize(sub);
      for (const verb of spec.verbs) {
        if (verb === "get") {
          add(path, params, {
            ...opBase,
            method: "get",
            action: "get",
            operationId: `read${gvId}${ns}${r.kind}${suffix}`,
            description: `read ${sub} of the specified ${r.kind}`,
            query: spec.text ? LOG_PARAMS : [],
            responses: [ok(payload)],
          });
        } else if (verb === "update") {
          add(path, params, {
            ...opBase,
            method: "put",
            action: "put",
            operationId: `replace${gvId}${ns}${r.kind}${suffix}`,
            description: `replace ${sub} of the specified ${r.kind}`,
            query: UPDATE_PARAMS,
            body: subDef,
            responses: [ok(payload), created(payload)],
          });
        } else if (verb === "patch") {
          add(path, params, {
            ...opBase,
            method: "patch",
            action: "patch",
            operationId: `patch${gvId}${ns}${r.kind}${suffix}`,
            description: `partially update ${sub} of the specified ${r.kind}`,
            query: PATCH_PARAMS,
            body: PATCH,
            responses: [ok(payload), created(payload)],
            strategicMerge: defs.builtin,
          });
        } else {
          add(path, params, {
            ...opBase,
            method: "post",
            action: "post",
            operationId: `create${gvId}${ns}${r.kind}${suffix}`,
            description: `create ${sub} of ${article(r.kind)} ${r.kind}`,
            query: CREATE_PARAMS,
            body: subDef,
            responses: [ok(payload), created(payload), accepted(payload)],
          });
        }
      }
    }
  }
  return [...routes.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** kube-openapi's article choice: "an" before a vowel sound (by first letter), else "a". */
function article(kind: string): string {
  return /^[AEIOU]/.test(kind) ? "an" : "a";
}
