/**
 * The deadline of a request that is not long-running, as kube-apiserver's WithRequestDeadline
 * and WithTimeoutForNonLongRunningRequests filters: the server's request timeout (60 s,
 * --request-timeout), shortened by a `timeout` query parameter (a Go duration such as "30s");
 * a timeout of zero or above the server's means the server's. A malformed `timeout` is a 400
 * "invalid timeout specified in the request URL - <Go's parse error>". A request still running
 * at its deadline is answered 504 "Timeout: request did not complete within requested timeout
 * - context deadline exceeded".
 *
 * Long-running requests (watches) have no such deadline: they end after `timeoutSeconds`
 * (rest/watch.ts).
 */
import { StatusError } from "../../apimachinery/errors.js";

/** kube-apiserver's --request-timeout default. */
export const defaultRequestTimeoutMs = 60_000;

const unitMs: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  "µs": 1e-3, // U+00B5
  "μs": 1e-3, // U+03BC
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Go's time.ParseDuration, in milliseconds: `[-+]?(\d*\.?\d+ unit)+` or "0". Throws an Error with
 * Go's message (`time: invalid duration "x"`, `time: missing unit in duration "1"`,
 * `time: unknown unit "x" in duration "1x"`).
 */
export function parseGoDuration(s: string): number {
  const quoted = JSON.stringify(s);
  let rest = s;
  let sign = 1;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    if (rest[0] === "-") sign = -1;
    rest = rest.slice(1);
  }
  if (rest === "0") return 0;
  if (rest === "") throw new Error(`time: invalid duration ${quoted}`);
  let total = 0;
  while (rest !== "") {
    const num = /^(\d*)(\.(\d*))?/.exec(rest)!;
    if (num[1] === "" && (num[3] ?? "") === "") throw new Error(`time: invalid duration ${quoted}`);
    rest = rest.slice(num[0].length);
    const unit = /^[^\d.]*/.exec(rest)![0];
    if (unit === "") throw new Error(`time: missing unit in duration ${quoted}`);
    const ms = unitMs[unit];
    if (ms === undefined) throw new Error(`time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}`);
    rest = rest.slice(unit.length);
    total += Number(`${num[1] || "0"}.${num[3] ?? ""}0`) * ms;
  }
  if (total > 2 ** 63 / 1e6) throw new Error(`time: invalid duration ${quoted}`);
  return sign * total;
}

/** The deadline of a non-long-running request in ms from its start; 400 for a malformed `timeout`. */
export function requestTimeoutMs(q: URLSearchParams, serverTimeoutMs = defaultRequestTimeoutMs): number {
  const v = q.get("timeout") ?? "";
  if (v === "") return serverTimeoutMs;
  let ms: number;
  try {
    ms = parseGoDuration(v);
  } catch (err) {
    throw StatusError.badRequest(`invalid timeout specified in the request URL - ${(err as Error).message}`);
  }
  return ms > 0 && ms < serverTimeoutMs ? ms : serverTimeoutMs;
}

/** The answer to a request still running at its deadline. */
export function deadlineExceeded(): StatusError {
  return StatusError.timeout("request did not complete within requested timeout - context deadline exceeded", 0);
}
