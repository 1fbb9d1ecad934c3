/**
 * X.509 certificates built with node:crypto alone: ECDSA P-256 keys, a DER TBSCertificate
 * assembled by asn1.ts and signed with ecdsa-with-SHA256. Enough for a throw-away cluster CA,
 * the API server's serving certificate and client certificates (CN = user, O = groups), in the
 * shape Go's crypto/x509 (client-go, kubectl) and Node's TLS accept; also the serving
 * certificates of the runtime's webhook server (apimachinery is the layer both sides share).
 *
 * Node can parse and verify certificates (X509Certificate) but not create them; this module is
 * the creating half.
 */
import { createHash, createPrivateKey, generateKeyPairSync, randomBytes, sign, X509Certificate, type KeyObject } from "node:crypto";
import { isIPv4, isIPv6 } from "node:net";
import * as der from "./asn1.js";

const OID = {
  ecPublicKey: "1.2.840.10045.2.1",
  ecdsaWithSHA256: "1.2.840.10045.4.3.2",
  commonName: "2.5.4.3",
  organization: "2.5.4.10",
  subjectKeyIdentifier: "2.5.29.14",
  keyUsage: "2.5.29.15",
  subjectAltName: "2.5.29.17",
  basicConstraints: "2.5.29.19",
  authorityKeyIdentifier: "2.5.29.35",
  extKeyUsage: "2.5.29.37",
  serverAuth: "1.3.6.1.5.5.7.3.1",
  clientAuth: "1.3.6.1.5.5.7.3.2",
} as const;

/** KeyUsage bit numbers (RFC 5280 4.2.1.3). */
const KeyUsageBit = { digitalSignature: 0, keyEncipherment: 2, keyCertSign: 5, cRLSign: 6 } as const;

export interface DistinguishedName {
  commonName: string;
  /** One O attribute each, in order (groups for client certificates). */
  organizations?: readonly string[];
}

export interface CertificateRequest {
  subject: DistinguishedName;
  publicKey: KeyObject;
  notBefore: Date;
  notAfter: Date;
  isCA?: boolean;
  dnsNames?: readonly string[];
  ipAddresses?: readonly string[];
  extKeyUsage?: readonly ("serverAuth" | "clientAuth")[];
  /** Positive serial number bytes (default: 16 random bytes). */
  serial?: Uint8Array;
  /** The subject Name DER to use as is (a certificate request's subject) instead of `subject`. */
  subjectDER?: Uint8Array;
  /**
   * KeyUsage bit numbers (RFC 5280 4.2.1.3). Default: digitalSignature + keyEncipherment
   * (keyCertSign + cRLSign for a CA); an empty list omits the extension.
   */
  keyUsageBits?: readonly number[];
  /** Extended key usage OIDs, after those named by `extKeyUsage`. */
  extKeyUsageOIDs?: readonly string[];
  /** A subjectAltName extension value (GeneralNames DER) copied as is, instead of dnsNames/ipAddresses. */
  subjectAltNameDER?: Uint8Array;
}

/** A certificate with its private key, in PEM and parsed forms. */
export interface CertificateAndKey {
  certPem: string;
  keyPem: string;
  cert: X509Certificate;
  privateKey: KeyObject;
}

export function generateKey(): { privateKey: KeyObject; publicKey: KeyObject } {
  return generateKeyPairSync("ec", { namedCurve: "P-256" });
}

// ---- a tiny DER reader, for fields of certificates and keys we did not build in this process --

export interface Element {
  tag: number;
  /** Offset of the tag byte. */
  start: number;
  /** Offset of the first content byte. */
  contentStart: number;
  /** Offset after the last content byte. */
  end: number;
}

/** The DER element (tag, length, contents) at `offset`; throws on truncated or oversized input. */
export function readElement(buf: Uint8Array, offset: number): Element {
  if (offset + 2 > buf.length) throw new Error("DER: truncated element");
  const tag = buf[offset];
  let len = buf[offset + 1];
  let p = offset + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || p + n > buf.length) throw new Error("DER: unsupported length");
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[p + i];
    p += n;
  }
  if (p + len > buf.length) throw new Error("DER: element overruns its buffer");
  return { tag, start: offset, contentStart: p, end: p + len };
}

