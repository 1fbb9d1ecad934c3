import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadClientConfig, restConfigFromKubeconfig } from "./config.js";
import { ConfigError } from "./errors.js";
import { inClusterConfig } from "./incluster.js";
import { kubeconfigPrecedence, loadKubeconfig, parseKubeconfig } from "./kubeconfig.js";

const root = mkdtempSync(path.join(tmpdir(), "kubeloop-kubeconfig-"));

function write(rel: string, text: string): string {
  const p = path.join(root, rel);
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, text);
  return p;
}

const fileA = write(
  "a/config",
  `
apiVersion: v1
kind: Config
current-context: ctx-a
clusters:
- name: shared
  cluster:
    server: https://a.example:6443
    certificate-authority: ca.crt
- name: only-a
  cluster:
    server: https://only-a.example
contexts:
- name: ctx-a
  context: {cluster: shared, user: alice, namespace: team-a}
- name: ctx-shared
  context: {cluster: shared, user: alice}
users:
- name: alice
  user:
    client-certificate: certs/alice.crt
    client-key: /abs/alice.key
    tokenFile: ../tokens/alice
`,
);

const fileB = write(
  "b/config",
  `
current-context: ctx-b
clusters:
- name: shared
  cluster:
    server: https://b.example:6443
    insecure-skip-tls-verify: true
    tls-server-name: b-name
- name: only-b
  cluster:
    server: https://only-b.example
    proxy-url: http://proxy.example:3128
contexts:
- name: ctx-shared
  context: {cluster: only-b, user: bob}
- name: ctx-b
  context: {cluster: only-b, user: bob, namespace: team-b}
users:
- name: alice
  user: {token: from-b}
- name: bob
  user:
    username: bob
    password: secret
`,
);

const fileNoCurrent = write(
  "c/config",
  `
clusters:
- name: c
  cluster: {server: "https://c.example"}
contexts:
- name: ctx-c
  context: {cluster: c, user: ""}
`,
);

const bad = write("bad/config", "clusters: [ {name: x, cluster: {server: 1 }\n  - broken: [");
const badShape = write("bad/shape", "clusters: {name: x}\n");
const missing = path.join(root, "does-not-exist");
const sep = path.delimiter;

describe("kubeconfig loading rules", () => {
  it.each([
    { name: "KUBECONFIG list splits on the path separator, skipping empties and duplicates", env: `${fileA}${sep}${sep}${fileB}${sep}${fileA}`, want: [fileA, fileB] },
    { name: "unset KUBECONFIG → ~/.kube/config", env: "", want: [path.join("/home/u", ".kube", "config")] },
  ])("$name", ({ env, want }) => {
    expect(kubeconfigPrecedence({ kubeconfigEnv: env, homeDir: "/home/u" })).toEqual(want);
  });

  it("an explicit path wins over KUBECONFIG", () => {
    expect(kubeconfigPrecedence({ kubeconfigPath: fileB, kubeconfigEnv: fileA })).toEqual([fileB]);
  });

  const merged = loadKubeconfig({ kubeconfigEnv: [fileA, missing, fileB].join(sep) });

  it.each([
    { what: "current-context from the first file that sets it", got: () => merged.config.currentContext, want: "ctx-a" },
    { what: "first file's cluster of a shared name wins whole", got: () => merged.config.clusters.get("shared")?.server, want: "https://a.example:6443" },
    { what: "…and the loser's extra fields are not merged in", got: () => merged.config.clusters.get("shared")?.insecureSkipTlsVerify, want: false },
    { what: "names only the second file defines are added", got: () => merged.config.clusters.get("only-b")?.proxyUrl, want: "http://proxy.example:3128" },
    { what: "first file's context of a shared name wins", got: () => merged.config.contexts.get("ctx-shared")?.cluster, want: "shared" },
    { what: "first file's user wins (no token from b)", got: () => merged.config.users.get("alice")?.token, want: undefined },
    { what: "missing files in the list are skipped", got: () => merged.files, want: [fileA, fileB] },
    { what: "relative CA resolved against its file's directory", got: () => merged.config.clusters.get("shared")?.certificateAuthority, want: path.join(root, "a", "ca.crt") },
    { what: "relative client cert resolved", got: () => merged.config.users.get("alice")?.clientCertificate, want: path.join(root, "a", "certs", "alice.crt") },
    { what: "absolute paths untouched", got: () => merged.config.users.get("alice")?.clientKey, want: "/abs/alice.key" },
    { what: "tokenFile resolved with ..", got: () => merged.config.users.get("alice")?.tokenFile, want: path.join(root, "tokens", "alice") },
  ])("merge: $what", ({ got, want }) => {
    expect(got()).toEqual(want);
  });

  it("current-context falls through to a later file when the first sets none", () => {
    const m = loadKubeconfig({ kubeconfigEnv: [fileNoCurrent, fileB].join(sep) });
    expect(m.config.currentContext).toBe("ctx-b");
  });

  it.each([
    { name: "explicit path that does not exist", opts: { kubeconfigPath: missing }, reason: "FileNotFound" },
    { name: "bad YAML", opts: { kubeconfigPath: bad }, reason: "InvalidFile" },
    { name: "bad YAML inside a KUBECONFIG list", opts: { kubeconfigEnv: [fileA, bad].join(sep) }, reason: "InvalidFile" },
    { name: "not shaped like a kubeconfig", opts: { kubeconfigPath: badShape }, reason: "InvalidFile" },
    { name: "nothing anywhere", opts: { kubeconfigEnv: missing }, reason: "EmptyConfig" },
    { name: "unknown context override", opts: { kubeconfigPath: fileA, context: "nope" }, reason: "ContextNotFound" },
    { name: "no current context", opts: { kubeconfigPath: fileNoCurrent }, reason: "NoCurrentContext" },
    { name: "unknown cluster override", opts: { kubeconfigPath: fileA, cluster: "nope" }, reason: "ClusterNotFound" },
    { name: "unknown user override", opts: { kubeconfigPath: fileA, user: "nope" }, reason: "UserNotFound" },
  ])("ConfigError for $name", ({ opts, reason }) => {
    let err: unknown;
    try {
      loadClientConfig(opts);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).reason).toBe(reason);
  });

  it("an empty file is an empty config", () => {
    expect(parseKubeconfig("", "x").clusters.size).toBe(0);
  });

  it("duplicate names inside one file are rejected", () => {
    expect(() => parseKubeconfig("clusters:\n- name: a\n  cluster: {server: x}\n- name: a\n  cluster: {server: y}\n")).toThrow(/duplicate name "a"/);
  });
});

