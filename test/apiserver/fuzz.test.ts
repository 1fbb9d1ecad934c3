/**
 * A seeded, time-bounded fuzz of the API server over HTTP: malformed and hostile bodies,
 * patches of every type, selectors, names, query parameters, content types, Accept headers and
 * deep documents, at every verb of several kinds (core, apps, RBAC, a custom resource,
 * namespaces), sent one at a time by a deterministic generator. Asserted:
 * - the process survives (an uncaught error or rejection in the server fails the run) and still
 *   answers /healthz, reads and writes at the end;
 * - every answer is 2xx, or a Status (kind, apiVersion, status Failure, message, reason, code
 *   equal to the HTTP status) with a 4xx code — 5xx only where upstream answers 5xx;
 * - nothing malformed is stored: every stored object has well-typed ObjectMeta, a valid name,
 *   bounded nesting, and can be read back, listed and printed as a Table.
 *
 * Reproducible: KUBELOOP_FUZZ_SEED picks the sequence (printed on failure with the request that
 * failed), KUBELOOP_FUZZ_REQUESTS how many requests at most, KUBELOOP_FUZZ_MS the time budget.
 */
import { Agent, request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinServerConfig } from "../../src/apiserver/index.js";
import { checkObjectMetaTypes } from "../../src/apiserver/rest/metatypes.js";
import { checkValueBounds, maxNestingDepth } from "../../src/apiserver/server/decodelimits.js";
import { nameIsPathSegment } from "../../src/apimachinery/validation.js";
import { decodeProtobufBody, PROTOBUF_CONTENT_TYPE } from "../../src/apiserver/protobuf/index.js";
import { TestServer } from "./harness.js";

const seed = Number(process.env.KUBELOOP_FUZZ_SEED ?? 20261201);
const maxRequests = Number(process.env.KUBELOOP_FUZZ_REQUESTS ?? 5000);
const budgetMs = Number(process.env.KUBELOOP_FUZZ_MS ?? 15_000);

/** mulberry32: a small deterministic PRNG. */
function prng(s: number): () => number {
  let a = s >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Target {
  /** Collection path with its namespace. */
  collection: string;
  apiVersion: string;
  kind: string;
  /** A valid object of the kind named `name`. */
  valid: (name: string) => Record<string, unknown>;
  subresources: string[];
}

const ns = "fuzz";
const targets: Target[] = [
  {
    collection: `/api/v1/namespaces/${ns}/configmaps`,
    apiVersion: "v1",
    kind: "ConfigMap",
    valid: (name) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels: { app: "f" } }, data: { k: "v" } }),
    subresources: [],
  },
  {
    collection: `/api/v1/namespaces/${ns}/secrets`,
    apiVersion: "v1",
    kind: "Secret",
    valid: (name) => ({ apiVersion: "v1", kind: "Secret", metadata: { name }, type: "Opaque", stringData: { k: "v" } }),
    subresources: [],
  },
  {
    collection: `/apis/apps/v1/namespaces/${ns}/deployments`,
    apiVersion: "apps/v1",
    kind: "Deployment",
    valid: (name) => ({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name, labels: { app: name } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: name } },
        template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "nginx", ports: [{ containerPort: 80 }] }] } },
      },
    }),
    subresources: ["status", "scale"],
  },
  {
    collection: `/api/v1/namespaces/${ns}/services`,
    apiVersion: "v1",
    kind: "Service",
    valid: (name) => ({ apiVersion: "v1", kind: "Service", metadata: { name }, spec: { selector: { app: "f" }, ports: [{ port: 80 }] } }),
    subresources: ["status"],
  },
  {
    collection: "/apis/rbac.authorization.k8s.io/v1/clusterroles",
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    valid: (name) => ({
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: `fuzz-${name}`, labels: { "fuzz/aggregate": "true" } },
      rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }],
    }),
    subresources: [],
  },
  {
    collection: "/apis/rbac.authorization.k8s.io/v1/clusterroles",
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    valid: (name) => ({
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: `fuzz-agg-${name}` },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { "fuzz/aggregate": "true" } }] },
    }),
    subresources: [],
  },
  {
    collection: `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`,
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    valid: (name) => ({
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
      subjects: [{ kind: "User", name: "jane" }],
    }),
    subresources: [],
  },
  {
    collection: "/api/v1/namespaces",
    apiVersion: "v1",
    kind: "Namespace",
    valid: (name) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name: `fuzz-ns-${name}` } }),
    subresources: ["status", "finalize"],
  },
  {
    collection: `/apis/fuzz.example.com/v1/namespaces/${ns}/gadgets`,
    apiVersion: "fuzz.example.com/v1",
    kind: "Gadget",
    valid: (name) => ({ apiVersion: "fuzz.example.com/v1", kind: "Gadget", metadata: { name }, spec: { size: 3, free: { any: ["thing"] } } }),
    subresources: ["status", "scale"],
  },
];

