/**
 * resource.Quantity values as plain numbers in base units ("500m" → 0.5, "1Gi" → 1073741824,
 * "1e3" → 1000), enough for the simulated scheduler's sums and comparisons. Not the exact
 * arbitrary-precision arithmetic of apimachinery's Quantity: float64 is plenty for capacity checks.
 */

export class InvalidQuantityError extends Error {
  constructor(readonly value: string) {
    super(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': ${JSON.stringify(value)}`);
    this.name = "InvalidQuantityError";
  }
}

const binarySuffixes: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const decimalSuffixes: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, "": 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

/** The value of a quantity in base units; throws InvalidQuantityError when malformed. */
export function parseQuantity(q: string | number): number {
  if (typeof q === "number") return q;
  const m = /^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(.*)$/.exec(q.trim());
  if (!m) throw new InvalidQuantityError(q);
  const n = Number(m[1]);
  const suffix = m[2];
  if (suffix in binarySuffixes) return n * binarySuffixes[suffix];
  if (suffix in decimalSuffixes) return n * decimalSuffixes[suffix];
  const exp = /^[eE]([+-]?[0-9]+)$/.exec(suffix);
  if (exp) return n * 10 ** Number(exp[1]);
  throw new InvalidQuantityError(q);
}
