/**
 * What a reconcile function receives and returns (controller-runtime's pkg/reconcile).
 *
 * A reconcile function is `(request, ctx) => Promise<ReconcileResult | void>`:
 * - the request names what to reconcile — an `ObjectName` (namespace, name) for controllers built
 *   with `for(..)`, or any item type a controller declares (the garbage collector's graph nodes);
 * - `ctx` holds the reconcile's `signal` (aborted at shutdown or lost leadership), a `client`
 *   whose every call carries that signal, the event `recorder`, a `log` with the controller,
 *   object and reconcileID bound, the `clock`, and the informer `cache`;
 * - it resolves to a result (`requeueAfterMs`, `requeue`) or nothing (done), or throws: any error
 *   is retried with the rate limiter's backoff, except a `TerminalError`, which is logged and
 *   counted but not retried (until an event enqueues the request again).
 */
import type { Clock } from "../apimachinery/clock.js";
import type { ObjectName } from "../apimachinery/objectname.js";
import type { ResourceClientFactory } from "../client/interfaces.js";
import type { EventRecorder } from "../events/broadcaster.js";
import type { Cache } from "./cache.js";
import type { Logger } from "./logging.js";

/** The default request: the namespace and name of an object (reconcile.Request). */
export type Request = ObjectName;

export interface ReconcileResult {
  /** Reconcile again after this many milliseconds (takes precedence over `requeue`). */
  requeueAfterMs?: number;
  /** Reconcile again after the rate limiter's backoff. */
  requeue?: boolean;
}

export interface ReconcileContext {
  /** Aborts when the controller stops (shutdown, lost leadership): pass it to anything long. */
  readonly signal: AbortSignal;
  /** The manager's client; every call made through it carries `signal`. */
  readonly client: ResourceClientFactory;
  readonly recorder: EventRecorder;
  /** Bound to controller, object and reconcileID. */
  readonly log: Logger;
  readonly clock: Clock;
  /** Reads the informer caches of the resources watched in this manager. */
  readonly cache: Cache;
  /** Unique per reconcile, as controller-runtime's. */
  readonly reconcileID: string;
}

export type Reconciler<R = Request> = (request: R, ctx: ReconcileContext) => Promise<ReconcileResult | void>;

/**
 * An error retrying cannot fix (reconcile.TerminalError): the controller logs it, counts it in
 * controller_runtime_terminal_reconcile_errors_total and does not requeue the request.
 */
export class TerminalError extends Error {
  constructor(cause: unknown) {
    super(`terminal error: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "TerminalError";
  }
}

/**
 * Whether `err`, or an error in its `cause` chain, is a TerminalError (errors.Is): this class, or
 * any Error named "TerminalError" (a copy of the class from another bundle of kubeloop, or a
 * user's own).
 */
export function isTerminalError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 32; depth++) {
    if (e instanceof TerminalError || (e instanceof Error && e.name === "TerminalError")) return true;
    e = e instanceof Error ? e.cause : undefined;
  }
  return false;
}

/**
 * Whether a thrown value is the TypeScript form of a Go panic: not an Error at all, or one of the
 * errors the JavaScript engine throws for programming mistakes (TypeError — reading a property of
 * undefined —, ReferenceError, RangeError, SyntaxError, EvalError, URIError).
 */
export function isPanic(err: unknown): boolean {
  if (!(err instanceof Error)) return true;
  return (
    err instanceof TypeError ||
    err instanceof ReferenceError ||
    err instanceof RangeError ||
    err instanceof SyntaxError ||
    err instanceof EvalError ||
    err instanceof URIError
  );
}
