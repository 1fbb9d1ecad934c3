/**
 * Files that hold secrets — the database and its WAL (every Secret is in them), private keys,
 * kubeconfigs with client credentials — are readable by their owner only (0600), whatever the
 * umask and whatever the mode of the directory they are in or of a file already there. A data
 * directory others can enter or read is reported (etcd refuses such a directory; kubeloop
 * warns, since its files are private anyway).
 */
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

export const privateFileMode = 0o600;
export const privateDirMode = 0o700;

/** Creates `path` (empty) if missing and makes it 0600. */
export function ensurePrivateFile(path: string): void {
  closeSync(openSync(path, "a", privateFileMode));
  chmodSync(path, privateFileMode);
}

/** Makes `path` 0600 if it exists. */
export function restrictIfExists(path: string): void {
  try {
    chmodSync(path, privateFileMode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}

/** Writes `data` to `path` (creating its directory 0700 if needed) as a 0600 file. */
export async function writePrivateFile(path: string, data: string | Buffer): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: privateDirMode });
  await writeFile(path, data, { mode: privateFileMode });
  // writeFile's mode applies only to a file it creates.
  await chmod(path, privateFileMode);
}

/**
 * Creates the data directory (0700) if missing; returns a warning when the directory is
 * accessible by group or others, undefined otherwise.
 */
export function preparePrivateDir(dir: string): string | undefined {
  mkdirSync(dir, { recursive: true, mode: privateDirMode });
  const mode = statSync(dir).mode & 0o777;
  if ((mode & 0o077) === 0) return undefined;
  return `data directory ${dir} is accessible by other users (mode ${mode.toString(8).padStart(4, "0")}); it holds every Secret: chmod 700 it (its files are kept 0600)`;
}
