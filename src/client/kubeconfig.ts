/**
 * Kubeconfig files: parsing, the loading rules kubectl applies (explicit path, or the KUBECONFIG
 * list, or ~/.kube/config), merging and relative-path resolution — client-go's
 * tools/clientcmd loader, in TypeScript.
 *
 * Loading is synchronous: it runs once at start-up, and synchronous loading lets
 * `KubeClient.fromKubeconfig()` return a client directly.
 *
 * Merge rules (clientcmd's `ClientConfigLoadingRules.Load`):
 * - with an explicit path, only that file is read and it must exist;
 * - otherwise the KUBECONFIG list (split on the platform's path-list separator, empty entries and
 *   duplicates dropped) or, when KUBECONFIG is unset or empty, ~/.kube/config; missing files are
 *   skipped silently, unreadable or malformed ones are errors;
 * - for the clusters, users and contexts maps, the first file to define a name wins and its entry
 *   is taken whole (a later file's entry of the same name is ignored entirely, even its fields the
 *   first entry lacks);
 * - current-context comes from the first file that sets a non-empty one.
 * Relative file references (certificate-authority, client-certificate, client-key, tokenFile, and an
 * exec command containing a path separator) are resolved against the directory of the file that
 * defined the entry.
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { parse as parseYaml, YAMLParseError } from "yaml";
import { ConfigError } from "./errors.js";

export type ExecInteractiveMode = "Never" | "IfAvailable" | "Always";

/** A user's `exec` stanza: a credential plugin run to obtain a token or a client certificate. */
export interface ExecConfig {
  command: string;
  args: string[];
  env: { name: string; value: string }[];
  /** client.authentication.k8s.io/v1 or client.authentication.k8s.io/v1beta1. */
  apiVersion: string;
  installHint?: string;
  provideClusterInfo: boolean;
  /** Absent only for v1beta1 configs that did not set it (it then defaults to IfAvailable). */
  interactiveMode?: ExecInteractiveMode;
}

export interface KubeconfigCluster {
  server: string;
  certificateAuthority?: string;
  certificateAuthorityData?: Buffer;
  insecureSkipTlsVerify: boolean;
  tlsServerName?: string;
  proxyUrl?: string;
  disableCompression: boolean;
  /** Named extensions; `client.authentication.k8s.io/exec` is handed to exec plugins. */
  extensions: Record<string, unknown>;
  /** The file this entry came from ("" when built in memory). */
  locationOfOrigin: string;
}

export interface KubeconfigUser {
  clientCertificate?: string;
  clientCertificateData?: Buffer;
  clientKey?: string;
  clientKeyData?: Buffer;
  token?: string;
  tokenFile?: string;
  impersonate?: string;
  impersonateUid?: string;
  impersonateGroups: string[];
  impersonateUserExtra: Record<string, string[]>;
  username?: string;
  password?: string;
  authProvider?: { name: string; config: Record<string, string> };
  exec?: ExecConfig;
  locationOfOrigin: string;
}

export interface KubeconfigContext {
  cluster: string;
  user: string;
  namespace?: string;
  locationOfOrigin: string;
}

/**
 * A parsed (and possibly merged) kubeconfig. The maps hold entries by name; entries are never
 * mutated after parsing (merging and path resolution build new objects).
 */
export interface Kubeconfig {
  currentContext: string;
  clusters: Map<string, KubeconfigCluster>;
  users: Map<string, KubeconfigUser>;
  contexts: Map<string, KubeconfigContext>;
}

export function emptyKubeconfig(): Kubeconfig {
  return { currentContext: "", clusters: new Map(), users: new Map(), contexts: new Map() };
}

// ---------------------------------------------------------------------------------------------
// Parsing

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

class ShapeError extends Error {}

function optString(o: Obj, key: string, where: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw new ShapeError(`${where}.${key}: expected a string`);
  return v === "" ? undefined : v;
}

function optBool(o: Obj, key: string, where: string): boolean {
  const v = o[key];
  if (v === undefined || v === null) return false;
  if (typeof v !== "boolean") throw new ShapeError(`${where}.${key}: expected a boolean`);
  return v;
}

