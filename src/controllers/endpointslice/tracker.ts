/**
 * What this controller last wrote, per Service (upstream endpointSliceTracker): the generation of
 * every slice it created or updated, and the slices it deleted. A sync whose cache is behind those
 * writes would plan against old slices and duplicate endpoints, so it fails with
 * StaleInformerCacheError instead and is retried (rate-limited) once the informer caught up.
 */
import type { EndpointSlice } from "../../apimachinery/api/discovery/v1.js";

const DELETED = -1;

export class StaleInformerCacheError extends Error {
  constructor(service: string) {
    super(`EndpointSlice informer cache is out of date for service ${service}`);
    this.name = "StaleInformerCacheError";
  }
}

export class EndpointSliceTracker {
  /** service key → slice name → generation written, or DELETED. */
  private readonly expected = new Map<string, Map<string, number>>();

  private forService(key: string): Map<string, number> {
    let m = this.expected.get(key);
    if (!m) this.expected.set(key, (m = new Map()));
    return m;
  }

  /** Records a slice as created or updated by this controller. */
  update(key: string, slice: EndpointSlice): void {
    const name = slice.metadata?.name;
    if (name) this.forService(key).set(name, slice.metadata?.generation ?? 0);
  }

  /** Records a slice as deleted by this controller. */
  expectDeletion(key: string, name: string): void {
    this.forService(key).set(name, DELETED);
  }

  /** Whether the cached slices are behind what was written; forgets the expectations they meet. */
  stale(key: string, cached: readonly EndpointSlice[]): boolean {
    const m = this.expected.get(key);
    if (!m) return false;
    const byName = new Map(cached.map((s) => [s.metadata?.name ?? "", s]));
    let stale = false;
    for (const [name, gen] of m) {
      const s = byName.get(name);
      const met = gen === DELETED ? !s : !!s && (s.metadata?.generation ?? 0) >= gen;
      if (met) m.delete(name);
      else stale = true;
    }
    if (m.size === 0) this.expected.delete(key);
    return stale;
  }

  /** Forgets a service (it was deleted). */
  deleteService(key: string): void {
    this.expected.delete(key);
  }
}
