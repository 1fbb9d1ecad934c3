/**
 * Resource quantities as admission adds, compares and prints them (resource.Quantity's
 * arithmetic and canonical String()): exact nano-unit values (apimachinery/quantity.ts) that
 * remember whether they were written in binary (Ki, Mi, ...) or decimal SI form.
 */
import { formatQuantity as canonicalForm, quantityNanos } from "../../apimachinery/quantity.js";

export interface Quantity {
  /** Nano-units. */
  readonly n: bigint;
  readonly binary: boolean;
}

const NANO = 1_000_000_000n;

export function quantity(s: string | number | undefined): Quantity | undefined {
  if (s === undefined) return undefined;
  const text = String(s);
  const n = quantityNanos(text);
  if (n === undefined) return undefined;
  return { n, binary: /[KMGTPE]i$/.test(text) };
}

export const zero: Quantity = { n: 0n, binary: false };

/** a + b, in a's format (Quantity.Add keeps the receiver's format, a zero receiver takes b's). */
export function add(a: Quantity, b: Quantity): Quantity {
  return { n: a.n + b.n, binary: a.n === 0n ? b.binary : a.binary };
}

export function sub(a: Quantity, b: Quantity): Quantity {
  return { n: a.n - b.n, binary: a.binary };
}

export function cmp(a: Quantity, b: Quantity): number {
  return a.n < b.n ? -1 : a.n > b.n ? 1 : 0;
}

/** The canonical text of a quantity (Quantity.String()): apimachinery's, in the remembered format. */
export function formatQuantity(q: Quantity): string {
  return canonicalForm({ unscaled: q.n, scale: -9, format: q.binary ? "BinarySI" : "DecimalSI" });
}

/** Value() as an integer (rounded up), and MilliValue(), as upstream's ratio checks use them. */
export function value(q: Quantity): bigint {
  return q.n >= 0n ? (q.n + NANO - 1n) / NANO : q.n / NANO;
}

export function milliValue(q: Quantity): bigint {
  const m = 1_000_000n;
  return q.n >= 0n ? (q.n + m - 1n) / m : q.n / m;
}

/** A resource list (name → quantity text) as quantities; unparsable entries are skipped. */
export type ResourceList = Map<string, Quantity>;

export function resourceList(obj: Record<string, unknown> | undefined): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, v] of Object.entries(obj ?? {})) {
    const q = quantity(v as string);
    if (q) out.set(k, q);
  }
  return out;
}

/** "k=v,k2=v2", keys sorted (the quota plugin's prettyPrint). */
export function prettyPrint(list: ResourceList): string {
  return [...list.keys()]
    .sort()
    .map((k) => `${k}=${formatQuantity(list.get(k)!)}`)
    .join(",");
}