function optBase64(o: Obj, key: string, where: string): Buffer | undefined {
  const s = optString(o, key, where);
  if (s === undefined) return undefined;
  const compact = s.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) throw new ShapeError(`${where}.${key}: illegal base64 data`);
  return Buffer.from(compact, "base64");
}

function optStringList(o: Obj, key: string, where: string): string[] {
  const v = o[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) throw new ShapeError(`${where}.${key}: expected a list of strings`);
  return v as string[];
}

function namedList(doc: Obj, key: string, inner: string): { name: string; body: Obj }[] {
  const v = doc[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new ShapeError(`${key}: expected a list`);
  const seen = new Set<string>();
  return v.map((item, i) => {
    if (!isObj(item)) throw new ShapeError(`${key}[${i}]: expected a mapping`);
    const name = item.name;
    if (typeof name !== "string" || name === "") throw new ShapeError(`${key}[${i}].name: required`);
    if (seen.has(name)) throw new ShapeError(`${key}: duplicate name "${name}" in list`);
    seen.add(name);
    const body = item[inner] ?? {};
    if (!isObj(body)) throw new ShapeError(`${key}[${i}].${inner}: expected a mapping`);
    return { name, body };
  });
}

function parseExec(v: unknown, where: string): ExecConfig | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObj(v)) throw new ShapeError(`${where}: expected a mapping`);
  const command = optString(v, "command", where);
  if (!command) throw new ShapeError(`${where}.command: required`);
  const envRaw = v.env ?? [];
  if (!Array.isArray(envRaw)) throw new ShapeError(`${where}.env: expected a list`);
  const env = envRaw.map((e, i) => {
    if (!isObj(e) || typeof e.name !== "string") throw new ShapeError(`${where}.env[${i}]: expected {name, value}`);
    return { name: e.name, value: e.value === undefined || e.value === null ? "" : String(e.value) };
  });
  const mode = optString(v, "interactiveMode", where);
  if (mode !== undefined && mode !== "Never" && mode !== "IfAvailable" && mode !== "Always") {
    throw new ShapeError(`${where}.interactiveMode: invalid interactiveMode: "${mode}"`);
  }
  const out: ExecConfig = {
    command,
    args: optStringList(v, "args", where),
    env,
    apiVersion: optString(v, "apiVersion", where) ?? "",
    provideClusterInfo: optBool(v, "provideClusterInfo", where),
  };
  const hint = optString(v, "installHint", where);
  if (hint !== undefined) out.installHint = hint;
  if (mode !== undefined) out.interactiveMode = mode;
  return out;
}

function parseCluster(body: Obj, where: string, origin: string): KubeconfigCluster {
  const extensions: Record<string, unknown> = {};
  const ext = body.extensions;
  if (Array.isArray(ext)) {
    for (const e of ext) if (isObj(e) && typeof e.name === "string") extensions[e.name] = e.extension;
  }
  const c: KubeconfigCluster = {
    server: optString(body, "server", where) ?? "",
    insecureSkipTlsVerify: optBool(body, "insecure-skip-tls-verify", where),
    disableCompression: optBool(body, "disable-compression", where),
    extensions,
    locationOfOrigin: origin,
  };
  const ca = optString(body, "certificate-authority", where);
  if (ca !== undefined) c.certificateAuthority = ca;
  const caData = optBase64(body, "certificate-authority-data", where);
  if (caData !== undefined) c.certificateAuthorityData = caData;
  const sni = optString(body, "tls-server-name", where);
  if (sni !== undefined) c.tlsServerName = sni;
  const proxy = optString(body, "proxy-url", where);
  if (proxy !== undefined) c.proxyUrl = proxy;
  return c;
}

