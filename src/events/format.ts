/**
 * A small subset of Go's fmt verbs for eventf messages written in upstream's style:
 * %s and %v (the value), %d (an integer), %q (a quoted string), %% (a percent sign).
 */
export function goSprintf(format: string, ...args: unknown[]): string {
  let i = 0;
  return format.replace(/%([svdq%])/g, (m, verb: string) => {
    if (verb === "%") return "%";
    if (i >= args.length) return `%!${verb}(MISSING)`;
    const a = args[i++];
    switch (verb) {
      case "d":
        return typeof a === "number" || typeof a === "bigint" ? String(Math.trunc(Number(a))) : `%!d(${String(a)})`;
      case "q":
        return JSON.stringify(String(a));
      default:
        return typeof a === "object" && a !== null && !(a instanceof Error) ? JSON.stringify(a) : String(a);
    }
  });
}
