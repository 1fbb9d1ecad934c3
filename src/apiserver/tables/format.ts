/** String forms kubectl's printers use: label maps, label selectors, container lists. */
import type { LabelSelector } from "../../apimachinery/api/meta/v1.js";

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** labels.FormatLabels: "k1=v1,k2=v2" in key order, "<none>" when empty. */
export function formatLabels(labels: Record<string, string> | undefined | null): string {
  const keys = Object.keys(labels ?? {}).sort(compare);
  if (keys.length === 0) return "<none>";
  return keys.map((k) => `${k}=${labels![k]}`).join(",");
}

/**
 * The string of the selector a LabelSelector converts to (labels.Selector.String()):
 * requirements sorted by key, `k=v`, `k in (a,b)`, `k notin (a)`, `k`, `!k`; "" for an empty
 * selector. Returns undefined for an invalid selector (an unknown operator).
 */
export function labelSelectorString(selector: LabelSelector | undefined | null): string | undefined {
  if (!selector) return "";
  const reqs: Array<{ key: string; text: string }> = [];
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) reqs.push({ key: k, text: `${k}=${v}` });
  for (const e of selector.matchExpressions ?? []) {
    const values = [...(e.values ?? [])].sort(compare).join(",");
    switch (e.operator) {
      case "In":
        reqs.push({ key: e.key, text: `${e.key} in (${values})` });
        break;
      case "NotIn":
        reqs.push({ key: e.key, text: `${e.key} notin (${values})` });
        break;
      case "Exists":
        reqs.push({ key: e.key, text: e.key });
        break;
      case "DoesNotExist":
        reqs.push({ key: e.key, text: `!${e.key}` });
        break;
      default:
        return undefined;
    }
  }
  // The selector keeps requirements sorted by key (stable for equal keys).
  reqs.sort((a, b) => compare(a.key, b.key));
  return reqs.map((r) => r.text).join(",");
}

/** metav1.FormatLabelSelector: the selector string, "<none>" when empty, "<error>" when invalid. */
export function formatLabelSelector(selector: LabelSelector | undefined | null): string {
  const s = labelSelectorString(selector);
  if (s === undefined) return "<error>";
  return s === "" ? "<none>" : s;
}

/** Container names and images, comma-joined (layoutContainerCells). */
export function layoutContainerCells(containers: ReadonlyArray<{ name?: string; image?: string }> | undefined): [string, string] {
  const list = containers ?? [];
  return [list.map((c) => c.name ?? "").join(","), list.map((c) => c.image ?? "").join(",")];
}

/** net.JoinHostPort: IPv6 hosts in brackets. */
export function joinHostPort(host: string, port: number | string): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}
