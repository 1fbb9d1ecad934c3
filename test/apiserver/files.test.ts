/**
 * Issue 18, defect 4: the SQLite file holding every Secret was created 0644 when the data
 * directory already existed with wider permissions. Now the database, its WAL, the commit
 * marker, private keys and kubeconfigs are 0600 whatever the umask, the directory's mode or the
 * mode of a file already there, and a data directory others can read is reported.
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startApiServer } from "../../src/apiserver/index.js";

const mode = (p: string) => statSync(p).mode & 0o777;

describe("files holding secrets are 0600", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("whatever the umask, the data directory's mode and the modes of files already there", async () => {
    const root = mkdtempSync(join(tmpdir(), "kubeloop-files-"));
    dirs.push(root);
    const dataDir = join(root, "data");
    const kubeconfig = join(root, "kubeconfig");
    const oldUmask = process.umask(0);
    try {
      // A directory made wide open, a database and a key left 0644 by an older version, an
      // existing kubeconfig file 0644.
      const { mkdirSync } = await import("node:fs");
      mkdirSync(join(dataDir, "pki"), { recursive: true, mode: 0o777 });
      chmodSync(dataDir, 0o777);
      chmodSync(join(dataDir, "pki"), 0o777);
      writeFileSync(join(dataDir, "kubeloop.db"), "", { mode: 0o644 });
      writeFileSync(kubeconfig, "old", { mode: 0o644 });

      const running = await startApiServer({ port: 0, dataDir, kubeconfigPath: kubeconfig });
      try {
        expect(running.server.startupWarnings.some((w) => w.includes(`data directory ${dataDir} is accessible by other users (mode 0777)`))).toBe(true);
        // While the server runs: the database, its WAL and the commit marker.
        const files = readdirSync(dataDir).filter((f) => f !== "pki");
        expect(files).toEqual(expect.arrayContaining(["kubeloop.db", "kubeloop.db-wal", "kubeloop.commit"]));
        for (const f of files) expect(mode(join(dataDir, f)), f).toBe(0o600);
        for (const f of readdirSync(join(dataDir, "pki"))) {
          if (f.endsWith(".key")) expect(mode(join(dataDir, "pki", f)), f).toBe(0o600);
        }
        expect(mode(kubeconfig)).toBe(0o600);
      } finally {
        await running.stop();
      }
      // The key written by the first start, made 0644 by someone, is restricted on the next one.
      chmodSync(join(dataDir, "pki", "ca.key"), 0o644);
      chmodSync(join(dataDir, "kubeloop.db"), 0o644);
      const again = await startApiServer({ port: 0, dataDir });
      try {
        expect(mode(join(dataDir, "pki", "ca.key"))).toBe(0o600);
        expect(mode(join(dataDir, "kubeloop.db"))).toBe(0o600);
        if (existsSync(join(dataDir, "kubeloop.db-wal"))) expect(mode(join(dataDir, "kubeloop.db-wal"))).toBe(0o600);
        expect(mode(again.kubeconfigPath)).toBe(0o600);
      } finally {
        await again.stop();
      }
    } finally {
      process.umask(oldUmask);
    }
  }, 60_000);

  it("a private data directory gets no warning", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "kubeloop-files-"));
    dirs.push(dataDir);
    chmodSync(dataDir, 0o700);
    const running = await startApiServer({ port: 0, dataDir, insecureHttp: true });
    try {
      expect(running.server.startupWarnings).toEqual([]);
    } finally {
      await running.stop();
    }
  }, 60_000);
});
