import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadOrCreatePKI, servingNames } from "./pki.js";
import { subjectOf } from "./x509.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "kubeloop-pki-"));
  dirs.push(d);
  return d;
};

describe("cluster PKI", () => {
  it("serving SANs: loopback addresses, cluster names and the host", () => {
    expect(servingNames("10.1.2.3")).toEqual({
      dnsNames: ["localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"],
      ipAddresses: ["127.0.0.1", "::1", "10.1.2.3"],
    });
    expect(servingNames("api.example").dnsNames).toContain("api.example");
  });

  it("in memory: a CA, a serving certificate for the host and the admin client certificate", async () => {
    const pki = await loadOrCreatePKI(undefined, "127.0.0.1");
    expect(pki.dir).toBeUndefined();
    expect(pki.serving.cert.checkIssued(pki.ca.cert)).toBe(true);
    expect(pki.serving.cert.checkIP("::1")).toBe("::1");
    expect(pki.serving.cert.checkHost("localhost")).toBe("localhost");
    expect(subjectOf(pki.admin.cert)).toEqual({ commonName: "kubeloop-admin", organizations: ["system:masters"] });
  });

  it("in a data directory: written once, reused on restart, serving certificate re-issued for a new host", async () => {
    const dir = tempDir();
    const a = await loadOrCreatePKI(dir, "127.0.0.1");
    expect(a.dir).toBe(join(dir, "pki"));
    expect(statSync(join(dir, "pki", "ca.key")).mode & 0o777).toBe(0o600);
    const b = await loadOrCreatePKI(dir, "127.0.0.1");
    expect(b.ca.certPem).toBe(a.ca.certPem);
    expect(b.serving.certPem).toBe(a.serving.certPem);
    expect(b.admin.certPem).toBe(a.admin.certPem);
    expect(b.serviceAccountKey.publicKey.export({ type: "spki", format: "pem" })).toBe(a.serviceAccountKey.publicKey.export({ type: "spki", format: "pem" }));
    const c = await loadOrCreatePKI(dir, "10.9.8.7");
    expect(c.ca.certPem).toBe(a.ca.certPem);
    expect(c.serving.certPem).not.toBe(a.serving.certPem);
    expect(c.serving.cert.checkIP("10.9.8.7")).toBe("10.9.8.7");
    expect(readFileSync(join(dir, "pki", "apiserver.crt"), "utf8")).toBe(c.serving.certPem);
  });
});