/** Create-only resources served by the authorizer and authenticator (defect 1 came through one). */
const reviewTargets: Target[] = [
  {
    collection: "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
    apiVersion: "authorization.k8s.io/v1",
    kind: "SelfSubjectAccessReview",
    valid: () => ({ apiVersion: "authorization.k8s.io/v1", kind: "SelfSubjectAccessReview", spec: { resourceAttributes: { verb: "get", resource: "pods", namespace: ns } } }),
    subresources: [],
  },
  {
    collection: "/apis/authentication.k8s.io/v1/tokenreviews",
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenReview",
    valid: () => ({ apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token: "not-a-token" } }),
    subresources: [],
  },
];

const gadgetCRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "gadgets.fuzz.example.com" },
  spec: {
    group: "fuzz.example.com",
    scope: "Namespaced",
    names: { plural: "gadgets", singular: "gadget", kind: "Gadget" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                properties: {
                  size: { type: "integer", minimum: 0 },
                  replicas: { type: "integer" },
                  free: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
                },
              },
              status: { type: "object", properties: { replicas: { type: "integer" } } },
            },
          },
        },
        subresources: { status: {}, scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas" } },
        additionalPrinterColumns: [{ name: "Size", type: "integer", jsonPath: ".spec.size" }],
      },
    ],
  },
};