/** The elements inside a constructed element (SEQUENCE, SET, explicit tag). */
export function children(buf: Uint8Array, parent: Element): Element[] {
  const out: Element[] = [];
  for (let p = parent.contentStart; p < parent.end; ) {
    const e = readElement(buf, p);
    out.push(e);
    p = e.end;
  }
  return out;
}

/** The subject Name of a DER certificate, byte for byte (to use as the issuer of what it signs). */
export function subjectNameDER(certDER: Uint8Array): Buffer {
  const cert = readElement(certDER, 0);
  const tbs = children(certDER, cert)[0];
  const fields = children(certDER, tbs);
  // [0] version is present in v3 certificates: serial, signature, issuer, validity, subject follow.
  const base = fields[0].tag === 0xa0 ? 1 : 0;
  const subject = fields[base + 4];
  return Buffer.from(certDER.subarray(subject.start, subject.end));
}

/** SHA-1 of the subjectPublicKey bits (RFC 5280 4.2.1.2 method 1). */
export function keyIdentifier(publicKey: KeyObject): Buffer {
  const spki = publicKey.export({ type: "spki", format: "der" });
  const root = readElement(spki, 0);
  const bits = children(spki, root)[1];
  return createHash("sha1").update(spki.subarray(bits.contentStart + 1, bits.end)).digest();
}

// ---- encoding ------------------------------------------------------------------------------

/** A Name of O attributes then a CN, as Go's pkix.Name encodes them. */
export function encodeName(dn: DistinguishedName): Buffer {
  const rdn = (type: string, value: string) => der.set(der.sequence(der.oid(type), der.utf8String(value)));
  // Go's pkix.Name order: O before CN.
  const rdns = [...(dn.organizations ?? []).map((o) => rdn(OID.organization, o)), rdn(OID.commonName, dn.commonName)];
  return der.sequence(...rdns);
}

/** An IP address as the 4 or 16 bytes of a GeneralName iPAddress. */
export function ipBytes(ip: string): Buffer {
  if (isIPv4(ip)) return Buffer.from(ip.split(".").map(Number));
  if (!isIPv6(ip)) throw new Error(`not an IP address: ${ip}`);
  let text = ip;
  let tail: number[] = [];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const b = v4[1].split(".").map(Number);
    tail = [(b[0] << 8) | b[1], (b[2] << 8) | b[3]];
    text = text.slice(0, -v4[1].length) + "0:0";
  }
  const [head, rest] = text.split("::");
  const h = head ? head.split(":") : [];
  const r = rest !== undefined && rest !== "" ? rest.split(":") : [];
  const fill = rest !== undefined ? 8 - h.length - r.length : 0;
  const groups = [...h, ...Array<string>(fill).fill("0"), ...r].map((g) => parseInt(g, 16));
  if (tail.length) groups.splice(6, 2, ...tail);
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(g, i * 2));
  return out;
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return critical ? der.sequence(der.oid(id), der.boolean(true), der.octetString(value)) : der.sequence(der.oid(id), der.octetString(value));
}

const ecdsaSHA256 = () => der.sequence(der.oid(OID.ecdsaWithSHA256));

