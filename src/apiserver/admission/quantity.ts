/**
 * Resource quantities as admission adds, compares and prints them (resource.Quantity's
 * arithmetic and canonical String()): exact nano-unit values (registry/quantity.ts) that
 * remember whether they were written in binary (Ki, Mi, ...) or decimal SI form.
 */
import { parseQuantity } from "../registry/quantity.js";

export interface Quantity {
  /** Nano-units. */
  readonly n: bigint;
  readonly binary: boolean;
}

const NANO = 1_000_000_000n;

export function quantity(s: string | number | undefined): Quantity | undefined {
  if (s === undefined) return undefined;
  const text = String(s);
  const n = parseQuantity(text);
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

const decimalSuffixes: [number, string][] = [
  [18, "E"],
  [15, "P"],
  [12, "T"],
  [9, "G"],
  [6, "M"],
  [3, "k"],
  [0, ""],
  [-3, "m"],
  [-6, "u"],
  [-9, "n"],
];
const binarySuffixes: [bigint, string][] = [
  [1n << 60n, "Ei"],
  [1n << 50n, "Pi"],
  [1n << 40n, "Ti"],
  [1n << 30n, "Gi"],
  [1n << 20n, "Mi"],
  [1n << 10n, "Ki"],
];

/** The canonical text of a quantity (Quantity.String()). */
export function formatQuantity(q: Quantity): string {
  const neg = q.n < 0n;
  const abs = neg ? -q.n : q.n;
  if (abs === 0n) return "0";
  const sign = neg ? "-" : "";
  // Binary form for whole values of at least 1024; smaller or fractional values print decimal.
  if (q.binary && abs % NANO === 0n && abs / NANO >= 1024n) {
    const whole = abs / NANO;
    for (const [base, suffix] of binarySuffixes) if (whole % base === 0n) return `${sign}${whole / base}${suffix}`;
    return `${sign}${whole}`;
  }
  for (const [exp, suffix] of decimalSuffixes) {
    const unit = 10n ** BigInt(exp + 9);
    if (abs % unit === 0n) return `${sign}${abs / unit}${suffix}`;
  }
  return `${sign}${abs}n`;
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
