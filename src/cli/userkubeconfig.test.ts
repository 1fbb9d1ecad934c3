import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { kubeconfigFor } from "../apiserver/kubeconfig.js";
import { choosePort } from "./upport.js";
import { defaultKubeconfigFile, mergeKubeconfig, removeFromKubeconfig } from "./userkubeconfig.js";

const dir = mkdtempSync(path.join(tmpdir(), "kubeloop-userkc-"));
let n = 0;
function file(text?: string): string {
  const p = path.join(dir, `config-${++n}`);
  if (text !== undefined) writeFileSync(p, text);
  return p;
}
const generated = file(kubeconfigFor("https://127.0.0.1:6443", "default", { caPem: "CA", clientCertPem: "CERT", clientKeyPem: "KEY" }));

interface Kc {
  "current-context": string;
  clusters?: Array<{ name: string; cluster: { server: string } }>;
  users?: Array<{ name: string }>;
  contexts?: Array<{ name: string }>;
}
const read = (p: string) => parse(readFileSync(p, "utf8")) as Kc;
const names = (l: Array<{ name: string }> | undefined) => (l ?? []).map((e) => e.name);

const work = "apiVersion: v1\nkind: Config\ncurrent-context: work\nclusters:\n- name: work\n  cluster: {server: https://work}\nusers:\n- name: work\n  user: {}\ncontexts:\n- name: work\n  context: {cluster: work, user: work}\n";

describe("the user's kubeconfig", () => {
  it("is KUBECONFIG's first existing file, else its last entry, else ~/.kube/config (clientcmd)", () => {
    const existing = file("");
    expect(defaultKubeconfigFile({ KUBECONFIG: [path.join(dir, "missing"), existing].join(path.delimiter) }, "/home/u")).toBe(existing);
    expect(defaultKubeconfigFile({ KUBECONFIG: ["/nope/a", "/nope/b"].join(path.delimiter) }, "/home/u")).toBe("/nope/b");
    expect(defaultKubeconfigFile({}, "/home/u")).toBe(path.join("/home/u", ".kube", "config"));
  });

  it.each<[string, string | undefined]>([
    ["a missing file", undefined],
    ["an empty file", ""],
    ["a file with other contexts", work],
  ])("merges into %s, switches context, and removes cleanly", (_what, text) => {
    const target = file(text);
    mergeKubeconfig({ from: generated, into: target, switchContext: true });
    const merged = read(target);
    expect(merged["current-context"]).toBe("kubeloop");
    expect(names(merged.contexts)).toContain("kubeloop");
    expect(merged.clusters?.find((c) => c.name === "kubeloop")?.cluster.server).toBe("https://127.0.0.1:6443");
    expect(statSync(target).mode & 0o777).toBe(0o600);
    // Merging again (a restart) replaces, never duplicates.
    mergeKubeconfig({ from: generated, into: target, switchContext: true });
    expect(names(read(target).clusters).filter((x) => x === "kubeloop")).toHaveLength(1);
    removeFromKubeconfig(target, "kubeloop");
    const after = read(target);
    expect(names(after.contexts)).not.toContain("kubeloop");
    expect(names(after.users)).not.toContain("kubeloop");
    expect(after["current-context"]).toBe(text === work ? "work" : "");
    if (text === work) expect(names(after.contexts)).toEqual(["work"]);
  });

  it("without switchContext leaves the current context alone", () => {
    const target = file(work);
    mergeKubeconfig({ from: generated, into: target, switchContext: false });
    expect(read(target)["current-context"]).toBe("work");
    expect(names(read(target).contexts)).toEqual(["work", "kubeloop"]);
  });

  it("does not touch a current-context the user switched to meanwhile", () => {
    const target = file(work);
    mergeKubeconfig({ from: generated, into: target, switchContext: true });
    writeFileSync(target, readFileSync(target, "utf8").replace("current-context: kubeloop", "current-context: work"));
    removeFromKubeconfig(target, "kubeloop");
    expect(read(target)["current-context"]).toBe("work");
  });

  it("refuses to rewrite a file that is not a kubeconfig", () => {
    const target = file("- just\n- a list\n");
    expect(() => mergeKubeconfig({ from: generated, into: target, switchContext: true })).toThrow(/not a kubeconfig/);
    expect(readFileSync(target, "utf8")).toBe("- just\n- a list\n");
  });
});

describe("up's port", () => {
  it("is the preferred one when free, any free port when it is taken, and what was asked otherwise", async () => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", () => r()));
    const taken = (srv.address() as { port: number }).port;
    try {
      expect(await choosePort("127.0.0.1", -1, taken)).toBe(0);
      expect(await choosePort("127.0.0.1", 1234, taken)).toBe(1234);
    } finally {
      await new Promise((r) => srv.close(r));
    }
    expect(await choosePort("127.0.0.1", -1, taken)).toBe(taken);
  });
});
