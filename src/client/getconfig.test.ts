import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "./errors.js";
import { getConfig, kubeconfigFlag, type GetConfigOptions } from "./getconfig.js";
import { KubeClient } from "./kubeclient.js";

const root = mkdtempSync(path.join(tmpdir(), "kubeloop-getconfig-"));

function kubeconfig(rel: string, server: string, namespace: string): string {
  const p = path.join(root, rel);
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(
    p,
    `apiVersion: v1
kind: Config
current-context: c
clusters: [{name: k, cluster: {server: "${server}"}}]
users: [{name: u, user: {}}]
contexts: [{name: c, context: {cluster: k, user: u, namespace: ${namespace}}}]
`,
  );
  return p;
}

const flagFile = kubeconfig("flag/config", "https://flag.example:6443", "from-flag");
const envFile = kubeconfig("env/config", "https://env.example:6443", "from-env");
const home = path.join(root, "home");
kubeconfig("home/.kube/config", "https://home.example:6443", "from-home");
const emptyHome = path.join(root, "empty-home");
const sa = path.join(root, "sa");
mkdirSync(sa, { recursive: true });
writeFileSync(path.join(sa, "token"), "sa-token\n");
writeFileSync(path.join(sa, "namespace"), "pod-ns\n");

const pod = { KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" };

describe("kubeconfigFlag", () => {
  it.each<[string[], string | undefined]>([
    [[], undefined],
    [["--kubeconfig", "/a"], "/a"],
    [["--kubeconfig=/b"], "/b"],
    [["-kubeconfig", "/c"], "/c"],
    [["run", "--workers", "2", "--kubeconfig=/d", "x"], "/d"],
    [["--kubeconfig=/e", "--kubeconfig", "/f"], "/f"],
    [["--", "--kubeconfig", "/g"], undefined],
    [["--kubeconfig-out", "/h"], undefined],
  ])("%j → %s", (argv, want) => {
    expect(kubeconfigFlag(argv)).toBe(want);
  });
});

describe("getConfig follows controller-runtime's GetConfig order", () => {
  const cases: Array<{ name: string; opts: GetConfigOptions; host: string; namespace: string; source: string }> = [
    {
      name: "--kubeconfig wins over KUBECONFIG, in-cluster and home",
      opts: { argv: ["--kubeconfig", flagFile], env: { ...pod, KUBECONFIG: envFile }, homeDir: home, inCluster: { serviceAccountDir: sa } },
      host: "https://flag.example:6443",
      namespace: "from-flag",
      source: "kubeconfig-flag",
    },
    {
      name: "an explicit kubeconfig option is the flag",
      opts: { kubeconfig: flagFile, argv: [], env: { ...pod }, homeDir: home, inCluster: { serviceAccountDir: sa } },
      host: "https://flag.example:6443",
      namespace: "from-flag",
      source: "kubeconfig-flag",
    },
    {
      name: "KUBECONFIG wins over in-cluster and home",
      opts: { argv: [], env: { ...pod, KUBECONFIG: envFile }, homeDir: home, inCluster: { serviceAccountDir: sa } },
      host: "https://env.example:6443",
      namespace: "from-env",
      source: "KUBECONFIG",
    },
    {
      name: "in a pod (KUBECONFIG unset) the service account wins over ~/.kube/config",
      opts: { argv: [], env: { ...pod }, homeDir: home, inCluster: { serviceAccountDir: sa } },
      host: "https://10.96.0.1:443",
      namespace: "pod-ns",
      source: "in-cluster",
    },
    {
      name: "outside a pod ~/.kube/config",
      opts: { argv: [], env: {}, homeDir: home },
      host: "https://home.example:6443",
      namespace: "from-home",
      source: "home",
    },
    {
      name: "in a pod whose token cannot be read, ~/.kube/config",
      opts: { argv: [], env: { ...pod }, homeDir: home, inCluster: { serviceAccountDir: path.join(root, "missing") } },
      host: "https://home.example:6443",
      namespace: "from-home",
      source: "home",
    },
  ];
  it.each(cases)("$name", ({ opts, host, namespace, source }) => {
    const cc = getConfig(opts);
    expect(cc.config.host).toBe(host);
    expect(cc.namespace).toBe(namespace);
    expect(cc.source).toBe(source);
  });

  it("gives an unthrottled-by-default config controller-runtime's 20 QPS / burst 30, and keeps explicit values", () => {
    expect(getConfig({ argv: [], env: {}, homeDir: home }).config).toMatchObject({ qps: 20, burst: 30 });
    expect(getConfig({ argv: [], env: {}, homeDir: home, rest: { qps: 7, burst: 9 } }).config).toMatchObject({ qps: 7, burst: 9 });
    expect(getConfig({ argv: [], env: {}, homeDir: home, rest: { qps: -1 } }).config.qps).toBe(-1);
  });

  it("says everything it tried when nothing is configured", () => {
    let err: unknown;
    try {
      getConfig({ argv: [], env: { ...pod }, homeDir: emptyHome, inCluster: { serviceAccountDir: path.join(root, "missing") } });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).reason).toBe("EmptyConfig");
    expect((err as Error).message).toMatch(/--kubeconfig \(not set\), KUBECONFIG \(not set\), in-cluster \(unable to read service account token .*\), ~\/\.kube\/config/);
  });

  it("fails on an explicit --kubeconfig that does not exist, without falling back", () => {
    expect(() => getConfig({ argv: ["--kubeconfig=/nonexistent/kubeconfig"], env: { ...pod }, homeDir: home, inCluster: { serviceAccountDir: sa } })).toThrow(
      /error loading config file "\/nonexistent\/kubeconfig"/,
    );
  });

  it("KubeClient.fromConfig builds a client with the resolved namespace", async () => {
    const c = KubeClient.fromConfig({ argv: [], env: { ...pod }, homeDir: home, inCluster: { serviceAccountDir: sa } });
    try {
      expect(c.namespace).toBe("pod-ns");
      expect(c.config.host).toBe("https://10.96.0.1:443");
    } finally {
      await c.close();
    }
  });
});
