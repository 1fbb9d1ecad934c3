/**
 * What kubectl 1.35 prints for the subresources a simulated cluster cannot serve (logs, exec,
 * attach, port-forward, pod/service/node proxy): a sentence saying why, not "the server could not
 * find the requested resource".
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer, type RunningApiServer } from "../../src/apiserver/index.js";
import { Kubectl } from "./kubectl.js";

let api: RunningApiServer;
let k: Kubectl;

const NO_RUNTIME = "kubeloop simulates pods without a container runtime";

beforeAll(async () => {
  api = await startApiServer({ port: 0 });
  k = new Kubectl(api.kubeconfigPath);
  await k.ok(["run", "p", "--image=nginx"]);
  // port-forward checks the phase first; the bare API server has no kubelet to set it.
  await k.ok(["patch", "pod", "p", "--subresource=status", "--type=merge", "-p", '{"status":{"phase":"Running"}}']);
  await k.ok(["apply", "-f", await k.manifest("node.yaml", "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n")]);
}, 60_000);

afterAll(async () => {
  await api?.stop();
});

describe("unservable subresources", () => {
  it.each([
    [["logs", "p"], `Error from server (BadRequest): cannot read the logs of pod "p": ${NO_RUNTIME}, so its containers write no logs`],
    [["exec", "p", "--", "ls"], `Error from server (BadRequest): cannot exec into pod "p": ${NO_RUNTIME}, so there is no process to run a command in`],
    [["attach", "p"], `Error from server (BadRequest): cannot attach to pod "p": ${NO_RUNTIME}, so there is no process to attach to`],
    [["get", "--raw", "/api/v1/namespaces/default/pods/p/proxy/metrics"], `Error from server (BadRequest): cannot proxy to pod "p": ${NO_RUNTIME}, so nothing listens on its ports`],
    [
      ["get", "--raw", "/api/v1/namespaces/default/services/kubernetes/proxy/"],
      `Error from server (BadRequest): cannot proxy to service "kubernetes": ${NO_RUNTIME}, so nothing listens behind the service's endpoints`,
    ],
    [["get", "--raw", "/api/v1/nodes/n1/proxy/stats/summary"], 'Error from server (BadRequest): cannot proxy to node "n1": kubeloop simulates nodes, so there is no kubelet to proxy to'],
  ])("kubectl %j", async (args, message) => {
    const r = await k.run(args);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(message);
  });

  it("port-forward says why the connection cannot be made", async () => {
    const r = await k.run(["port-forward", "pod/p", "0:80"], undefined, 20_000);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`cannot port-forward to pod "p": ${NO_RUNTIME}, so nothing listens on its ports`);
  });

  it("a missing pod is still NotFound", async () => {
    const r = await k.run(["exec", "nope", "--", "ls"]);
    expect(r.stderr).toContain('Error from server (NotFound): pods "nope" not found');
  });
});
