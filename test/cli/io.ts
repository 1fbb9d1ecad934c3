/**
 * What the CLI's tests share: an in-memory CliIO that records what the command prints, and
 * temporary directories removed after each test.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import type { CliIO } from "../../src/cli/main.js";

export interface CapturedIO extends CliIO {
  /** Lines written to stdout. */
  lines: string[];
  /** Lines written to stderr. */
  errors: string[];
}

/** A CliIO that records stdout and stderr lines; `stop` resolves to the signal that stops `up` (never, by default). */
export function captureIO(stop?: Promise<string>): CapturedIO {
  const lines: string[] = [];
  const errors: string[] = [];
  return {
    lines,
    errors,
    out: (l) => lines.push(l),
    err: (l) => errors.push(l),
    stopSignal: () => stop ?? new Promise(() => {}),
  };
}

/** A function that makes a temporary directory (name starting with `prefix`), removed after each test of the calling file. */
export function tempDirs(prefix: string): () => Promise<string> {
  const made: string[] = [];
  afterEach(async () => {
    for (const d of made.splice(0)) await rm(d, { recursive: true, force: true });
  });
  return async () => {
    const d = await mkdtemp(join(tmpdir(), prefix));
    made.push(d);
    return d;
  };
}
