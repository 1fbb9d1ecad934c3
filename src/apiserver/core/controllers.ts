/**
 * The in-server system loops that kube-apiserver users take for granted, fed by the store's
 * watch: the namespace lifecycle controller (empties a Terminating namespace, then finalizes
 * it so it disappears) and the ServiceAccount controller (a `default` ServiceAccount in every
 * active namespace, recreated if deleted).
 *
 * State machine of a namespace here: Active → (DELETE) Terminating with spec.finalizers
 * [kubernetes] → contents deleted (objects with finalizers wait for them) → finalize removes
 * "kubernetes" → removed once metadata.finalizers is empty too.
 */
import type { KubeObject } from "../../apimachinery/types.js";
import { StatusError } from "../../apimachinery/errors.js";
import { defaultWriteContext } from "../rest/context.js";
import { resourcePrefix } from "../rest/keys.js";
import type { ResourceStore } from "../rest/store.js";
import type { Storage, StorageWatch } from "../storage/interface.js";
import { finalizeNamespace, isTerminating, specFinalizers } from "./namespaces.js";

export interface SystemControllersDeps {
  storage: Storage;
  stores: () => readonly ResourceStore[];
  namespaces: ResourceStore;
  serviceAccounts?: ResourceStore;
  log?: (msg: string, err?: unknown) => void;
}

const systemContext = () => defaultWriteContext({ fieldManager: "kube-apiserver" });

export class SystemControllers {
  private watch: StorageWatch | undefined;
  private loop: Promise<void> | undefined;
  private readonly dirty = new Set<string>();
  private readonly terminating = new Set<string>();
  private scheduled = false;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly deps: SystemControllersDeps) {}

  /** Starts watching from the current revision and reconciles every existing namespace once. */
  async start(): Promise<void> {
    const storage = this.deps.storage;
    const from = storage.currentRevision();
    this.watch = storage.watch("/registry/", { fromRevision: from, maxLag: 1_000_000 });
    const nsList = await storage.list(resourcePrefix("", "namespaces"));
    for (const item of nsList.items) this.markNamespace(item.object);
    this.loop = this.consume().catch((err: unknown) => this.deps.log?.("namespace lifecycle watch loop failed", err));
    this.schedule();
  }

  private markNamespace(ns: KubeObject): void {
    const name = ns.metadata?.name ?? "";
    if (isTerminating(ns)) this.terminating.add(name);
    this.dirty.add(name);
  }

  private async consume(): Promise<void> {
    const nsPrefix = resourcePrefix("", "namespaces");
    const saPrefix = resourcePrefix("", "serviceaccounts");
    for await (const ev of this.watch!) {
      if (ev.key.startsWith(nsPrefix)) {
        if (ev.type === "DELETED") {
          this.terminating.delete(ev.object.metadata?.name ?? "");
          continue;
        }
        this.markNamespace(ev.object);
      } else if (ev.type === "DELETED") {
        const ns = ev.object.metadata?.namespace;
        if (ns && (this.terminating.has(ns) || (ev.key.startsWith(saPrefix) && ev.object.metadata?.name === "default"))) this.dirty.add(ns);
        else continue;
      } else {
        continue;
      }
      this.schedule();
    }
  }

  private schedule(): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      // The chain never rejects: a failed pass must not stop the next ones.
      this.running = this.running.then(() => this.reconcileAll()).catch((err: unknown) => this.deps.log?.("namespace lifecycle pass failed", err));
    });
  }

  /** Resolves when pending reconciliation has run (for tests). */
  async idle(): Promise<void> {
    for (let i = 0; i < 50; i++) {
      await new Promise((r) => setImmediate(r));
      await this.running;
      if (!this.scheduled && this.dirty.size === 0) return;
    }
  }

  private async reconcileAll(): Promise<void> {
    const names = [...this.dirty];
    this.dirty.clear();
    for (const name of names) {
      if (this.stopped) return;
      try {
        await this.reconcile(name);
      } catch (err) {
        this.deps.log?.(`reconciling namespace ${name} failed`, err);
      }
    }
  }

  private async reconcile(name: string): Promise<void> {
    let ns: KubeObject;
    try {
      ns = await this.deps.namespaces.get(undefined, name);
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return;
      throw err;
    }
    if (isTerminating(ns)) {
      await this.drain(ns);
      return;
    }
    await this.ensureDefaultServiceAccount(name);
  }

  private async ensureDefaultServiceAccount(ns: string): Promise<void> {
    const sa = this.deps.serviceAccounts;
    if (!sa) return;
    try {
      await sa.get(ns, "default");
      return;
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
    try {
      await sa.create(ns, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "default", namespace: ns } }, systemContext());
    } catch (err) {
      // Raced with another writer, or the namespace started terminating: nothing to do.
      if (!(err instanceof StatusError && (err.code === 409 || err.code === 403 || err.code === 404))) throw err;
    }
  }

  /** Deletes everything in a terminating namespace; finalizes it once nothing is left. */
  private async drain(ns: KubeObject): Promise<void> {
    const name = ns.metadata?.name ?? "";
    let remaining = 0;
    for (const store of this.deps.stores()) {
      // Resources that cannot be listed and deleted hold nothing (bindings).
      if (!store.namespaced || !store.strategy.verbs.includes("delete")) continue;
      const list = await store.list(name, { labelSelector: "", fieldSelector: "", resourceVersion: "", limit: 0, continue: "", watch: false, allowWatchBookmarks: false });
      for (const item of list.items) {
        remaining++;
        if (item.metadata?.deletionTimestamp) continue;
        try {
          await store.delete(name, item.metadata?.name ?? "", { dryRun: false, propagationPolicy: "Background" }, systemContext());
        } catch (err) {
          if (!(err instanceof StatusError && err.code === 404)) throw err;
        }
      }
    }
    if (remaining > 0) {
      // Deletions emit events that mark the namespace dirty again; check once more now for
      // objects that were removed at once.
      const again = await this.countContents(name);
      if (again > 0) return;
    }
    if (!specFinalizers(ns).includes("kubernetes")) return;
    const finalizers = specFinalizers(ns).filter((f) => f !== "kubernetes");
    await this.deps.namespaces.update(
      undefined,
      name,
      (cur) => ({ ...(cur ?? ns), spec: { ...((cur ?? ns).spec as object), finalizers } }),
      systemContext(),
      { prepare: finalizeNamespace },
    );
  }

  private async countContents(name: string): Promise<number> {
    let n = 0;
    for (const store of this.deps.stores()) {
      if (!store.namespaced) continue;
      const list = await store.storage.list(store.prefix(name), { limit: 1 });
      n += list.items.length;
    }
    return n;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.watch?.close();
    await this.loop;
    await this.running;
  }
}