/** The generator of hostile inputs. */
class Gen {
  constructor(readonly r: () => number) {}
  int(n: number): number {
    return Math.floor(this.r() * n);
  }
  chance(p: number): boolean {
    return this.r() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)];
  }
  nested(depth: number, leaf: unknown = 1): unknown {
    let v = leaf;
    for (let i = 0; i < depth; i++) v = this.chance(0.5) ? [v] : { a: v };
    return v;
  }
  /** A JSON value of any type, sometimes deep, sometimes large. */
  value(level = 0): unknown {
    switch (this.int(level > 2 ? 6 : 10)) {
      case 0:
        return null;
      case 1:
        return this.pick([true, false]);
      case 2:
        return this.pick([0, -1, 1.5, 2 ** 53 + 2, 1e308, -0, 42]);
      case 3:
        return this.pick(["", "x", "a/b", "..", "%", "\u0000", "☃", "x".repeat(300), "2024-01-01T00:00:00Z", "yes"]);
      case 4:
        return this.pick([[], {}, [null], [""], { "": "" }]);
      case 5:
        return this.pick(["*", "get", "kubernetes", "Terminating", "In", "NotIn", "Exists"]);
      case 6:
        return Array.from({ length: this.int(3) }, () => this.value(level + 1));
      case 7: {
        const o: Record<string, unknown> = {};
        for (let i = this.int(3); i > 0; i--) o[this.pick(["a", "spec", "metadata", "items", "$patch", "__proto__", "name"])] = this.value(level + 1);
        return o;
      }
      case 8:
        return this.nested(this.pick([10, maxNestingDepth - 20, maxNestingDepth + 5]));
      default:
        return this.pick(["x", 1, null]);
    }
  }
  name(): string {
    return this.chance(0.7)
      ? this.pick(["a", "b", "c", "d"])
      : this.pick(["", ".", "..", "a%2Fb", "%25", "%zz", "%2e%2e", "A_B", "x".repeat(300), "caf%C3%A9", "a.b", "-a", "a-"]);
  }
  /** A path into an object, for mutations. */
  path(): string[] {
    return this.pick([
      ["metadata"],
      ["metadata", "name"],
      ["metadata", "namespace"],
      ["metadata", "labels"],
      ["metadata", "labels", "app"],
      ["metadata", "annotations"],
      ["metadata", "finalizers"],
      ["metadata", "ownerReferences"],
      ["metadata", "managedFields"],
      ["metadata", "generation"],
      ["metadata", "resourceVersion"],
      ["metadata", "uid"],
      ["metadata", "creationTimestamp"],
      ["metadata", "deletionTimestamp"],
      ["metadata", "generateName"],
      ["apiVersion"],
      ["kind"],
      ["spec"],
      ["spec", "replicas"],
      ["spec", "selector"],
      ["spec", "template"],
      ["spec", "template", "spec", "containers"],
      ["spec", "ports"],
      ["spec", "finalizers"],
      ["spec", "size"],
      ["spec", "free"],
      ["status"],
      ["data"],
      ["stringData"],
      ["rules"],
      ["rules", "0", "verbs"],
      ["aggregationRule"],
      ["aggregationRule", "clusterRoleSelectors"],
      ["aggregationRule", "clusterRoleSelectors", "0"],
      ["roleRef"],
      ["subjects"],
    ]);
  }
  mutate(obj: Record<string, unknown>): Record<string, unknown> {
    const o = structuredClone(obj);
    for (let n = 1 + this.int(3); n > 0; n--) {
      const path = this.path();
      let cur: Record<string, unknown> = o;
      for (const k of path.slice(0, -1)) {
        const next = cur[k];
        if (typeof next !== "object" || next === null) cur[k] = {};
        cur = cur[k] as Record<string, unknown>;
      }
      const last = path[path.length - 1];
      if (this.chance(0.15)) delete cur[last];
      else cur[last] = this.value();
    }
    return o;
  }
  selector(): string {
    return this.pick(["", "app=f", "app in (f,g)", "app notin (x)", "!app", "app", "a=b,c!=d", "((", "app in f", "=", "a==b==c", "x".repeat(70) + "=y", "app=%zz", "a=b,", ",", "metadata.name=a", "spec.nodeName=x", "status.phase!=Running", "nonsense.field=1"]);
  }
  query(): string {
    const params: string[] = [];
    const add = (k: string, vs: readonly string[]) => {
      if (this.chance(0.25)) params.push(`${k}=${encodeURIComponent(this.pick(vs))}`);
    };
    add("labelSelector", [this.selector()]);
    add("fieldSelector", [this.selector()]);
    add("resourceVersion", ["", "0", "1", "abc", "-1", "99999999999", "1e3"]);
    add("resourceVersionMatch", ["Exact", "NotOlderThan", "Bogus"]);
    add("limit", ["1", "0", "-1", "x", "9999999999999999999"]);
    add("continue", ["x", "eyJ2IjoxfQ", "%%%"]);
    add("timeoutSeconds", ["1", "0", "-5", "x"]);
    add("dryRun", ["All", "None", ""]);
    add("fieldManager", ["m", "x".repeat(200)]);
    add("fieldValidation", ["Strict", "Warn", "Ignore", "Bogus"]);
    add("propagationPolicy", ["Orphan", "Background", "Foreground", "Bogus"]);
    add("gracePeriodSeconds", ["0", "-1", "x"]);
    add("orphanDependents", ["true", "maybe"]);
    add("timeout", ["1s", "abc", "0", "-1s", "1h"]);
    add("includeObject", ["None", "Object", "Bogus"]);
    add("force", ["true", "x"]);
    add("allowWatchBookmarks", ["true", "x"]);
    add("sendInitialEvents", ["true", "false", "x"]);
    if (this.chance(0.05)) params.push("%zz=%zz");
    return params.length ? `?${params.join("&")}` : "";
  }
  accept(): string | undefined {
    return this.pick([
      undefined,
      "application/json",
      "application/json;as=Table;v=v1;g=meta.k8s.io",
      "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io",
      "application/json;as=Table;v=v9;g=meta.k8s.io,application/json",
      "application/yaml",
      "application/vnd.kubernetes.protobuf",
      "text/html",
      ";;;",
      "*/*",
    ]);
  }
  contentType(): string {
    if (this.chance(0.5)) return "application/json";
    return this.pick([
      "application/json",
      "application/yaml",
      "application/yaml",
      "application/vnd.kubernetes.protobuf",
      "text/plain",
      "",
      "application/json; charset=utf-16",
      "application/json;;",
    ]);
  }
  /** A body: mostly a (mutated) object, sometimes text that is not one. */
  body(obj: Record<string, unknown>, contentType: string): string | Buffer {
    const v = this.chance(0.5) ? this.mutate(obj) : obj;
    switch (this.int(12)) {
      case 0:
        return JSON.stringify(v).slice(0, this.int(40));
      case 1:
        return this.pick(["", "null", "[]", '"x"', "1", "{", "}", '{"a":1,"a":2}', "\u0000\u0001"]);
      case 2:
        return `{"apiVersion":"v1","data":${"[".repeat(20_000)}`;
      case 3:
        return Buffer.concat([Buffer.from("k8s\u0000"), Buffer.from(Array.from({ length: 40 }, () => this.int(256)))]);
      case 4:
        return `apiVersion: v1\nkind: ${String(obj.kind)}\nmetadata:\n  name: a\nspec:\n  x: ${"- ".repeat(this.pick([100, 600, 5000]))}x\n`;
      case 5:
        return `a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n`;
      default:
        return contentType.includes("yaml") && this.chance(0.5) ? jsonToYAMLish(v) : JSON.stringify(v);
    }
  }
  patch(type: string, obj: Record<string, unknown>): string {
    if (type === "application/json-patch+json") {
      const ops = Array.from({ length: 1 + this.int(3) }, () => {
        const path = "/" + this.path().join("/");
        const op = this.pick(["add", "remove", "replace", "move", "copy", "test", "bogus"]);
        return { op, path: this.chance(0.1) ? this.pick(["", "a", "/~2", "/-"]) : path, from: "/" + this.path().join("/"), value: this.value() };
      });
      return this.chance(0.1) ? JSON.stringify(ops[0]) : JSON.stringify(ops);
    }
    if (type === "application/apply-patch+yaml") return JSON.stringify(this.mutate(obj));
    const p = this.mutate({});
    if (type === "application/strategic-merge-patch+json" && this.chance(0.3)) {
      p.$patch = this.pick(["replace", "delete", "merge", "bogus"]);
      (p as Record<string, unknown>)["$setElementOrder/containers"] = this.value();
      (p as Record<string, unknown>)["$retainKeys"] = this.value();
    }
    return this.chance(0.1) ? this.pick(["[]", "null", '"x"', "{", `{"a":${"[".repeat(5000)}`]) : JSON.stringify(p);
  }
}

