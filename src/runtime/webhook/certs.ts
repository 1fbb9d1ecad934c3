/**
 * Serving certificates of the webhook server.
 *
 * - From a directory (controller-runtime's CertDir, default `<tmp>/k8s-webhook-server/
 *   serving-certs`, with `tls.crt` and `tls.key` — what cert-manager's Secret holds when mounted
 *   there; `ca.crt` beside them is the CA to put in caBundle). The files are re-read when they
 *   change (certificate rotation), as controller-runtime's certwatcher does.
 * - Generated for local runs: a throw-away CA and a serving certificate for localhost,
 *   127.0.0.1, ::1 and any names asked for (e.g. `<service>.<namespace>.svc`), kept in memory;
 *   the CA is the caBundle that webhook configurations need.
 */
import { readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateCA, issueCertificate } from "../../apimachinery/pki/x509.js";

export interface ServingCertificate {
  certPem: string;
  keyPem: string;
  /** PEM of the CA that signed it, when known (the caBundle for webhook configurations). */
  caPem?: string;
}

export const DEFAULT_CERT_DIR = join(tmpdir(), "k8s-webhook-server", "serving-certs");
export const DEFAULT_CERT_NAME = "tls.crt";
export const DEFAULT_KEY_NAME = "tls.key";

export interface GenerateOptions {
  dnsNames?: readonly string[];
  ipAddresses?: readonly string[];
  /** Validity in days (default 365). */
  days?: number;
}

/** A self-signed CA and a serving certificate signed by it. */
export function generateServingCertificate(opts: GenerateOptions = {}): ServingCertificate {
  const ca = generateCA("kubeloop-webhook-ca", { days: opts.days ?? 365 });
  const dnsNames = [...new Set(["localhost", ...(opts.dnsNames ?? [])])];
  const ipAddresses = [...new Set(["127.0.0.1", "::1", ...(opts.ipAddresses ?? [])])];
  const leaf = issueCertificate(ca, { subject: { commonName: dnsNames[dnsNames.length - 1] }, dnsNames, ipAddresses, usages: ["serverAuth"], validity: { days: opts.days ?? 365 } });
  return { certPem: leaf.certPem, keyPem: leaf.keyPem, caPem: ca.certPem };
}

export interface CertFiles {
  certDir: string;
  certName?: string;
  keyName?: string;
}

function paths(f: CertFiles): { cert: string; key: string; ca: string } {
  return { cert: join(f.certDir, f.certName ?? DEFAULT_CERT_NAME), key: join(f.certDir, f.keyName ?? DEFAULT_KEY_NAME), ca: join(f.certDir, "ca.crt") };
}

/** Reads the certificate and key (and ca.crt when present) from the directory. */
export async function readServingCertificate(f: CertFiles): Promise<ServingCertificate> {
  const p = paths(f);
  const [certPem, keyPem] = await Promise.all([readFile(p.cert, "utf8"), readFile(p.key, "utf8")]);
  let caPem: string | undefined;
  try {
    caPem = await readFile(p.ca, "utf8");
  } catch {
    caPem = undefined;
  }
  return { certPem, keyPem, ...(caPem ? { caPem } : {}) };
}

/** A fingerprint of the files' modification times and sizes (changes when a file is replaced). */
export async function certFilesStamp(f: CertFiles): Promise<string> {
  const p = paths(f);
  const parts: string[] = [];
  for (const file of [p.cert, p.key, p.ca]) {
    try {
      const s = await stat(file);
      parts.push(`${s.mtimeMs}:${s.size}:${s.ino}`);
    } catch {
      parts.push("-");
    }
  }
  return parts.join("|");
}
