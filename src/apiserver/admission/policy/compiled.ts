/**
 * Compiled admission policies: every CEL expression of a policy compiled once per generation
 * (matchConditions, variables, validations with messageExpressions, auditAnnotations,
 * mutations), kept by uid and replaced when the generation changes; and the status that
 * reports what did not compile (status.typeChecking.expressionWarnings with the field path,
 * status.observedGeneration), written by a loop that follows the stored policies.
 */
import type { KubeObject } from "../../../apimachinery/types.js";
import { deepCopy } from "../../../apimachinery/deepcopy.js";
import { resourcePrefix } from "../../rest/keys.js";
import type { StorageWatch } from "../../storage/interface.js";
import type { AdmissionPluginContext } from "../chain.js";
import { compile, type Compiled } from "./cel.js";
import { admissionGroup } from "./params.js";

export interface ExpressionWarning {
  fieldRef: string;
  warning: string;
}

/** Compiles `expression`, noting a warning for `fieldRef` when it does not compile. */
export function compileAt(expression: string, fieldRef: string, warnings: ExpressionWarning[]): Compiled {
  const c = compile(expression);
  if (c.error) warnings.push({ fieldRef, warning: c.error });
  return c;
}

/** A cache of compiled policies by uid, valid for one generation each. */
export class CompiledPolicies<P extends { generation: number; warnings: ExpressionWarning[] }> {
  private readonly byUID = new Map<string, P>();

  constructor(private readonly build: (policy: KubeObject) => P) {}

  get(policy: KubeObject): P {
    const uid = policy.metadata?.uid ?? policy.metadata?.name ?? "";
    const generation = policy.metadata?.generation ?? 0;
    const hit = this.byUID.get(uid);
    if (hit && hit.generation === generation) return hit;
    const built = this.build(policy);
    this.byUID.set(uid, built);
    return built;
  }

  /** Forgets policies that are gone (called with the uids still stored). */
  retain(uids: ReadonlySet<string>): void {
    for (const k of this.byUID.keys()) if (!uids.has(k)) this.byUID.delete(k);
  }
}

/**
 * Follows the stored policies of `resource` and writes status.observedGeneration and
 * status.typeChecking for each new generation (upstream's type-checking controller).
 */
export class PolicyStatusWriter {
  private watch: StorageWatch | undefined;
  private loop: Promise<void> | undefined;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: AdmissionPluginContext,
    private readonly resource: string,
    private readonly warningsOf: (policy: KubeObject) => ExpressionWarning[],
  ) {}

  async start(): Promise<void> {
    const prefix = resourcePrefix(admissionGroup, this.resource);
    const storage = this.ctx.storage;
    this.watch = storage.watch(prefix, { fromRevision: storage.currentRevision(), maxLag: 1_000_000 });
    for (const item of (await storage.list(prefix)).items) this.enqueue(item.key);
    this.loop = (async () => {
      for await (const ev of this.watch!) {
        if (ev.type !== "DELETED" && ev.key.startsWith(prefix)) this.enqueue(ev.key);
      }
    })();
  }

  private enqueue(key: string): void {
    this.chain = this.chain.then(() => this.reconcile(key)).catch((err) => this.ctx.log?.(`admission policy status of ${key}`, err));
  }

  private async reconcile(key: string): Promise<void> {
    const cur = await this.ctx.storage.get(key);
    if (!cur) return;
    const policy = cur.object;
    const generation = policy.metadata?.generation ?? 0;
    const status = (policy as { status?: { observedGeneration?: number } }).status;
    if (status?.observedGeneration === generation) return;
    const warnings = this.warningsOf(policy);
    const next = deepCopy(policy) as KubeObject & { status?: Record<string, unknown> };
    next.status = { ...(next.status ?? {}), observedGeneration: generation, typeChecking: warnings.length ? { expressionWarnings: warnings } : {} };
    try {
      await this.ctx.storage.update(key, next, cur.rev);
    } catch {
      // Changed meanwhile: its event queues another pass.
    }
  }

  /** Resolves when every queued status write is done (tests). */
  idle(): Promise<void> {
    return this.chain;
  }

  async stop(): Promise<void> {
    this.watch?.close();
    await this.loop;
    await this.chain;
  }
}
