/**
 * The kubernetes.io/kube-apiserver-client signer of kube-controller-manager's csrsigning
 * controller, run in the API server with the cluster CA (whose client certificates the server
 * accepts): an Approved, not Failed request without a certificate is signed — the subject and
 * requested subjectAltNames copied from the request, key usages from spec.usages (which must be
 * "client auth" plus optionally "digital signature" and "key encipherment"), valid for
 * spec.expirationSeconds (at least 10 minutes) or the default one year, capped at the CA's
 * expiry; notBefore is back-dated 5 minutes, and so is notAfter unless the lifetime is under
 * 8 hours (PermissiveSigningPolicy). A request that
 * breaks the signer's rules gets a Failed condition (reason SignerValidationFailure). Other
 * signer names are left for their signers.
 */
import { randomBytes } from "node:crypto";
import type { Clock } from "../../apimachinery/clock.js";
import type { KubeObject } from "../../apimachinery/types.js";
import * as der from "../auth/asn1.js";
import { parseCertificateRequest } from "../auth/csr.js";
import { createCertificateDER, subjectNameDER, type CertificateAndKey } from "../auth/x509.js";
import { kubeAPIServerClientSignerName } from "../registry/certificates.js";
import { fieldsOf, num, rec, records, str, strings, text } from "../registry/shape.js";
import { formatTime } from "../rest/metadata.js";
import type { ResourceStore } from "../rest/store.js";
import { writeStatus } from "./statuswrite.js";

/** kube-controller-manager's --cluster-signing-duration default. */
export const defaultSigningDurationSeconds = 365 * 24 * 3600;
const backdateMs = 5 * 60_000;
const shortMs = 8 * 3600_000;

const keyUsageBits: Record<string, number> = {
  signing: 0,
  "digital signature": 0,
  "content commitment": 1,
  "key encipherment": 2,
  "data encipherment": 3,
  "key agreement": 4,
  "cert sign": 5,
  "crl sign": 6,
  "encipher only": 7,
  "decipher only": 8,
};

const extKeyUsageOIDs: Record<string, string> = {
  any: "2.5.29.37.0",
  "server auth": "1.3.6.1.5.5.7.3.1",
  "client auth": "1.3.6.1.5.5.7.3.2",
  "code signing": "1.3.6.1.5.5.7.3.3",
  "email protection": "1.3.6.1.5.5.7.3.4",
  "s/mime": "1.3.6.1.5.5.7.3.4",
  "ipsec end system": "1.3.6.1.5.5.7.3.5",
  "ipsec tunnel": "1.3.6.1.5.5.7.3.6",
  "ipsec user": "1.3.6.1.5.5.7.3.7",
  timestamping: "1.3.6.1.5.5.7.3.8",
  "ocsp signing": "1.3.6.1.5.5.7.3.9",
  "microsoft sgc": "1.3.6.1.4.1.311.10.3.3",
  "netscape sgc": "2.16.840.1.113730.4.1",
};

/** validAPIServerClientUsages: an error text, or undefined. */
export function apiServerClientUsagesError(usages: readonly string[]): string | undefined {
  let clientAuth = false;
  for (const u of usages) {
    if (u === "digital signature" || u === "key encipherment") continue;
    if (u === "client auth") {
      clientAuth = true;
      continue;
    }
    return `invalid usage for client certificate: ${u}`;
  }
  return clientAuth ? undefined : "missing required usage for client certificate: client auth";
}

export interface SignerDeps {
  csrs: () => ResourceStore | undefined;
  ca: CertificateAndKey;
  clock: Clock;
  /** Default certificate lifetime (seconds); spec.expirationSeconds may only shorten it. */
  durationSeconds?: number;
  log?: (msg: string, err?: unknown) => void;
}

function isCondition(obj: KubeObject, type: string): boolean {
  return records(rec(fieldsOf(obj).status)?.conditions).some((c) => c.type === type && c.status === "True");
}

/** Signs `csr` with the CA: the PEM certificate. Throws with a message when the request is unusable. */
export function signCertificate(csr: KubeObject, ca: CertificateAndKey, nowMs: number, durationSeconds = defaultSigningDurationSeconds): string {
  const spec = rec(fieldsOf(csr).spec) ?? {};
  const req = parseCertificateRequest(Buffer.from(str(spec.request) ?? "", "base64"));
  const usages = strings(spec.usages);
  const exp = num(spec.expirationSeconds);
  const ttlSeconds = exp === undefined ? durationSeconds : Math.min(Math.max(exp, 600), durationSeconds);
  const ttlMs = ttlSeconds * 1000;
  // PermissiveSigningPolicy: always back-dated; short-lived certificates keep their full lifetime.
  let notAfter = ttlMs < shortMs ? nowMs + ttlMs : nowMs + ttlMs - backdateMs;
  const caNotAfter = Date.parse(ca.cert.validTo);
  if (!Number.isNaN(caNotAfter) && caNotAfter < notAfter) notAfter = caNotAfter;
  const serial = randomBytes(16);
  serial[0] &= 0x7f;
  const certDER = createCertificateDER(
    {
      subject: { commonName: req.commonName },
      subjectDER: req.subjectDER,
      publicKey: req.publicKey,
      notBefore: new Date(nowMs - backdateMs),
      notAfter: new Date(notAfter),
      keyUsageBits: [...new Set(usages.flatMap((u) => (u in keyUsageBits ? [keyUsageBits[u]] : [])))],
      extKeyUsageOIDs: [...new Set(usages.flatMap((u) => (u in extKeyUsageOIDs ? [extKeyUsageOIDs[u]] : [])))],
      subjectAltNameDER: req.subjectAltNameDER,
      serial,
    },
    { name: subjectNameDER(ca.cert.raw), privateKey: ca.privateKey, publicKey: ca.cert.publicKey },
  );
  return der.pem("CERTIFICATE", certDER);
}

export class CertificateSigner {
  constructor(private readonly deps: SignerDeps) {}

  /** Signs (or fails) every pending approved kube-apiserver-client request. */
  async reconcile(): Promise<void> {
    const store = this.deps.csrs();
    if (!store) return;
    for (const item of (await store.storage.list(store.prefix(undefined))).items) {
      const csr = item.object;
      if (text(rec(fieldsOf(csr).spec)?.signerName) !== kubeAPIServerClientSignerName) continue;
      if (!isCondition(csr, "Approved") || isCondition(csr, "Denied") || isCondition(csr, "Failed")) continue;
      if (text(rec(fieldsOf(csr).status)?.certificate) !== "") continue;
      await this.handle(store, csr);
    }
  }

  private async handle(store: ResourceStore, csr: KubeObject): Promise<void> {
    const name = csr.metadata?.name ?? "";
    const nowMs = this.deps.clock.now();
    let status: Record<string, unknown>;
    const usageError = apiServerClientUsagesError(strings(rec(fieldsOf(csr).spec)?.usages));
    if (usageError) {
      const failed = { type: "Failed", status: "True", reason: "SignerValidationFailure", message: usageError, lastUpdateTime: formatTime(nowMs) };
      status = { conditions: [...records(rec(fieldsOf(csr).status)?.conditions), failed] };
    } else {
      let pem: string;
      try {
        pem = signCertificate(csr, this.deps.ca, nowMs, this.deps.durationSeconds);
      } catch (err) {
        this.deps.log?.(`signing CertificateSigningRequest ${name} failed`, err);
        return;
      }
      status = { certificate: Buffer.from(pem).toString("base64") };
    }
    await writeStatus(store, csr, (cur) => ({ ...cur, ...status }), "kube-controller-manager", this.deps.log);
  }
}
