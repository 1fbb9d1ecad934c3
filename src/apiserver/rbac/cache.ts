/**
 * RbacCache: the RBAC objects held in memory for the authorizer, kept in step with storage by
 * a watch on every key (so that it knows how far it has read), like the informer-fed listers
 * kube-apiserver's RBAC authorizer reads.
 *
 * Invariant: after `synced()` resolves, every write that completed before the call is
 * reflected (read-your-writes for authorization decisions right after an RBAC change).
 * Objects are frozen storage objects and are never mutated.
 */
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from "../../apimachinery/api/rbac/v1.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { resourcePrefix } from "../rest/keys.js";
import type { Storage, StorageWatch } from "../storage/interface.js";
import type { RbacObjects } from "./resolver.js";
import { rbacGroup } from "./strategies.js";

type Kind = "roles" | "clusterroles" | "rolebindings" | "clusterrolebindings";
const kinds: Kind[] = ["roles", "clusterroles", "rolebindings", "clusterrolebindings"];
const prefixOf = (k: Kind) => resourcePrefix(rbacGroup, k);
const groupPrefix = `/registry/${rbacGroup}/`;

export class RbacCache implements RbacObjects {
  private readonly objects = new Map<Kind, Map<string, KubeObject>>(kinds.map((k) => [k, new Map()]));
  private applied = 0;
  private watch: StorageWatch | undefined;
  private loop: Promise<void> | undefined;
  private waiters: { rev: number; resolve: () => void }[] = [];
  private stopped = false;
  private readonly listeners: ((kind: Kind, obj: KubeObject) => void)[] = [];

  constructor(private readonly storage: Storage) {}

  /** Called after each applied change of an RBAC object (e.g. the aggregation controller). */
  onChange(fn: (kind: Kind, obj: KubeObject) => void): void {
    this.listeners.push(fn);
  }

  async start(): Promise<void> {
    await this.relist();
    this.loop = this.consume();
  }

  private async relist(): Promise<void> {
    const rev = this.storage.currentRevision();
    for (const k of kinds) {
      const m = new Map<string, KubeObject>();
      const list = await this.storage.list(prefixOf(k), { revision: rev });
      for (const item of list.items) m.set(item.key, item.object);
      this.objects.set(k, m);
    }
    this.applied = rev;
    this.watch = this.storage.watch("/registry/", { fromRevision: rev, maxLag: 1_000_000 });
    this.release();
  }

  private async consume(): Promise<void> {
    while (!this.stopped) {
      const w = this.watch!;
      for await (const ev of w) {
        if (ev.key.startsWith(groupPrefix)) {
          const kind = kinds.find((k) => ev.key.startsWith(prefixOf(k)));
          if (kind) {
            const m = this.objects.get(kind)!;
            if (ev.type === "DELETED") m.delete(ev.key);
            else m.set(ev.key, ev.object);
            for (const l of this.listeners) l(kind, ev.object);
          }
        }
        this.applied = ev.rev;
        this.release();
      }
      if (this.stopped || w.endReason === "store-stopped") break;
      // The watch fell behind or was compacted: read everything again.
      await this.relist();
      for (const k of ["clusterroles"] as const) for (const o of this.objects.get(k)!.values()) for (const l of this.listeners) l(k, o);
    }
    this.release(true);
  }

  private release(all = false): void {
    if (this.waiters.length === 0) return;
    const keep: typeof this.waiters = [];
    for (const w of this.waiters) {
      if (all || w.rev <= this.applied) w.resolve();
      else keep.push(w);
    }
    this.waiters = keep;
  }

  /** Whether the cache already reflects every completed write (then `synced()` need not be awaited). */
  current(): boolean {
    return this.applied >= this.storage.currentRevision() || this.stopped;
  }

  /** Resolves once the cache reflects every write completed before this call. */
  synced(): Promise<void> {
    const target = this.storage.currentRevision();
    if (this.applied >= target || this.stopped) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ rev: target, resolve }));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.watch?.close();
    await this.loop;
  }

  private values<T>(kind: Kind): T[] {
    return [...this.objects.get(kind)!.values()] as unknown as T[];
  }

  clusterRoleBindings(): readonly ClusterRoleBinding[] {
    return this.values<ClusterRoleBinding>("clusterrolebindings");
  }

  roleBindings(namespace: string): readonly RoleBinding[] {
    const prefix = `${prefixOf("rolebindings")}${namespace}/`;
    const out: RoleBinding[] = [];
    for (const [k, v] of this.objects.get("rolebindings")!) if (k.startsWith(prefix)) out.push(v as unknown as RoleBinding);
    return out;
  }

  role(namespace: string, name: string): Role | undefined {
    return this.objects.get("roles")!.get(`${prefixOf("roles")}${namespace}/${name}`) as unknown as Role | undefined;
  }

  clusterRole(name: string): ClusterRole | undefined {
    return this.objects.get("clusterroles")!.get(`${prefixOf("clusterroles")}${name}`) as unknown as ClusterRole | undefined;
  }

  allClusterRoles(): readonly ClusterRole[] {
    return this.values<ClusterRole>("clusterroles");
  }
}
