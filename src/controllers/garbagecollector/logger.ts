/**
 * The slice of a pino logger the controllers in this folder use (pino's `logger.info(obj, msg)`
 * form), so that a pino logger, the runtime's logger or nothing at all can be passed.
 */
export interface Logger {
  debug(obj: Record<string, unknown>, msg?: string): void;
  info(obj: Record<string, unknown>, msg?: string): void;
  warn(obj: Record<string, unknown>, msg?: string): void;
  error(obj: Record<string, unknown>, msg?: string): void;
}

const noop = (): void => {};

/** A logger that drops everything. */
export const silentLogger: Logger = Object.freeze({ debug: noop, info: noop, warn: noop, error: noop });

/** A printable form of an error for log fields. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
