import { chmodSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FakeClock } from "../apimachinery/clock.js";
import { TokenFileCredentials } from "./auth.js";
import { ExecCredentialError } from "./errors.js";
import { ExecCredentialProvider } from "./exec.js";
import type { RestExecConfig } from "./config.js";

const dir = mkdtempSync(path.join(tmpdir(), "kubeloop-auth-"));

describe("TokenFileCredentials", () => {
  it("re-reads the file when it changes, after the check interval", async () => {
    const clock = new FakeClock();
    const file = path.join(dir, "token");
    writeFileSync(file, "one\n");
    const src = new TokenFileCredentials(file, { clock, checkIntervalMs: 1000 });
    expect(await src.get()).toEqual({ authorization: "Bearer one" });

    writeFileSync(file, "two-longer");
    utimesSync(file, new Date(Date.now() + 5000), new Date(Date.now() + 5000));
    // Within the check interval the cached token is used.
    expect(await src.get()).toEqual({ authorization: "Bearer one" });
    clock.step(1000);
    expect(await src.get()).toEqual({ authorization: "Bearer two-longer" });
  });

  it("re-reads after maxAge even if the file looks unchanged", async () => {
    const clock = new FakeClock();
    const file = path.join(dir, "token-age");
    writeFileSync(file, "aaa");
    const st = new Date(2020, 0, 1);
    utimesSync(file, st, st);
    const src = new TokenFileCredentials(file, { clock, checkIntervalMs: 1000, maxAgeMs: 60_000 });
    expect(await src.currentToken()).toBe("aaa");
    writeFileSync(file, "bbb"); // same size
    utimesSync(file, st, st); // same mtime
    clock.step(2000);
    expect(await src.currentToken()).toBe("aaa");
    clock.step(60_000);
    expect(await src.currentToken()).toBe("bbb");
  });

  it("keeps the last token when the file disappears; fallback token when never read; error otherwise", async () => {
    const clock = new FakeClock();
    const file = path.join(dir, "token-gone");
    writeFileSync(file, "kept");
    const src = new TokenFileCredentials(file, { clock, checkIntervalMs: 0 });
    expect(await src.currentToken()).toBe("kept");
    writeFileSync(file, ""); // empty → read error
    clock.step(1);
    expect(await src.currentToken()).toBe("kept");

    const fb = new TokenFileCredentials(path.join(dir, "nope"), { clock, fallbackToken: "static" });
    expect(await fb.currentToken()).toBe("static");
    await expect(new TokenFileCredentials(path.join(dir, "nope"), { clock }).currentToken()).rejects.toThrow(/failed to read token file/);
  });
});

// A tiny exec plugin: echoes a credential built from its environment, counts its runs in a file.
const plugin = path.join(dir, "plugin.mjs");
writeFileSync(
  plugin,
  `#!/usr/bin/env node
import { appendFileSync, readFileSync } from "node:fs";
const info = JSON.parse(process.env.KUBERNETES_EXEC_INFO);
const [mode, logFile] = process.argv.slice(2);
appendFileSync(logFile, JSON.stringify({ info, extra: process.env.PLUGIN_EXTRA ?? null }) + "\\n");
const runs = readFileSync(logFile, "utf8").trim().split("\\n").length;
if (mode === "fail") { process.stderr.write("boom"); process.exit(3); }
if (mode === "badversion") { console.log(JSON.stringify({ kind: "ExecCredential", apiVersion: "client.authentication.k8s.io/v1alpha1", status: { token: "x" } })); process.exit(0); }
if (mode === "nostatus") { console.log(JSON.stringify({ kind: "ExecCredential", apiVersion: info.apiVersion })); process.exit(0); }
const status = mode === "cert"
  ? { clientCertificateData: "CERT" + runs, clientKeyData: "KEY" + runs }
  : { token: "tok-" + runs, expirationTimestamp: process.env.PLUGIN_EXPIRY || undefined };
console.log(JSON.stringify({ kind: "ExecCredential", apiVersion: info.apiVersion, status }));
`,
);
chmodSync(plugin, 0o755);

function execConfig(mode: string, log: string, over: Partial<RestExecConfig> = {}): RestExecConfig {
  return {
    command: process.execPath,
    args: [plugin, mode, log],
    env: [{ name: "PLUGIN_EXTRA", value: "hello" }],
    apiVersion: "client.authentication.k8s.io/v1",
    interactiveMode: "Never",
    provideClusterInfo: false,
    ...over,
  };
}

