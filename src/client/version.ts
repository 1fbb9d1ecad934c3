/**
 * The package version and the default User-Agent, read from package.json at run time (the file
 * sits two directories above this module both in src/ and in dist/).
 */
import { createRequire } from "node:module";

function readVersion(): string {
  try {
    const require = createRequire(import.meta.url);
    const pkg = require("../../package.json") as { version?: unknown };
    return typeof pkg.version === "string" ? pkg.version : "0.0.0";
  } catch {
    return "0.0.0";
  }
}

export const kubeloopVersion: string = readVersion();

/** `kubeloop/<version> (<os>/<arch>)`, in the shape of client-go's DefaultKubernetesUserAgent. */
export const defaultUserAgent = `kubeloop/${kubeloopVersion} (${process.platform}/${process.arch})`;
