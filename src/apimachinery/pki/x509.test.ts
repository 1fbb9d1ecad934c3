import { createPublicKey, X509Certificate } from "node:crypto";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "node:https";
import type { TLSSocket } from "node:tls";
import { describe, expect, it } from "vitest";
import * as der from "./asn1.js";
import { generateCA, ipBytes, issueCertificate, subjectOf } from "./x509.js";

describe("asn1", () => {
  it("encodes OIDs, integers, lengths and times as DER", () => {
    expect(der.oid("1.2.840.10045.4.3.2").toString("hex")).toBe("06082a8648ce3d040302");
    expect(der.oid("2.5.29.17").toString("hex")).toBe("0603551d11");
    expect(der.unsignedInteger(Buffer.from([0x80])).toString("hex")).toBe("02020080");
    expect(der.unsignedInteger(Buffer.from([0, 0, 5])).toString("hex")).toBe("020105");
    expect(der.octetString(Buffer.alloc(200)).subarray(0, 3).toString("hex")).toBe("0481c8");
    expect(der.octetString(Buffer.alloc(300)).subarray(0, 4).toString("hex")).toBe("0482012c");
    expect(der.time(new Date(Date.UTC(2026, 0, 2, 3, 4, 5))).toString("latin1").slice(2)).toBe("260102030405Z");
    expect(der.time(new Date(Date.UTC(2050, 0, 2, 3, 4, 5)))[0]).toBe(0x18);
    // keyUsage digitalSignature|keyCertSign|cRLSign: 0x86 with one unused bit.
    expect(der.namedBits([0, 5, 6]).toString("hex")).toBe("03020186");
    expect(der.namedBits([0, 2]).toString("hex")).toBe("030205a0");
  });

  it("IP addresses", () => {
    expect(ipBytes("127.0.0.1").toString("hex")).toBe("7f000001");
    expect(ipBytes("::1").toString("hex")).toBe("00000000000000000000000000000001");
    expect(ipBytes("fe80::1:2").toString("hex")).toBe("fe800000000000000000000000010002");
    expect(ipBytes("::ffff:10.0.0.1").toString("hex")).toBe("00000000000000000000ffff0a000001");
  });
});

describe("x509", () => {
  const ca = generateCA("kubeloop-ca");

  it("a self-signed CA that Node parses and verifies", () => {
    const c = new X509Certificate(ca.certPem);
    expect(c.ca).toBe(true);
    expect(c.subject).toBe("CN=kubeloop-ca");
    expect(c.issuer).toBe("CN=kubeloop-ca");
    expect(c.verify(c.publicKey)).toBe(true);
    expect(c.checkIssued(c)).toBe(true);
    expect(c.checkPrivateKey(ca.privateKey)).toBe(true);
    expect(new Date(c.validTo).getTime()).toBeGreaterThan(Date.now() + 3000 * 86400_000);
  });

  it("a serving certificate with SANs, issued and verified by the CA", () => {
    const leaf = issueCertificate(ca, {
      subject: { commonName: "kube-apiserver" },
      dnsNames: ["localhost", "kubernetes.default"],
      ipAddresses: ["127.0.0.1", "::1"],
      usages: ["serverAuth"],
    });
    const c = leaf.cert;
    expect(c.ca).toBe(false);
    expect(c.checkIssued(ca.cert)).toBe(true);
    expect(c.verify(ca.cert.publicKey)).toBe(true);
    expect(c.verify(createPublicKey(generateCA("other").certPem))).toBe(false);
    expect(c.subjectAltName).toBe("DNS:localhost, DNS:kubernetes.default, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1");
    expect(c.checkHost("localhost")).toBe("localhost");
    expect(c.checkIP("127.0.0.1")).toBe("127.0.0.1");
    expect(c.keyUsage).toEqual(["1.3.6.1.5.5.7.3.1"]);
    expect(c.checkPrivateKey(leaf.privateKey)).toBe(true);
  });

  it("a client certificate carries the user as CN and the groups as O", () => {
    const leaf = issueCertificate(ca, { subject: { commonName: "alice", organizations: ["devs", "system:masters"] }, usages: ["clientAuth"] });
    expect(subjectOf(leaf.cert)).toEqual({ commonName: "alice", organizations: ["devs", "system:masters"] });
    expect(leaf.cert.checkIssued(ca.cert)).toBe(true);
  });

  it("serves TLS and authenticates a client certificate in a real handshake", async () => {
    const serving = issueCertificate(ca, { subject: { commonName: "srv" }, ipAddresses: ["127.0.0.1"], usages: ["serverAuth"] });
    const client = issueCertificate(ca, { subject: { commonName: "bob", organizations: ["g1"] }, usages: ["clientAuth"] });
    const server = createServer({ key: serving.keyPem, cert: serving.certPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
      const s = req.socket as TLSSocket;
      res.end(JSON.stringify({ authorized: s.authorized, cn: s.getPeerCertificate().subject?.CN }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    try {
      const body = await new Promise<string>((resolve, reject) => {
        const r = request({ host: "127.0.0.1", port, path: "/", ca: ca.certPem, cert: client.certPem, key: client.keyPem }, (res) => {
          let t = "";
          res.on("data", (c: Buffer) => (t += c.toString()));
          res.on("end", () => resolve(t));
        });
        r.on("error", reject);
        r.end();
      });
      expect(JSON.parse(body)).toEqual({ authorized: true, cn: "bob" });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it.skipIf(!hasOpenSSL())("openssl verifies the chain", () => {
    const dir = mkdtempSync(join(tmpdir(), "x509-"));
    try {
      const leaf = issueCertificate(ca, { subject: { commonName: "x" }, dnsNames: ["localhost"], usages: ["serverAuth", "clientAuth"] });
      writeFileSync(join(dir, "ca.crt"), ca.certPem);
      writeFileSync(join(dir, "leaf.crt"), leaf.certPem);
      const out = execFileSync("openssl", ["verify", "-CAfile", join(dir, "ca.crt"), join(dir, "leaf.crt")], { encoding: "utf8" });
      expect(out).toContain("OK");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function hasOpenSSL(): boolean {
  try {
    execFileSync("openssl", ["version"]);
    return true;
  } catch {
    return false;
  }
}