export interface Signer {
  /** The issuer's subject Name DER (the CA certificate's subject). */
  name: Buffer;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

/** Builds and signs a certificate with the issuer's key (self-signed: the issuer is the request's own name and key). */
export function createCertificateDER(req: CertificateRequest, issuer: Signer): Buffer {
  let serial = req.serial ?? randomBytes(16);
  if (serial.length === 0 || serial.every((b) => b === 0)) serial = Buffer.from([1]);
  const subjectName = req.subjectDER ? Buffer.from(req.subjectDER) : encodeName(req.subject);
  const exts: Buffer[] = [];
  const keyUsage = req.keyUsageBits ?? (req.isCA ? [KeyUsageBit.digitalSignature, KeyUsageBit.keyCertSign, KeyUsageBit.cRLSign] : [KeyUsageBit.digitalSignature, KeyUsageBit.keyEncipherment]);
  if (keyUsage.length) exts.push(extension(OID.keyUsage, true, der.namedBits(keyUsage)));
  const ekus = [...(req.extKeyUsage ?? []).map((u) => OID[u]), ...(req.extKeyUsageOIDs ?? [])];
  if (ekus.length) exts.push(extension(OID.extKeyUsage, false, der.sequence(...ekus.map((o) => der.oid(o)))));
  exts.push(extension(OID.basicConstraints, true, req.isCA ? der.sequence(der.boolean(true)) : der.sequence()));
  exts.push(extension(OID.subjectKeyIdentifier, false, der.octetString(keyIdentifier(req.publicKey))));
  exts.push(extension(OID.authorityKeyIdentifier, false, der.sequence(der.implicitPrimitive(0, keyIdentifier(issuer.publicKey)))));
  const names = [...(req.dnsNames ?? []).map((d) => der.implicitPrimitive(2, Buffer.from(d, "ascii"))), ...(req.ipAddresses ?? []).map((ip) => der.implicitPrimitive(7, ipBytes(ip)))];
  if (req.subjectAltNameDER) exts.push(extension(OID.subjectAltName, false, Buffer.from(req.subjectAltNameDER)));
  else if (names.length) exts.push(extension(OID.subjectAltName, false, der.sequence(...names)));

  const tbs = der.sequence(
    der.explicit(0, der.smallInteger(2)),
    der.unsignedInteger(serial),
    ecdsaSHA256(),
    issuer.name,
    der.sequence(der.time(req.notBefore), der.time(req.notAfter)),
    subjectName,
    req.publicKey.export({ type: "spki", format: "der" }),
    der.explicit(3, der.sequence(...exts)),
  );
  const signature = sign("sha256", tbs, issuer.privateKey);
  return der.sequence(tbs, ecdsaSHA256(), der.bitStringBytes(signature));
}

export interface Validity {
  /** Default: now. */
  now?: Date;
  /** Days the certificate is valid for. */
  days: number;
}

function validityOf(v: Validity): { notBefore: Date; notAfter: Date } {
  const now = v.now ?? new Date();
  // Back-dated an hour for clock skew, as kubeadm and client-go's cert helpers do.
  return { notBefore: new Date(now.getTime() - 3600_000), notAfter: new Date(now.getTime() + v.days * 86400_000) };
}

function bundle(certDER: Buffer, privateKey: KeyObject): CertificateAndKey {
  return {
    certPem: der.pem("CERTIFICATE", certDER),
    keyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    cert: new X509Certificate(certDER),
    privateKey,
  };
}

/** A self-signed CA certificate (basicConstraints CA:TRUE, keyCertSign). */
export function generateCA(commonName: string, validity: Validity = { days: 3650 }): CertificateAndKey {
  const { privateKey, publicKey } = generateKey();
  const subject = { commonName };
  const name = encodeName(subject);
  const certDER = createCertificateDER({ subject, publicKey, isCA: true, ...validityOf(validity) }, { name, privateKey, publicKey });
  return bundle(certDER, privateKey);
}

export interface LeafOptions {
  subject: DistinguishedName;
  dnsNames?: readonly string[];
  ipAddresses?: readonly string[];
  usages: readonly ("serverAuth" | "clientAuth")[];
  validity?: Validity;
}

/** A leaf certificate signed by `ca`. */
export function issueCertificate(ca: CertificateAndKey, opts: LeafOptions): CertificateAndKey {
  const { privateKey, publicKey } = generateKey();
  const signer: Signer = { name: subjectNameDER(ca.cert.raw), privateKey: ca.privateKey, publicKey: ca.cert.publicKey };
  const certDER = createCertificateDER(
    {
      subject: opts.subject,
      publicKey,
      dnsNames: opts.dnsNames,
      ipAddresses: opts.ipAddresses,
      extKeyUsage: opts.usages,
      ...validityOf(opts.validity ?? { days: 365 }),
    },
    signer,
  );
  return bundle(certDER, privateKey);
}

/** Loads a PEM certificate and key written by this module (or any PEM pair). */
export function loadCertificateAndKey(certPem: string, keyPem: string): CertificateAndKey {
  return { certPem, keyPem, cert: new X509Certificate(certPem), privateKey: createPrivateKey(keyPem) };
}

/** CN and O values of a certificate subject as Node's X509Certificate prints it ("O=a\nCN=b"). */
export function subjectOf(cert: X509Certificate): { commonName: string; organizations: string[] } {
  let commonName = "";
  const organizations: string[] = [];
  for (const line of cert.subject.split("\n")) {
    const eq = line.indexOf("=");
    if (eq < 0) continue;
    const k = line.slice(0, eq);
    const v = line.slice(eq + 1);
    if (k === "CN") commonName = v;
    else if (k === "O") organizations.push(v);
  }
  return { commonName, organizations };
}
