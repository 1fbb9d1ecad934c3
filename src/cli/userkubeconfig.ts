/**
 * The user's kubeconfig, as `kubeloop up` updates it (kind's and k3d's behaviour): the cluster,
 * user and context of the generated kubeconfig (all named "kubeloop") are merged into the file
 * kubectl would write to — the first file of KUBECONFIG, else ~/.kube/config — replacing earlier
 * entries of the same names and leaving every other entry (and comment) as it was; with
 * `switchContext` the current-context becomes "kubeloop". `remove` takes those entries out again
 * and restores the previous current-context when kubeloop's was current.
 *
 * Writes are atomic (a temporary file renamed over the target) with mode 0600, as clientcmd
 * writes kubeconfigs.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { isMap, isSeq, parseDocument, YAMLMap, YAMLSeq, type Document } from "yaml";

/** The file kubectl's `config set-context` would modify (clientcmd's GetDefaultFilename). */
export function defaultKubeconfigFile(env: Record<string, string | undefined> = process.env, home = homedir()): string {
  const list = (env.KUBECONFIG ?? "").split(path.delimiter).filter((p) => p !== "");
  // clientcmd: the first existing file of the list, else its last entry.
  const existing = list.find((p) => existsSync(p));
  if (existing) return existing;
  if (list.length > 0) return list[list.length - 1];
  return path.join(home, ".kube", "config");
}

/** Remembered in the kubeconfig so `remove` can restore what was current before. */
const PREVIOUS_CONTEXT_EXTENSION = "kubeloop.dev/previous-context";

interface Entry {
  name: string;
  [k: string]: unknown;
}

function load(file: string): Document {
  const text = existsSync(file) ? readFileSync(file, "utf8") : "";
  const doc = parseDocument(text.trim() === "" ? "apiVersion: v1\nkind: Config\n" : text);
  if (doc.errors.length > 0) throw new Error(`cannot update ${file}: ${doc.errors[0].message}`);
  if (!isMap(doc.contents)) throw new Error(`cannot update ${file}: not a kubeconfig (the document is not a map)`);
  return doc;
}

function seqOf(doc: Document, key: string): YAMLSeq {
  const v = doc.get(key, true);
  if (isSeq(v)) return v;
  const seq = new YAMLSeq();
  doc.set(key, seq);
  return seq;
}

function indexOfName(seq: YAMLSeq, name: string): number {
  return seq.items.findIndex((it) => isMap(it) && (it as YAMLMap).get("name") === name);
}

function upsert(doc: Document, key: string, entry: Entry): void {
  const seq = seqOf(doc, key);
  const node = doc.createNode(entry);
  const i = indexOfName(seq, entry.name);
  if (i >= 0) seq.items[i] = node;
  else seq.items.push(node);
}

function removeNamed(doc: Document, key: string, name: string): void {
  const seq = doc.get(key, true);
  if (!isSeq(seq)) return;
  const i = indexOfName(seq, name);
  if (i >= 0) seq.items.splice(i, 1);
}

function write(file: string, doc: Document): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.kubeloop-${process.pid}.tmp`;
  writeFileSync(tmp, doc.toString(), { mode: 0o600 });
  renameSync(tmp, file);
}

export interface MergeOptions {
  /** The generated kubeconfig (one cluster, user and context). */
  from: string;
  /** The user's kubeconfig to update. */
  into: string;
  switchContext: boolean;
}

/** Merges the single context of `from` into `into`. Returns the context's name. */
export function mergeKubeconfig(opts: MergeOptions): string {
  const src = parseDocument(readFileSync(opts.from, "utf8")).toJS() as {
    clusters: Entry[];
    users: Entry[];
    contexts: Entry[];
    "current-context": string;
  };
  const ctx = src.contexts.find((c) => c.name === src["current-context"]) ?? src.contexts[0];
  const ctxBody = ctx.context as { cluster: string; user: string };
  const cluster = src.clusters.find((c) => c.name === ctxBody.cluster);
  const user = src.users.find((u) => u.name === ctxBody.user);
  if (!cluster || !user) throw new Error(`${opts.from}: context ${ctx.name} names a cluster or user it does not define`);
  const doc = load(opts.into);
  upsert(doc, "clusters", cluster);
  upsert(doc, "users", user);
  upsert(doc, "contexts", ctx);
  if (opts.switchContext) {
    const current = doc.get("current-context");
    if (typeof current === "string" && current !== "" && current !== ctx.name) {
      doc.setIn(["preferences", "extensions"], doc.createNode([{ name: PREVIOUS_CONTEXT_EXTENSION, extension: { context: current } }]));
    }
    doc.set("current-context", ctx.name);
  }
  write(opts.into, doc);
  return ctx.name;
}

/** Removes cluster, user and context `name` from `file`; restores the previous current-context if `name` was current. */
export function removeFromKubeconfig(file: string, name: string): void {
  if (!existsSync(file)) return;
  const doc = load(file);
  removeNamed(doc, "clusters", name);
  removeNamed(doc, "users", name);
  removeNamed(doc, "contexts", name);
  const exts = doc.getIn(["preferences", "extensions"], true);
  let previous: string | undefined;
  if (isSeq(exts)) {
    const i = exts.items.findIndex((it) => isMap(it) && (it as YAMLMap).get("name") === PREVIOUS_CONTEXT_EXTENSION);
    if (i >= 0) {
      const ext = (exts.items[i] as YAMLMap).toJSON() as { extension?: { context?: string } };
      previous = ext.extension?.context;
      exts.items.splice(i, 1);
      if (exts.items.length === 0) (doc.get("preferences", true) as YAMLMap).delete("extensions");
    }
  }
  if (doc.get("current-context") === name) doc.set("current-context", previous ?? "");
  write(file, doc);
}
