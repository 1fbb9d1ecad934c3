/**
 * kubeloop's API server as a benchmark process (role "apiserver"): `startApiServer` with the
 * options given, on a free loopback port, plus fixtures created in-process through the
 * registry (as fast as the server can take them, without HTTP) and the credentials a client
 * needs (the kubeconfig's CA and admin client certificate, the server's TLS material so that
 * a bare HTTPS ceiling can serve the same certificate).
 *
 * Also: `benchPod(i)`, the realistic pod of the informer and memory benchmarks (about 3.8 KB of
 * JSON once stored: labels, annotations, ten env vars, resources, a probe, admission defaults,
 * managedFields), and helpers to read the server's own /metrics.
 */
import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import type { KubeObject } from "../src/apimachinery/types.js";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { StartApiServerOptions } from "../src/apiserver/index.js";
import type { TLSFiles } from "./loadgen.js";
import type { RoleFactory } from "./proc.js";

export interface ApiServerParams {
  options: StartApiServerOptions;
  /**
   * A compiled src/ tree (the `dist/` of another commit, see apiserver/baseline.ts) to load the
   * server from instead of this checkout's; its startApiServer and defaultWriteContext must take
   * the same arguments.
   */
  dist?: string;
}

interface ServerModules {
  startApiServer: typeof import("../src/apiserver/index.js").startApiServer;
  defaultWriteContext: typeof import("../src/apiserver/rest/context.js").defaultWriteContext;
}

/** This checkout's server, or the one compiled into `dist` — only one of them is ever loaded. */
async function serverModules(dist: string | undefined): Promise<ServerModules> {
  if (dist === undefined) {
    const [index, context] = await Promise.all([import("../src/apiserver/index.js"), import("../src/apiserver/rest/context.js")]);
    return { startApiServer: index.startApiServer, defaultWriteContext: context.defaultWriteContext };
  }
  const load = (rel: string) => import(pathToFileURL(join(dist, rel)).href);
  const [index, context] = (await Promise.all([load("apiserver/index.js"), load("apiserver/rest/context.js")])) as [
    Pick<ServerModules, "startApiServer">,
    Pick<ServerModules, "defaultWriteContext">,
  ];
  return { startApiServer: index.startApiServer, defaultWriteContext: context.defaultWriteContext };
}

export interface ApiServerInfo {
  url: string;
  kubeconfigPath: string;
  /** HTTPS: the CA and the admin client certificate of the kubeconfig. */
  client?: TLSFiles;
  /** HTTPS: the serving certificate, key and client CA (for a bare ceiling with the same TLS). */
  serving?: { cert: string; key: string; ca: string };
}

export function benchPod(i: number, namespaces = 20): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `web-${i.toString(36).padStart(4, "0")}-5d8f7c9b6-x${(i * 7919).toString(36).slice(-5)}`,
      namespace: `team-${i % namespaces}`,
      labels: { app: `app-${i % 100}`, tier: "backend", "pod-template-hash": "5d8f7c9b6" },
      annotations: { "kubeloop.dev/owner": `team-${i % namespaces}@example.com`, "kubeloop.dev/notes": "n".repeat(120) },
    },
    spec: {
      containers: [
        {
          name: "main",
          image: "registry.example.com/team/service:1.2.3",
          env: Array.from({ length: 10 }, (_, j) => ({ name: `SETTING_${j}`, value: `value-${j}-${i}` })),
          resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { cpu: "500m", memory: "512Mi" } },
          ports: [{ containerPort: 8080, name: "http", protocol: "TCP" }],
          readinessProbe: { httpGet: { path: "/healthz", port: 8080 }, periodSeconds: 10 },
        },
      ],
    },
  } as KubeObject;
}

async function clientOf(kubeconfigPath: string): Promise<TLSFiles | undefined> {
  const kc = parse(await readFile(kubeconfigPath, "utf8")) as { clusters: { cluster: Record<string, string> }[]; users: { user: Record<string, string> }[] };
  const ca = kc.clusters[0].cluster["certificate-authority-data"];
  if (!ca) return undefined;
  const dec = (s: string | undefined) => (s ? Buffer.from(s, "base64").toString() : undefined);
  const u = kc.users[0].user;
  return { ca: dec(ca)!, cert: dec(u["client-certificate-data"]), key: dec(u["client-key-data"]) };
}