function runsOf(log: string): { info: { apiVersion: string; spec: Record<string, unknown> }; extra: string }[] {
  return readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { info: { apiVersion: string; spec: Record<string, unknown> }; extra: string });
}

describe("ExecCredentialProvider", () => {
  it("runs the plugin with env, args and KUBERNETES_EXEC_INFO; caches until the expiry; re-execs after", async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const log = path.join(dir, "exec-expiry.log");
    writeFileSync(log, "");
    const p = new ExecCredentialProvider(execConfig("token", log), {
      clock,
      env: { ...process.env, PLUGIN_EXPIRY: "2026-01-01T00:10:00Z" },
    });
    expect(await p.get()).toEqual({ authorization: "Bearer tok-1" });
    expect(await p.get()).toEqual({ authorization: "Bearer tok-1" });
    expect(p.runs).toBe(1);
    clock.step(9 * 60_000);
    expect(await p.get()).toEqual({ authorization: "Bearer tok-1" });
    clock.step(60_000);
    expect(await p.get()).toEqual({ authorization: "Bearer tok-2" });
    const runs = runsOf(log);
    expect(runs[0].extra).toBe("hello");
    expect(runs[0].info).toEqual({ kind: "ExecCredential", apiVersion: "client.authentication.k8s.io/v1", spec: { interactive: false } });
  });

  it("without an expiry, credentials are kept until a 401 refresh", async () => {
    const clock = new FakeClock();
    const log = path.join(dir, "exec-401.log");
    writeFileSync(log, "");
    const p = new ExecCredentialProvider(execConfig("token", log), { clock, env: { ...process.env, PLUGIN_EXPIRY: "" } });
    const first = await p.get();
    clock.step(24 * 3600_000);
    expect(await p.get()).toEqual(first);
    expect(await p.refreshAfterUnauthorized(first)).toBe(true);
    expect(await p.get()).toEqual({ authorization: "Bearer tok-2" });
    // A stale 401 (for credentials already replaced) does not run the plugin again.
    expect(await p.refreshAfterUnauthorized(first)).toBe(true);
    expect(p.runs).toBe(2);
  });

  it("concurrent callers share one run; v1beta1 and provideClusterInfo", async () => {
    const clock = new FakeClock();
    const log = path.join(dir, "exec-cluster.log");
    writeFileSync(log, "");
    const p = new ExecCredentialProvider(
      execConfig("cert", log, { apiVersion: "client.authentication.k8s.io/v1beta1", interactiveMode: undefined, provideClusterInfo: true }),
      {
        clock,
        stdinIsTerminal: false,
        cluster: { server: "https://k:6443", certificateAuthorityData: Buffer.from("CA"), config: { audience: "x" }, tlsServerName: "k" },
      },
    );
    const [a, b] = await Promise.all([p.get(), p.get()]);
    expect(a).toEqual({ clientCert: { cert: "CERT1", key: "KEY1" } });
    expect(b).toEqual(a);
    expect(p.runs).toBe(1);
    expect(runsOf(log)[0].info.spec).toEqual({
      interactive: false,
      cluster: { server: "https://k:6443", "tls-server-name": "k", "certificate-authority-data": Buffer.from("CA").toString("base64"), config: { audience: "x" } },
    });
  });

  it.each([
    { mode: "fail", message: /exec: executable .* failed with exit code 3: boom/ },
    { mode: "badversion", message: /configured to use API version client.authentication.k8s.io\/v1, plugin returned version client.authentication.k8s.io\/v1alpha1/ },
    { mode: "nostatus", message: /didn't return a status field/ },
  ])("plugin failure: $mode", async ({ mode, message }) => {
    const log = path.join(dir, `exec-${mode}.log`);
    writeFileSync(log, "");
    const p = new ExecCredentialProvider(execConfig(mode, log), { clock: new FakeClock() });
    const err = await p.get().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExecCredentialError);
    expect((err as Error).message).toMatch(message);
  });

  it("missing executable mentions the install hint; Always without a terminal is refused", async () => {
    const p = new ExecCredentialProvider(execConfig("token", "/dev/null", { command: path.join(dir, "no-such-plugin"), installHint: "install it" }), {
      clock: new FakeClock(),
    });
    await expect(p.get()).rejects.toThrow(/not found\n\ninstall it/);
    const q = new ExecCredentialProvider(execConfig("token", "/dev/null", { interactiveMode: "Always" }), { clock: new FakeClock(), stdinIsTerminal: false });
    await expect(q.get()).rejects.toThrow(/standard input is not a terminal/);
  });
});
