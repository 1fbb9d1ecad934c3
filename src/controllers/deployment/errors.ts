/** Typed errors of the Deployment controller. */
import { statusOf } from "../../apimachinery/errors.js";

/**
 * A Deployment whose rolling update parameters cannot be resolved — a string that is not a
 * percentage, a percentage that overflows int32 — which API validation should have refused.
 * The sync stops before any write; the error is retried like any other (the spec may be fixed).
 */
export class InvalidStrategyError extends Error {
  override readonly name = "InvalidStrategyError";
  constructor(
    /** "namespace/name" of the Deployment. */
    readonly deployment: string,
    /** The field at fault, e.g. "spec.strategy.rollingUpdate.maxSurge". */
    readonly field: string,
    /** Why it cannot be resolved. */
    readonly detail: string,
  ) {
    super(`deployment ${deployment}: invalid rolling update strategy: ${field}: ${detail}`);
  }
}

/** A Deployment whose spec.selector cannot be turned into a label selector. */
export class InvalidSelectorError extends Error {
  override readonly name = "InvalidSelectorError";
  constructor(
    readonly deployment: string,
    readonly detail: string,
  ) {
    super(`deployment ${deployment} has invalid label selector: ${detail}`);
  }
}

/** Whether an API error carries the NamespaceTerminating cause (creates in a namespace being deleted). */
export function hasNamespaceTerminatingCause(err: unknown): boolean {
  return (statusOf(err)?.details?.causes ?? []).some((c) => c.reason === "NamespaceTerminating");
}
