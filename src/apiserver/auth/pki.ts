/**
 * The cluster's PKI: a CA, the API server's serving certificate, the admin client certificate
 * and the ServiceAccount token signing key. With a directory they are kept in `<dir>/pki/`
 * and reused across restarts (the serving and admin certificates are re-issued when they no
 * longer match: other hosts, another CA, or less than 30 days left); without one they live in
 * memory for the life of the process.
 */
import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { isIP } from "node:net";
import { restrictIfExists, writePrivateFile } from "../privatefiles.js";
import { AdminUser, SystemMasters } from "./user.js";
import { generateCA, generateKey, issueCertificate, loadCertificateAndKey, subjectOf, type CertificateAndKey } from "./x509.js";

export interface ClusterPKI {
  ca: CertificateAndKey;
  serving: CertificateAndKey;
  /** Client certificate of the admin user (CN kubeloop-admin, O system:masters). */
  admin: CertificateAndKey;
  serviceAccountKey: { privateKey: KeyObject; publicKey: KeyObject };
  /** Where the files are, when kept on disk. */
  dir?: string;
}

/** DNS names every serving certificate carries (in-cluster names of the kubernetes Service). */
const clusterDNSNames = ["localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"];
const renewBeforeMs = 30 * 86400_000;

/** The SANs for a server listening on `host`. */
export function servingNames(host: string | undefined, extraIPs: readonly string[] = []): { dnsNames: string[]; ipAddresses: string[] } {
  const dnsNames = [...clusterDNSNames];
  const ipAddresses = ["127.0.0.1", "::1", ...extraIPs];
  const add = (h: string) => {
    if (isIP(h)) {
      if (!ipAddresses.includes(h)) ipAddresses.push(h);
    } else if (h && !dnsNames.includes(h)) dnsNames.push(h);
  };
  if (host && host !== "0.0.0.0" && host !== "::") add(host);
  else add(hostname());
  return { dnsNames, ipAddresses };
}

function covers(cert: CertificateAndKey, ca: CertificateAndKey, names: { dnsNames: string[]; ipAddresses: string[] }): boolean {
  if (!cert.cert.checkIssued(ca.cert) || !cert.cert.verify(ca.cert.publicKey)) return false;
  if (new Date(cert.cert.validTo).getTime() - Date.now() < renewBeforeMs) return false;
  return names.dnsNames.every((d) => cert.cert.checkHost(d, { wildcards: false }) === d) && names.ipAddresses.every((ip) => cert.cert.checkIP(ip) !== undefined);
}

function adminValid(cert: CertificateAndKey, ca: CertificateAndKey): boolean {
  if (!cert.cert.checkIssued(ca.cert) || !cert.cert.verify(ca.cert.publicKey)) return false;
  if (new Date(cert.cert.validTo).getTime() - Date.now() < renewBeforeMs) return false;
  const s = subjectOf(cert.cert);
  return s.commonName === AdminUser.username && s.organizations.includes(SystemMasters);
}

export function issueServing(ca: CertificateAndKey, names: { dnsNames: string[]; ipAddresses: string[] }): CertificateAndKey {
  return issueCertificate(ca, { subject: { commonName: "kube-apiserver" }, ...names, usages: ["serverAuth"] });
}

/** A client certificate for `username` in `groups` (O), signed by the cluster CA. */
export function issueClientCertificate(ca: CertificateAndKey, username: string, groups: readonly string[], days = 365): CertificateAndKey {
  return issueCertificate(ca, { subject: { commonName: username, organizations: groups }, usages: ["clientAuth"], validity: { days } });
}

async function readPair(dir: string, base: string): Promise<CertificateAndKey | undefined> {
  try {
    const [c, k] = await Promise.all([readFile(join(dir, `${base}.crt`), "utf8"), readFile(join(dir, `${base}.key`), "utf8")]);
    return loadCertificateAndKey(c, k);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new Error(`cannot load ${join(dir, base)}.crt/.key: ${(err as Error).message}`);
  }
}

async function writePair(dir: string, base: string, pair: CertificateAndKey): Promise<void> {
  await writePrivateFile(join(dir, `${base}.key`), pair.keyPem);
  await writeFile(join(dir, `${base}.crt`), pair.certPem, { mode: 0o644 });
}

/** Private keys already in the directory are made 0600 too (an older or copied directory). */
function restrictKeys(dir: string): void {
  for (const base of ["ca", "apiserver", "admin", "sa"]) restrictIfExists(join(dir, `${base}.key`));
}

/** Loads the PKI from `<dataDir>/pki` (creating what is missing or stale), or makes one in memory. */
export async function loadOrCreatePKI(dataDir: string | undefined, host: string | undefined, extraIPs: readonly string[] = []): Promise<ClusterPKI> {
  const names = servingNames(host, extraIPs);
  if (dataDir === undefined) {
    const ca = generateCA("kubeloop-ca");
    const key = generateKey();
    return { ca, serving: issueServing(ca, names), admin: issueClientCertificate(ca, AdminUser.username, [SystemMasters]), serviceAccountKey: key };
  }
  const dir = join(dataDir, "pki");
  await mkdir(dir, { recursive: true, mode: 0o700 });
  restrictKeys(dir);
  let ca = await readPair(dir, "ca");
  let caFresh = false;
  if (!ca) {
    ca = generateCA("kubeloop-ca");
    caFresh = true;
    await writePair(dir, "ca", ca);
  }
  let serving = caFresh ? undefined : await readPair(dir, "apiserver");
  if (!serving || !covers(serving, ca, names)) {
    serving = issueServing(ca, names);
    await writePair(dir, "apiserver", serving);
  }
  let admin = caFresh ? undefined : await readPair(dir, "admin");
  if (!admin || !adminValid(admin, ca)) {
    admin = issueClientCertificate(ca, AdminUser.username, [SystemMasters]);
    await writePair(dir, "admin", admin);
  }
  let serviceAccountKey: ClusterPKI["serviceAccountKey"];
  try {
    const privateKey = createPrivateKey(await readFile(join(dir, "sa.key"), "utf8"));
    serviceAccountKey = { privateKey, publicKey: createPublicKey(privateKey) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw new Error(`cannot load ${join(dir, "sa.key")}: ${(err as Error).message}`);
    serviceAccountKey = generateKey();
    await writePrivateFile(join(dir, "sa.key"), serviceAccountKey.privateKey.export({ type: "pkcs8", format: "pem" }).toString());
    await writeFile(join(dir, "sa.pub"), serviceAccountKey.publicKey.export({ type: "spki", format: "pem" }).toString(), { mode: 0o644 });
  }
  return { ca, serving, admin, serviceAccountKey, dir };
}