function parseUser(body: Obj, where: string, origin: string): KubeconfigUser {
  const u: KubeconfigUser = {
    impersonateGroups: optStringList(body, "as-groups", where),
    impersonateUserExtra: {},
    locationOfOrigin: origin,
  };
  const set = <K extends keyof KubeconfigUser>(k: K, v: KubeconfigUser[K] | undefined) => {
    if (v !== undefined) u[k] = v;
  };
  set("clientCertificate", optString(body, "client-certificate", where));
  set("clientCertificateData", optBase64(body, "client-certificate-data", where));
  set("clientKey", optString(body, "client-key", where));
  set("clientKeyData", optBase64(body, "client-key-data", where));
  set("token", optString(body, "token", where));
  set("tokenFile", optString(body, "tokenFile", where));
  set("impersonate", optString(body, "as", where));
  set("impersonateUid", optString(body, "as-uid", where));
  set("username", optString(body, "username", where));
  set("password", optString(body, "password", where));
  const extra = body["as-user-extra"];
  if (isObj(extra)) {
    for (const [k, v] of Object.entries(extra)) {
      if (Array.isArray(v)) u.impersonateUserExtra[k] = v.map(String);
    }
  }
  const ap = body["auth-provider"];
  if (isObj(ap) && typeof ap.name === "string") {
    const config: Record<string, string> = {};
    if (isObj(ap.config)) for (const [k, v] of Object.entries(ap.config)) config[k] = String(v);
    u.authProvider = { name: ap.name, config };
  }
  set("exec", parseExec(body.exec, `${where}.exec`));
  return u;
}

/**
 * Parses one kubeconfig document (YAML or JSON). `origin` is the file it came from; relative paths
 * are NOT resolved here (see `resolveLocalPaths`). Throws `ConfigError` ("InvalidFile").
 */
export function parseKubeconfig(text: string, origin = ""): Kubeconfig {
  const label = origin === "" ? "kubeconfig" : `kubeconfig file "${origin}"`;
  let doc: unknown;
  try {
    doc = parseYaml(text, { prettyErrors: false });
  } catch (e) {
    const detail = e instanceof YAMLParseError || e instanceof Error ? e.message : String(e);
    throw new ConfigError("InvalidFile", `error loading ${label}: invalid YAML: ${detail}`, { path: origin || undefined, cause: e });
  }
  const cfg = emptyKubeconfig();
  if (doc === null || doc === undefined) return cfg; // an empty file is an empty config
  try {
    if (!isObj(doc)) throw new ShapeError("expected a mapping at the top level");
    const cc = optString(doc, "current-context", "");
    if (cc !== undefined) cfg.currentContext = cc;
    for (const { name, body } of namedList(doc, "clusters", "cluster")) {
      cfg.clusters.set(name, parseCluster(body, `clusters[${name}]`, origin));
    }
    for (const { name, body } of namedList(doc, "users", "user")) {
      cfg.users.set(name, parseUser(body, `users[${name}]`, origin));
    }
    for (const { name, body } of namedList(doc, "contexts", "context")) {
      const ctx: KubeconfigContext = {
        cluster: optString(body, "cluster", `contexts[${name}]`) ?? "",
        user: optString(body, "user", `contexts[${name}]`) ?? "",
        locationOfOrigin: origin,
      };
      const ns = optString(body, "namespace", `contexts[${name}]`);
      if (ns !== undefined) ctx.namespace = ns;
      cfg.contexts.set(name, ctx);
    }
  } catch (e) {
    if (e instanceof ShapeError) {
      throw new ConfigError("InvalidFile", `error loading ${label}: ${e.message}`, { path: origin || undefined });
    }
    throw e;
  }
  return cfg;
}

// ---------------------------------------------------------------------------------------------
// Merging and path resolution

/** Merges configs in precedence order: first definition of a name wins; first non-empty current-context wins. */
export function mergeKubeconfigs(configs: readonly Kubeconfig[]): Kubeconfig {
  const out = emptyKubeconfig();
  for (const c of configs) {
    if (out.currentContext === "" && c.currentContext !== "") out.currentContext = c.currentContext;
    for (const [k, v] of c.clusters) if (!out.clusters.has(k)) out.clusters.set(k, v);
    for (const [k, v] of c.users) if (!out.users.has(k)) out.users.set(k, v);
    for (const [k, v] of c.contexts) if (!out.contexts.has(k)) out.contexts.set(k, v);
  }
  return out;
}

function resolveAgainst(p: string | undefined, base: string): string | undefined {
  if (p === undefined || p === "" || path.isAbsolute(p)) return p;
  return path.join(base, p);
}