describe("RestConfig from a kubeconfig", () => {
  it("uses the current context: server, CA file, client cert, token file, namespace", () => {
    const cc = loadClientConfig({ kubeconfigEnv: [fileA, fileB].join(sep) });
    expect(cc.contextName).toBe("ctx-a");
    expect(cc.namespace).toBe("team-a");
    expect(cc.config.host).toBe("https://a.example:6443");
    expect(cc.config.tls).toEqual({
      caFile: path.join(root, "a", "ca.crt"),
      certFile: path.join(root, "a", "certs", "alice.crt"),
      keyFile: "/abs/alice.key",
    });
    expect(cc.config.bearerTokenFile).toBe(path.join(root, "tokens", "alice"));
  });

  it("context override selects another cluster and user; namespace defaults to default", () => {
    const cc = loadClientConfig({ kubeconfigPath: fileB, context: "ctx-shared" });
    expect(cc.config.host).toBe("https://only-b.example");
    expect(cc.config.proxyUrl).toBe("http://proxy.example:3128");
    expect(cc.config.username).toBe("bob");
    expect(cc.config.password).toBe("secret");
    expect(cc.namespace).toBe("default");
  });

  it("insecure-skip-tls-verify and tls-server-name", () => {
    const kc = parseKubeconfig(`
current-context: x
clusters: [{name: c, cluster: {server: "https://h", insecure-skip-tls-verify: true, tls-server-name: sni}}]
contexts: [{name: x, context: {cluster: c}}]
`);
    expect(restConfigFromKubeconfig(kc).config.tls).toEqual({ insecure: true, serverName: "sni" });
  });

  it("does not apply user credentials to an http server (clientcmd behaviour)", () => {
    const kc = parseKubeconfig(`
current-context: x
clusters: [{name: c, cluster: {server: "http://127.0.0.1:1"}}]
users: [{name: u, user: {token: t, as: someone}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
`);
    const cfg = restConfigFromKubeconfig(kc).config;
    expect(cfg.bearerToken).toBeUndefined();
    expect(cfg.impersonate).toBeUndefined();
  });

  it("data fields are base64-decoded; exec v1 without interactiveMode is refused", () => {
    const kc = parseKubeconfig(`
current-context: x
clusters: [{name: c, cluster: {server: "https://h", certificate-authority-data: ${Buffer.from("PEM").toString("base64")}}}]
users:
- name: u
  user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: plugin}}
contexts: [{name: x, context: {cluster: c, user: u}}]
`);
    expect(kc.clusters.get("c")?.certificateAuthorityData?.toString()).toBe("PEM");
    expect(() => restConfigFromKubeconfig(kc)).toThrow(/interactiveMode must be specified for u/);
  });

  it("exec command with a path separator is resolved; a bare name is not", () => {
    const p = write(
      "e/config",
      `users:
- name: rel
  user: {exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: ./bin/plugin}}
- name: bare
  user: {exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: plugin}}
`,
    );
    const kc = loadKubeconfig({ kubeconfigPath: p }).config;
    expect(kc.users.get("rel")?.exec?.command).toBe(path.join(root, "e", "bin", "plugin"));
    expect(kc.users.get("bare")?.exec?.command).toBe("plugin");
  });
});

describe("in-cluster config", () => {
  const dir = path.join(root, "sa");
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "token"), "sa-token\n");
  writeFileSync(path.join(dir, "ca.crt"), "CA");
  writeFileSync(path.join(dir, "namespace"), "kube-system");

  it("reads host, port, token, CA and namespace", () => {
    const cc = inClusterConfig({ env: { KUBERNETES_SERVICE_HOST: "10.0.0.1", KUBERNETES_SERVICE_PORT: "443" }, serviceAccountDir: dir });
    expect(cc.config.host).toBe("https://10.0.0.1:443");
    expect(cc.config.bearerToken).toBe("sa-token");
    expect(cc.config.bearerTokenFile).toBe(path.join(dir, "token"));
    expect(cc.config.tls).toEqual({ caFile: path.join(dir, "ca.crt") });
    expect(cc.namespace).toBe("kube-system");
  });

  it("brackets IPv6 hosts", () => {
    const cc = inClusterConfig({ env: { KUBERNETES_SERVICE_HOST: "fd00::1", KUBERNETES_SERVICE_PORT: "443" }, serviceAccountDir: dir });
    expect(cc.config.host).toBe("https://[fd00::1]:443");
  });

  it("fails outside a cluster and without a token", () => {
    expect(() => inClusterConfig({ env: {} })).toThrow(/KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined/);
    expect(() =>
      inClusterConfig({ env: { KUBERNETES_SERVICE_HOST: "h", KUBERNETES_SERVICE_PORT: "1" }, serviceAccountDir: path.join(root, "nope") }),
    ).toThrow(ConfigError);
  });
});
