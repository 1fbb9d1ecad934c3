/**
 * PKCS#10 certificate signing requests (RFC 2986) as certificates.k8s.io carries them:
 * `spec.request` is a PEM "CERTIFICATE REQUEST" block. Parsing, the self-signature check Go's
 * CertificateRequest.CheckSignature does, and the parts a signer copies into the certificate
 * (subject Name DER, public key, requested subjectAltName). Error texts follow Go's where a user
 * sees them in a validation message.
 */
import { createPublicKey, sign, verify, type KeyObject } from "node:crypto";
import * as der from "./asn1.js";
import { children, encodeName, readElement, type DistinguishedName, type Element } from "./x509.js";

export interface ParsedCertificateRequest {
  /** The subject Name, DER, byte for byte. */
  subjectDER: Buffer;
  commonName: string;
  organizations: string[];
  publicKey: KeyObject;
  /** The requested subjectAltName extension value (GeneralNames DER), if any. */
  subjectAltNameDER?: Buffer;
  /** Verifies the request's signature with its own public key; returns an error text or undefined. */
  checkSignature(): string | undefined;
}

const OID_COMMON_NAME = "2.5.4.3";
const OID_ORGANIZATION = "2.5.4.10";
const OID_EXTENSION_REQUEST = "1.2.840.113549.1.9.14";
const OID_SUBJECT_ALT_NAME = "2.5.29.17";

/** Signature algorithms Go verifies on CSRs, by OID: the hash and the key type. */
const signatureAlgorithms: Record<string, { hash: string | null; key: "rsa" | "ec" | "ed25519" }> = {
  "1.2.840.113549.1.1.5": { hash: "sha1", key: "rsa" },
  "1.2.840.113549.1.1.11": { hash: "sha256", key: "rsa" },
  "1.2.840.113549.1.1.12": { hash: "sha384", key: "rsa" },
  "1.2.840.113549.1.1.13": { hash: "sha512", key: "rsa" },
  "1.2.840.10045.4.1": { hash: "sha1", key: "ec" },
  "1.2.840.10045.4.3.2": { hash: "sha256", key: "ec" },
  "1.2.840.10045.4.3.3": { hash: "sha384", key: "ec" },
  "1.2.840.10045.4.3.4": { hash: "sha512", key: "ec" },
  "1.3.101.112": { hash: null, key: "ed25519" },
};

const verificationFailure: Record<string, string> = {
  rsa: "crypto/rsa: verification error",
  ec: "x509: ECDSA verification failure",
  ed25519: "x509: Ed25519 verification failure",
};

export class CertificateRequestError extends Error {}

export interface PEMBlock {
  type: string;
  /** Whether the block carries RFC 1421 headers ("Proc-Type: ..."). */
  headers: boolean;
  der: Buffer;
}

/** Every PEM block of `text`, in order (pem.Decode in a loop); blocks whose body is not base64 end the list. */
export function decodePEMBlocks(text: string): PEMBlock[] {
  const out: PEMBlock[] = [];
  const re = /-----BEGIN ([^\r\n-]*)-----\r?\n([\s\S]*?)-----END \1-----/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    let lines = m[2].split(/\r?\n/);
    let headers = false;
    if (lines[0]?.includes(":")) {
      headers = true;
      const blank = lines.findIndex((l) => l.trim() === "");
      lines = blank < 0 ? [] : lines.slice(blank + 1);
    }
    const b64 = lines.join("").replace(/\s+/g, "");
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) break;
    out.push({ type: m[1], headers, der: Buffer.from(b64, "base64") });
  }
  return out;
}

/** The first PEM block of `text`, or undefined. */
export function decodePEM(text: string): PEMBlock | undefined {
  return decodePEMBlocks(text)[0];
}

function oidString(buf: Uint8Array, e: Element): string {
  if (e.tag !== 0x06) throw new CertificateRequestError("x509: malformed certificate request");
  const bytes = buf.subarray(e.contentStart, e.end);
  if (bytes.length === 0) throw new CertificateRequestError("x509: malformed certificate request");
  const parts: number[] = [Math.floor(bytes[0] / 40), bytes[0] % 40];
  let v = 0;
  for (let i = 1; i < bytes.length; i++) {
    v = v * 128 + (bytes[i] & 0x7f);
    if ((bytes[i] & 0x80) === 0) {
      parts.push(v);
      v = 0;
    }
  }
  return parts.join(".");
}

function stringValue(buf: Uint8Array, e: Element): string {
  const b = Buffer.from(buf.subarray(e.contentStart, e.end));
  if (e.tag === 0x1e) {
    // BMPString: UTF-16BE.
    let s = "";
    for (let i = 0; i + 1 < b.length; i += 2) s += String.fromCharCode(b.readUInt16BE(i));
    return s;
  }
  return e.tag === 0x0c ? b.toString("utf8") : b.toString("latin1");
}

