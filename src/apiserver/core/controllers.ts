/**
 * The in-server system loop kube-apiserver users take for granted, fed by the store's watch: the
 * ServiceAccount loop (a `default` ServiceAccount in every active namespace, recreated if
 * deleted).
 *
 * Namespace deletion is not done here, as in kube-apiserver: DELETE moves a namespace to
 * Terminating (core/namespaces.ts) and the namespace controller (controllers/namespace, in the
 * controller manager) deletes its contents and removes the `kubernetes` finalizer through
 * namespaces/finalize. Without that controller a deleted namespace stays Terminating.
 */
import type { KubeObject } from "../../apimachinery/types.js";
import { StatusError } from "../../apimachinery/errors.js";
import { defaultWriteContext } from "../rest/context.js";
import { resourcePrefix } from "../rest/keys.js";
import type { ResourceStore } from "../rest/store.js";
import type { Storage, StorageWatch } from "../storage/interface.js";
import { isTerminating } from "./namespaces.js";

export interface SystemControllersDeps {
  storage: Storage;
  namespaces: ResourceStore;
  serviceAccounts?: ResourceStore;
  log?: (msg: string, err?: unknown) => void;
}

const systemContext = () => defaultWriteContext({ fieldManager: "kube-apiserver" });

export class SystemControllers {
  private watch: StorageWatch | undefined;
  private loop: Promise<void> | undefined;
  private readonly dirty = new Set<string>();
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
    if (!isTerminating(ns)) this.dirty.add(ns.metadata?.name ?? "");
  }

  private async consume(): Promise<void> {
    const nsPrefix = resourcePrefix("", "namespaces");
    const saPrefix = resourcePrefix("", "serviceaccounts");
    for await (const ev of this.watch!) {
      if (ev.key.startsWith(nsPrefix)) {
        if (ev.type === "DELETED") continue;
        this.markNamespace(ev.object);
      } else if (ev.type === "DELETED" && ev.key.startsWith(saPrefix) && ev.object.metadata?.name === "default") {
        const ns = ev.object.metadata?.namespace;
        if (!ns) continue;
        this.dirty.add(ns);
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
    if (isTerminating(ns)) return;
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

  async stop(): Promise<void> {
    this.stopped = true;
    this.watch?.close();
    await this.loop;
    await this.running;
  }
}
