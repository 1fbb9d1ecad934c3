/**
 * PatchError: the one error type every patch function in this folder throws.
 *
 * `code` is the HTTP status kube-apiserver answers with for the same failure, so the server can
 * turn a PatchError into a Status without re-classifying it:
 * - 400 for malformed patches (upstream's interpretStrategicMergePatchError BadRequest set:
 *   invalid JSON document, bad primitive-list / retainKeys / setElementOrder format, a JSON Patch
 *   body that is not an array);
 * - 413 for a JSON Patch with more operations than allowed;
 * - 422 for well-formed patches that cannot be applied (JSON Patch operation failures including a
 *   failed `test`, lists of lists);
 * - 500 for everything else upstream returns as a plain Go error (missing merge key, unknown
 *   `$patch` value, mismatched list element types, ...), which kube-apiserver reports as an
 *   internal error carrying the same message.
 */

export type PatchErrorSource = "json" | "merge" | "strategic";

export type PatchErrorCode = 400 | 413 | 422 | 500;

export class PatchError extends Error {
  readonly code: PatchErrorCode;
  readonly patchType: PatchErrorSource;
  /** For JSON Patch failures: the index of the failing operation. */
  readonly operationIndex?: number;

  constructor(patchType: PatchErrorSource, code: PatchErrorCode, message: string, options?: { operationIndex?: number; cause?: unknown }) {
    super(message, options?.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = "PatchError";
    this.patchType = patchType;
    this.code = code;
    if (options?.operationIndex !== undefined) this.operationIndex = options.operationIndex;
  }
}

export function isPatchError(err: unknown): err is PatchError {
  return err instanceof PatchError;
}