/** Parses a PEM CSR (certificates.ParseCSR); throws CertificateRequestError with Go's texts. */
export function parseCertificateRequest(pem: Uint8Array | string): ParsedCertificateRequest {
  const text = typeof pem === "string" ? pem : Buffer.from(pem).toString("latin1");
  const block = decodePEM(text);
  if (!block || block.type !== "CERTIFICATE REQUEST") throw new CertificateRequestError("PEM block type must be CERTIFICATE REQUEST");
  const der = block.der;
  try {
    const root = readElement(der, 0);
    const [info, algorithm, signature] = children(der, root);
    if (!info || !algorithm || !signature || info.tag !== 0x30 || algorithm.tag !== 0x30 || signature.tag !== 0x03) throw new Error("shape");
    const [version, subject, spki, attributes] = children(der, info);
    if (!version || version.tag !== 0x02 || !subject || subject.tag !== 0x30 || !spki || spki.tag !== 0x30) throw new Error("shape");
    let commonName = "";
    const organizations: string[] = [];
    for (const rdn of children(der, subject)) {
      for (const atv of children(der, rdn)) {
        const [type, value] = children(der, atv);
        if (!type || !value) continue;
        const id = oidString(der, type);
        if (id === OID_COMMON_NAME) commonName = stringValue(der, value);
        else if (id === OID_ORGANIZATION) organizations.push(stringValue(der, value));
      }
    }
    let subjectAltNameDER: Buffer | undefined;
    if (attributes && attributes.tag === 0xa0) {
      for (const attr of children(der, attributes)) {
        const [type, values] = children(der, attr);
        if (!type || !values || oidString(der, type) !== OID_EXTENSION_REQUEST) continue;
        for (const exts of children(der, values)) {
          for (const ext of children(der, exts)) {
            const parts = children(der, ext);
            if (parts.length < 2 || oidString(der, parts[0]) !== OID_SUBJECT_ALT_NAME) continue;
            const value = parts[parts.length - 1];
            subjectAltNameDER = Buffer.from(der.subarray(value.contentStart, value.end));
          }
        }
      }
    }
    const publicKey = createPublicKey({ key: Buffer.from(der.subarray(spki.start, spki.end)), format: "der", type: "spki" });
    const algId = oidString(der, children(der, algorithm)[0]);
    const signed = Buffer.from(der.subarray(info.start, info.end));
    // BIT STRING: the first content byte counts unused bits (0 for signatures).
    const sig = Buffer.from(der.subarray(signature.contentStart + 1, signature.end));
    return {
      subjectDER: Buffer.from(der.subarray(subject.start, subject.end)),
      commonName,
      organizations,
      publicKey,
      subjectAltNameDER,
      checkSignature() {
        const alg = signatureAlgorithms[algId];
        if (!alg) return "x509: cannot verify signature: algorithm unimplemented";
        const keyType = publicKey.asymmetricKeyType;
        if ((alg.key === "rsa" && keyType !== "rsa") || (alg.key === "ec" && keyType !== "ec") || (alg.key === "ed25519" && keyType !== "ed25519")) {
          return "x509: signature algorithm specifies an incompatible public key type";
        }
        try {
          return verify(alg.hash, signed, publicKey, sig) ? undefined : verificationFailure[alg.key];
        } catch {
          return verificationFailure[alg.key];
        }
      },
    };
  } catch (err) {
    if (err instanceof CertificateRequestError) throw err;
    throw new CertificateRequestError("x509: malformed certificate request");
  }
}

/** Whether a CSR parses and its signature verifies: undefined, or the error text (validateCSR). */
export function checkCertificateRequest(pem: Uint8Array | string): string | undefined {
  try {
    return parseCertificateRequest(pem).checkSignature();
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/**
 * A PEM PKCS#10 request for `subject` signed with an EC P-256 (ecdsa-with-SHA256) or Ed25519
 * key: what `openssl req -new` produces, for clients and tests that need a CSR to submit.
 */
export function createCertificateRequestPEM(subject: DistinguishedName, key: { privateKey: KeyObject; publicKey: KeyObject }): string {
  const info = der.sequence(der.smallInteger(0), encodeName(subject), key.publicKey.export({ type: "spki", format: "der" }), der.tlv(0xa0, Buffer.alloc(0)));
  const ed25519 = key.privateKey.asymmetricKeyType === "ed25519";
  const algorithm = der.sequence(der.oid(ed25519 ? "1.3.101.112" : "1.2.840.10045.4.3.2"));
  const signature = sign(ed25519 ? null : "sha256", info, key.privateKey);
  return der.pem("CERTIFICATE REQUEST", der.sequence(info, algorithm, der.bitStringBytes(signature)));
}
