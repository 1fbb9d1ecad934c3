/**
 * Which HPAs select which pods (upstream horizontal.go's hpaSelectors, a selectors.BiMultimap):
 * an HPA is registered when it is enqueued (with a selector that matches nothing), takes its
 * target's selector at each sync, and is dropped when deleted. A sync refuses to scale when the
 * pods its selector lists are selected by more than one HPA (AmbiguousSelector).
 *
 * State: namespace → HPA name → selector; only the controller's sync and event handlers touch it.
 */
import type { Pod } from "../../apimachinery/api/core/v1.js";
import { nothing, type Selector } from "../../apimachinery/labels.js";

export class HPASelectors {
  private readonly byNamespace = new Map<string, Map<string, Selector>>();

  /** enqueueHPA: registers the HPA with a selector matching nothing, unless it is known. */
  register(namespace: string, name: string): void {
    let m = this.byNamespace.get(namespace);
    if (!m) {
      m = new Map();
      this.byNamespace.set(namespace, m);
    }
    if (!m.has(name)) m.set(name, nothing());
  }

  /** Sets the selector of a registered HPA (an HPA deleted meanwhile stays unregistered). */
  update(namespace: string, name: string, selector: Selector): void {
    const m = this.byNamespace.get(namespace);
    if (m?.has(name)) m.set(name, selector);
  }

  delete(namespace: string, name: string): void {
    const m = this.byNamespace.get(namespace);
    if (!m) return;
    m.delete(name);
    if (m.size === 0) this.byNamespace.delete(namespace);
  }

  /** hpasControllingPodsUnderSelector: the HPAs ("namespace/name", sorted) whose selector matches any of the pods. */
  selecting(namespace: string, pods: readonly Pod[]): string[] {
    const out = new Set<string>();
    for (const [name, sel] of this.byNamespace.get(namespace) ?? []) {
      if (pods.some((p) => sel.matches(p.metadata?.labels))) out.add(`${namespace}/${name}`);
    }
    return [...out].sort();
  }
}