export const roles: Record<string, RoleFactory> = {
  apiserver: async (p: ApiServerParams) => {
    const { startApiServer, defaultWriteContext } = await serverModules(p.dist);
    const api = await startApiServer({ port: 0, ...p.options });
    const ctx = () => defaultWriteContext({ fieldManager: "bench" });
    const store = (group: string, resource: string) => {
      const s = api.server.registry.byGroupResource(group, resource);
      if (!s) throw new Error(`no resource ${group}/${resource}`);
      return s;
    };
    const tls = api.server.access?.tls;
    const info: ApiServerInfo = {
      url: api.url,
      kubeconfigPath: api.kubeconfigPath,
      client: await clientOf(api.kubeconfigPath),
      serving: tls ? { cert: tls.certPem, key: tls.keyPem, ca: tls.clientCAPem } : undefined,
    };
    return {
      info: () => info,
      /** Creates namespaces (ignoring those that exist). */
      namespaces: async (names: string[]) => {
        const ns = store("", "namespaces");
        for (const name of names) {
          try {
            await ns.create(undefined, { metadata: { name } }, ctx());
          } catch (err) {
            if (!(err instanceof Error) || !/already exists/.test(err.message)) throw err;
          }
        }
      },
      /** `n` config maps named `<prefix><i>` with `labels` and a `bytes`-long value. */
      configMaps: async (namespace: string, prefix: string, n: number, labels: Record<string, string>, bytes: number) => {
        const cms = store("", "configmaps");
        for (let i = 0; i < n; i++) {
          await cms.create(namespace, { metadata: { name: `${prefix}${i}`, labels }, data: { k: "v".repeat(bytes) } }, ctx());
        }
      },
      /** `n` realistic pods over `namespaces` namespaces team-<k>; returns their average JSON size. */
      pods: async (n: number, namespaces: number) => {
        const pods = store("", "pods");
        for (let i = 0; i < n; i++) {
          const pod = benchPod(i, namespaces);
          await pods.create(pod.metadata!.namespace, pod, ctx());
        }
        const listed = await api.server.storage.list(pods.prefix(undefined));
        let bytes = 0;
        for (const item of listed.items) bytes += Buffer.byteLength(JSON.stringify(item.object));
        return { pods: listed.items.length, avgJsonBytes: bytes / listed.items.length };
      },
      /**
       * One update of every pod (an annotation), straight into storage (no admission): the server
       * side of a watch burst is as cheap as it can be, so that the clients are what is measured.
       */
      burst: async (round: number) => {
        const storage = api.server.storage;
        const items = (await storage.list(store("", "pods").prefix(undefined))).items;
        const start = performance.now();
        let n = 0;
        for (const item of items) {
          const o = item.object;
          const next = { ...o, metadata: { ...o.metadata, annotations: { ...o.metadata?.annotations, "kubeloop.dev/burst": String(round) } } };
          await storage.update(item.key, next as KubeObject);
          if (++n % 500 === 0) await new Promise((r) => setImmediate(r));
        }
        return { updates: n, writeMs: performance.now() - start };
      },
      revision: () => api.server.storage.currentRevision(),
      stop: () => api.stop(),
    };
  },
};

/** Parses a Prometheus exposition into samples. */
export function parseMetrics(text: string): Array<{ name: string; labels: Record<string, string>; value: number }> {
  const out: Array<{ name: string; labels: Record<string, string>; value: number }> = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const brace = line.indexOf("{");
    const space = line.lastIndexOf(" ");
    const name = brace === -1 ? line.slice(0, line.indexOf(" ")) : line.slice(0, brace);
    const labels: Record<string, string> = {};
    if (brace !== -1) for (const m of line.slice(brace + 1, line.lastIndexOf("}")).matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[m[1]] = m[2];
    out.push({ name, labels, value: Number(line.slice(space + 1)) });
  }
  return out;
}

/** Sum of the samples of `name` whose labels pass `where`. */
export function sumMetric(samples: ReturnType<typeof parseMetrics>, name: string, where: (l: Record<string, string>) => boolean = () => true): number {
  let n = 0;
  for (const s of samples) if (s.name === name && where(s.labels)) n += s.value;
  return n;
}

const writeVerbs = new Set(["POST", "PUT", "PATCH", "APPLY", "DELETE"]);

/**
 * Successful write requests by resource ("<resource>[.<group>][/<subresource>]") from two
 * scrapes of apiserver_request_total (after − before), and the no-op writes the server counted
 * (kubeloop_apiserver_noop_writes_total), by resource.
 */
export function writesBetween(before: string, after: string): { writes: Record<string, number>; noop: Record<string, number>; total: number; noopTotal: number } {
  const count = (text: string) => {
    const writes: Record<string, number> = {};
    const noop: Record<string, number> = {};
    for (const s of parseMetrics(text)) {
      if (s.name === "apiserver_request_total" && writeVerbs.has(s.labels.verb) && s.labels.code.startsWith("2") && s.labels.dry_run === "") {
        const k = `${s.labels.resource}${s.labels.group ? `.${s.labels.group}` : ""}${s.labels.subresource ? `/${s.labels.subresource}` : ""}`;
        writes[k] = (writes[k] ?? 0) + s.value;
      } else if (s.name === "kubeloop_apiserver_noop_writes_total") {
        const k = `${s.labels.resource}${s.labels.group ? `.${s.labels.group}` : ""}`;
        noop[k] = (noop[k] ?? 0) + s.value;
      }
    }
    return { writes, noop };
  };
  const a = count(before);
  const b = count(after);
  const diff = (x: Record<string, number>, y: Record<string, number>) => {
    const out: Record<string, number> = {};
    for (const [k, v] of Object.entries(y)) if (v - (x[k] ?? 0) > 0) out[k] = v - (x[k] ?? 0);
    return out;
  };
  const writes = diff(a.writes, b.writes);
  const noop = diff(a.noop, b.noop);
  return { writes, noop, total: Object.values(writes).reduce((s, v) => s + v, 0), noopTotal: Object.values(noop).reduce((s, v) => s + v, 0) };
}