/** Returns a config whose file references are absolute, each resolved against its entry's file. */
export function resolveLocalPaths(cfg: Kubeconfig): Kubeconfig {
  const out: Kubeconfig = { currentContext: cfg.currentContext, clusters: new Map(), users: new Map(), contexts: cfg.contexts };
  for (const [name, c] of cfg.clusters) {
    if (c.locationOfOrigin === "") {
      out.clusters.set(name, c);
      continue;
    }
    const base = path.dirname(path.resolve(c.locationOfOrigin));
    const r = { ...c };
    const ca = resolveAgainst(c.certificateAuthority, base);
    if (ca !== undefined) r.certificateAuthority = ca;
    out.clusters.set(name, r);
  }
  for (const [name, u] of cfg.users) {
    if (u.locationOfOrigin === "") {
      out.users.set(name, u);
      continue;
    }
    const base = path.dirname(path.resolve(u.locationOfOrigin));
    const r: KubeconfigUser = { ...u };
    for (const k of ["clientCertificate", "clientKey", "tokenFile"] as const) {
      const v = resolveAgainst(u[k], base);
      if (v !== undefined) r[k] = v;
    }
    // Only a command given as a path is resolved; a bare name is looked up on PATH.
    if (u.exec && u.exec.command.includes(path.sep)) {
      r.exec = { ...u.exec, command: resolveAgainst(u.exec.command, base) ?? u.exec.command };
    }
    out.users.set(name, r);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Loading rules

export interface KubeconfigLoadOptions {
  /**
   * An explicit kubeconfig file (kubectl's --kubeconfig). It must exist; no other file is read.
   */
  kubeconfigPath?: string;
  /** The KUBECONFIG value to use; defaults to `process.env.KUBECONFIG`. Pass "" to ignore the variable. */
  kubeconfigEnv?: string;
  /** Home directory for the ~/.kube/config default; defaults to `os.homedir()` (HOME). */
  homeDir?: string;
}

/** The files consulted, in precedence order (clientcmd's Precedence, or the explicit path alone). */
export function kubeconfigPrecedence(opts: KubeconfigLoadOptions = {}): string[] {
  if (opts.kubeconfigPath) return [opts.kubeconfigPath];
  const env = opts.kubeconfigEnv ?? process.env.KUBECONFIG ?? "";
  if (env !== "") {
    const seen = new Set<string>();
    const out: string[] = [];
    for (const p of env.split(path.delimiter)) {
      if (p === "" || seen.has(p)) continue;
      seen.add(p);
      out.push(p);
    }
    if (out.length > 0) return out;
  }
  return [path.join(opts.homeDir ?? homedir(), ".kube", "config")];
}

export interface LoadedKubeconfig {
  config: Kubeconfig;
  /** The files actually read, in precedence order. */
  files: string[];
}

function readKubeconfigFile(file: string, explicit: boolean): Kubeconfig | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === "ENOENT" && !explicit) return undefined; // missing files in the list are skipped
    const why = code === "ENOENT" ? "no such file or directory" : e instanceof Error ? e.message : String(e);
    throw new ConfigError(code === "ENOENT" ? "FileNotFound" : "InvalidFile", `error loading config file "${file}": ${why}`, {
      path: file,
      cause: e,
    });
  }
  return parseKubeconfig(text, file);
}

/** Loads, merges and resolves kubeconfig files following kubectl's rules (see the module comment). */
export function loadKubeconfig(opts: KubeconfigLoadOptions = {}): LoadedKubeconfig {
  const explicit = Boolean(opts.kubeconfigPath);
  const files: string[] = [];
  const configs: Kubeconfig[] = [];
  for (const f of kubeconfigPrecedence(opts)) {
    const c = readKubeconfigFile(f, explicit);
    if (!c) continue;
    files.push(f);
    configs.push(c);
  }
  return { config: resolveLocalPaths(mergeKubeconfigs(configs)), files };
}

/** True when any of the files the default rules would read exists. */
export function kubeconfigExists(opts: KubeconfigLoadOptions = {}): boolean {
  return kubeconfigPrecedence(opts).some((f) => existsSync(f));
}