/** YAML that is not JSON (block style), from a JSON value. */
function jsonToYAMLish(v: unknown, indent = ""): string {
  if (typeof v !== "object" || v === null) return JSON.stringify(v);
  if (Array.isArray(v)) return v.length === 0 ? "[]" : v.map((x) => `\n${indent}- ${jsonToYAMLish(x, `${indent}  `)}`).join("");
  const entries = Object.entries(v);
  return entries.length === 0 ? "{}" : entries.map(([k, x]) => `\n${indent}${JSON.stringify(k)}: ${jsonToYAMLish(x, `${indent}  `)}`).join("");
}

interface Reply {
  status: number;
  text: string;
  /** The Status of an error answer in protobuf (clients that ask for protobuf first get it so). */
  protobufStatus?: Record<string, unknown>;
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function send(base: string, method: string, path: string, headers: Record<string, string>, body?: string | Buffer): Promise<Reply> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, method, path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      const isWatch = (res.headers["transfer-encoding"] ?? "").includes("chunked") && res.statusCode === 200 && /watch/.test(path);
      res.on("data", (c: Buffer) => {
        chunks.push(c);
        // A watch streams: one frame (or the first bytes) is enough.
        if (isWatch) res.destroy();
      });
      const done = () => {
        const raw = Buffer.concat(chunks);
        const protobuf = (res.headers["content-type"] ?? "").startsWith(PROTOBUF_CONTENT_TYPE) && (res.statusCode ?? 0) >= 300;
        let protobufStatus: Record<string, unknown> | undefined;
        if (protobuf) {
          try {
            protobufStatus = decodeProtobufBody(raw).object as Record<string, unknown>;
          } catch {
            protobufStatus = undefined;
          }
        }
        resolve({ status: res.statusCode ?? 0, text: raw.toString("utf8"), protobufStatus });
      };
      res.on("end", done);
      res.on("close", done);
      if (isWatch) setTimeout(() => res.destroy(), 200);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** 5xx answers upstream gives as well: its storage's and strategic merge patch's plain Go errors. */
const upstream5xx = [
  /resourceVersion should not be set on objects to be created/,
  /^Timeout: Too large resource version/,
  // strategicpatch errors kube-apiserver passes through as 500s (apimachinery/patch/strategicpatch.ts)
  /does not contain declared merge key/,
  /expected a .*, but received a /,
  /unknown patch type: /,
  /unexpected patch strategy: /,
  /The order in patch list:/,
  /cannot merge lists without merge key/,
  /merging lists cannot yet be specified in the patch/,
  /value for key .* is not a map/,
  /list element types are not identical/,
  /no elements in any of the given slices/,
  /invalid value for special key/,
];

/** Collects what the server logs: errors (5xx answers) and warnings (loops, the shape safety net). */
class CollectingLogger {
  readonly errors: string[] = [];
  readonly warnings: string[] = [];
  info(): void {}
  warn(obj: object | string, msg?: string): void {
    this.warnings.push(`${msg ?? ""} ${JSON.stringify(obj)}`);
  }
  error(obj: object | string, msg?: string): void {
    this.errors.push(`${msg ?? ""} ${JSON.stringify(obj)}`);
  }
}

describe("fuzzing the API server", () => {
  const logger = new CollectingLogger();
  const t = new TestServer(builtinServerConfig({ security: {}, logger }));
  beforeAll(async () => {
    await t.start();
    expect((await t.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } })).status).toBe(201);
    expect((await t.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", gadgetCRD)).status).toBe(201);
    for (let i = 0; i < 200; i++) {
      await t.server.customResources.idle();
      if ((await t.get(`/apis/fuzz.example.com/v1/namespaces/${ns}/gadgets`)).status === 200) break;
    }
    // Objects to update, patch and delete.
    for (const target of targets) {
      for (const name of ["a", "b"]) {
        const r = await t.post(target.collection, target.valid(name));
        expect(r.status, `${target.collection} ${name}: ${r.text}`).toBe(201);
      }
    }
  });
  afterAll(async () => {
    agent.destroy();
    await t.stop();
  });

  it("answers every hostile request with 2xx or a 4xx Status, survives, and stores nothing malformed", async () => {
    const g = new Gen(prng(seed));
    const started = Date.now();
    let count = 0;
    let slowest = { ms: 0, what: "" };
    const statuses = new Map<number, number>();
    for (; count < maxRequests && Date.now() - started < budgetMs; count++) {
      const target = g.chance(0.05) ? g.pick(reviewTargets) : g.pick(targets);
      const name = g.name();
      const sub = g.chance(0.15) && target.subresources.length ? `/${g.pick(target.subresources)}` : "";
      const verb = g.pick(["get", "list", "watch", "create", "create", "update", "update", "patch", "patch", "patch", "delete", "deletecollection"]);
      const headers: Record<string, string> = {};
      const accept = g.accept();
      if (accept) headers.accept = accept;
      let method = "GET";
      let path = target.collection;
      let body: string | Buffer | undefined;
      const valid = target.valid(name.length < 30 && !name.includes("%") ? name : "a");
      switch (verb) {
        case "get":
          path += `/${name}${sub}`;
          break;
        case "list":
          break;
        case "watch":
          path += g.chance(0.5) ? "" : `/${name}`;
          path = g.chance(0.5) ? path.replace(/^\/(apis?\/[^/]+(\/v1)?)/, "/$1/watch") : path;
          headers["x-watch"] = "1";
          break;
        case "create":
          method = "POST";
          headers["content-type"] = g.contentType();
          body = g.body(valid, headers["content-type"]);
          break;
        case "update":
          method = "PUT";
          path += `/${name}${sub}`;
          headers["content-type"] = g.contentType();
          body = g.body(valid, headers["content-type"]);
          break;
        case "patch": {
          method = "PATCH";
          path += `/${name}${sub}`;
          const type = g.pick([
            "application/json-patch+json",
            "application/merge-patch+json",
            "application/strategic-merge-patch+json",
            "application/apply-patch+yaml",
            "application/json",
            "application/apply-patch+cbor",
          ]);
          headers["content-type"] = type;
          body = g.patch(type, valid);
          break;
        }
        case "delete":
          method = "DELETE";
          path += `/${name}${sub}`;
          if (g.chance(0.3)) {
            headers["content-type"] = "application/json";
            body = JSON.stringify(g.chance(0.5) ? { kind: "DeleteOptions", apiVersion: "v1", propagationPolicy: g.value(), gracePeriodSeconds: g.value(), preconditions: g.value() } : g.value());
          }
          break;
        case "deletecollection":
          method = "DELETE";
          break;
      }
      const watch = verb === "watch" || (verb === "list" && g.chance(0.2));
      let query = g.query();
      if (watch && verb === "list") query += `${query ? "&" : "?"}watch=true`;
      if (g.chance(0.03)) path = path.replace(/\/[^/]+$/, (m) => `/.${m}/..`);
      const what = `#${count} ${method} ${path}${query} [${JSON.stringify(headers)}] ${body === undefined ? "" : String(body).slice(0, 300)}`;
      const t0 = Date.now();
      let reply: Reply;
      try {
        reply = await send(t.url, method, path + query, headers, body);
      } catch (err) {
        throw new Error(`seed ${seed}: ${what}: transport error ${String(err)}`);
      }
      // (A watch is read for a moment and then dropped: it does not count as slow.)
      const ms = Date.now() - t0;
      if (!watch && ms > slowest.ms) slowest = { ms, what: what.slice(0, 200) };
      statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
      const fail = (why: string) => new Error(`seed ${seed}: ${what}\n→ ${reply.status} ${reply.text.slice(0, 500)}\n${why}`);
      if (reply.status >= 200 && reply.status < 300) continue;
      let st: Record<string, unknown> | undefined;
      try {
        st = reply.protobufStatus ?? (JSON.parse(reply.text) as Record<string, unknown>);
      } catch {
        throw fail("the answer is not a Status");
      }
      if (st.kind !== "Status" || st.apiVersion !== "v1" || st.status !== "Failure" || st.code !== reply.status || typeof st.message !== "string" || typeof st.reason !== "string") {
        throw fail("the answer is not a proper Status");
      }
      if (reply.status >= 500 && !upstream5xx.some((re) => re.test(String(st.message)))) throw fail("a 5xx where upstream answers 4xx");
    }
    const shaped = logger.warnings.filter((w) => w.includes("wrong shape")).length;
    const summary =
      `fuzz: seed ${seed}, ${count} requests in ${Date.now() - started} ms; slowest ${slowest.ms} ms: ${slowest.what}; ` +
      `statuses ${JSON.stringify([...statuses].sort((a, b) => a[0] - b[0]))}; wrong-shaped bodies caught after decoding: ${shaped}`;
    console.log(summary);
    for (const w of new Set(logger.warnings.filter((x) => x.includes("wrong shape")).map((x) => x.split("\\n")[0]))) console.log(`  ${w.slice(0, 300)}`);
    expect(count).toBeGreaterThan(100);

    // Still serving.
    expect((await t.get("/healthz")).text).toBe("ok");
    expect((await t.post(`/api/v1/namespaces/${ns}/configmaps`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "after-fuzz" } })).status).toBe(201);

    // Nothing malformed stored; everything can be read back, listed and printed.
    await t.server.controllers.idle();
    await t.server.access?.idle();
    const stored = await t.server.storage.list("/registry/");
    for (const item of stored.items) {
      const o = item.object as Record<string, unknown>;
      const where = `seed ${seed}: stored ${item.key}: ${JSON.stringify(o).slice(0, 400)}`;
      const copy = structuredClone(o);
      expect(() => checkObjectMetaTypes(copy, String(o.kind)), where).not.toThrow();
      expect(copy, where).toEqual(o);
      expect(() => checkValueBounds(o), where).not.toThrow();
      const meta = o.metadata as { name?: unknown };
      expect(typeof meta.name === "string" && meta.name !== "" && nameIsPathSegment(meta.name, false).length === 0, where).toBe(true);
    }
    for (const store of t.server.registry.all()) {
      const base = store.strategy.names.group === "" ? `/api/${store.strategy.names.version}` : `/apis/${store.strategy.names.group}/${store.strategy.names.version}`;
      const path = `${base}/${store.strategy.names.resource}`;
      if (!store.strategy.verbs.includes("list")) continue;
      for (const accept of ["application/json", "application/json;as=Table;v=v1;g=meta.k8s.io"]) {
        const r = await t.get(path, { accept });
        expect(r.status, `seed ${seed}: list ${path} as ${accept}: ${r.text.slice(0, 300)}`).toBe(200);
      }
    }
  }, 120_000);
});
