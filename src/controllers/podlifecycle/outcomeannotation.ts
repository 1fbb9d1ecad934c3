/**
 * The grammar the simulation's outcome annotations share (probes.ts, hooks.ts): `pass`, `fail`,
 * `pass-after=<seconds>` and `fail-after=<seconds>` (an optional trailing `s`). What "after"
 * means is the caller's: a probe switches its answer then, a hook runs that long.
 */
export interface OutcomeAnnotation {
  /** The outcome named (for `-after` forms, the one reached after `afterMs`). */
  outcome: "pass" | "fail";
  /** 0 for plain `pass` / `fail`. */
  afterMs: number;
  /** Whether the value had an `-after=` part. */
  timed: boolean;
}

/** The parsed value, or undefined when it is not in the grammar. */
export function parseOutcomeAnnotation(value: string): OutcomeAnnotation | undefined {
  const v = value.trim();
  if (v === "pass" || v === "fail") return { outcome: v, afterMs: 0, timed: false };
  const m = /^(fail|pass)-after=([0-9]+(?:\.[0-9]+)?)s?$/.exec(v);
  if (!m) return undefined;
  return { outcome: m[1] as "pass" | "fail", afterMs: Math.round(Number(m[2]) * 1000), timed: true };
}
