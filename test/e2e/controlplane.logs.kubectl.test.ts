/**
 * pods/log end to end with the real kubectl: the simulated kubelet's containers' output (echo
 * lines of `sh -c` programs) through `kubectl logs pod/x`, `job/x`, `-c`, `--tail`,
 * `--timestamps`, `--previous`, and upstream's errors.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { RunningControlPlane } from "../../src/controlplane/index.js";
import type { Kubectl } from "./kubectl.js";
import { eventually, startTestControlPlane } from "./controlplane-env.js";

let cp: RunningControlPlane;
let k: Kubectl;

beforeAll(async () => {
  ({ cp, k } = await startTestControlPlane());
}, 60_000);

afterAll(async () => {
  await cp?.stop();
});

async function phase(pod: string): Promise<string> {
  return (await k.ok(["get", "pod", pod, "-o", "jsonpath={.status.phase}"])).trim();
}

it("kubectl logs pod/x prints the echo lines; --tail and --timestamps", async () => {
  await k.ok(["run", "hello", "--image=busybox", "--restart=Never", "--env=WHO=world", "--", "sh", "-c", 'echo "hello $WHO"; echo second; echo third']);
  await eventually("the pod to succeed", async () => ((await phase("hello")) === "Succeeded" ? true : undefined));
  expect(await k.ok(["logs", "pod/hello"])).toBe("hello world\nsecond\nthird\n");
  expect(await k.ok(["logs", "hello", "--tail=1"])).toBe("third\n");
  expect(await k.ok(["logs", "hello", "--tail=2", "--timestamps"])).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z second\n\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z third\n$/);
  expect(await k.ok(["logs", "hello", "--limit-bytes=7"])).toBe("hello w");
}, 60_000);

it("kubectl logs job/x reads the job's pod", async () => {
  await k.ok(["create", "job", "greet", "--image=busybox", "--", "sh", "-c", "echo from the job"]);
  const r = await k.run(["wait", "--for=condition=Complete", "job/greet", "--timeout=60s"], undefined, 70_000);
  expect(r.stderr).toBe("");
  expect(await k.ok(["logs", "job/greet"])).toBe("from the job\n");
}, 90_000);

it("-c picks a container; without it the server names the choices (kubectl defaults to the first)", async () => {
  const manifest = await k.manifest(
    "two.yaml",
    `apiVersion: v1
kind: Pod
metadata:
  name: two
spec:
  restartPolicy: Never
  containers:
  - name: a
    image: busybox
    command: ["sh", "-c", "echo from a"]
  - name: b
    image: busybox
    command: ["sh", "-c", "echo from b"]
`,
  );
  await k.ok(["apply", "-f", manifest]);
  await eventually("the pod to succeed", async () => ((await phase("two")) === "Succeeded" ? true : undefined));
  expect(await k.ok(["logs", "two", "-c", "b"])).toBe("from b\n");
  // kubectl reads the containers' logs from a Go map: in no set order.
  const all = (await k.ok(["logs", "two", "--all-containers", "--prefix"])).trimEnd().split("\n");
  expect(all.sort()).toEqual(["[pod/two/a] from a", "[pod/two/b] from b"]);
  const raw = await k.run(["get", "--raw", "/api/v1/namespaces/default/pods/two/log"]);
  expect(raw.stderr).toContain("a container name must be specified for pod two, choose one of: [a b]");
  const bad = await k.run(["logs", "two", "-c", "zz"]);
  expect(bad.stderr.trim()).toBe("error: container zz is not valid for pod two");
}, 60_000);

it("a container not started yet, and --previous of one that never restarted", async () => {
  const manifest = await k.manifest(
    "gated.yaml",
    `apiVersion: v1
kind: Pod
metadata:
  name: gated
spec:
  schedulingGates: [{ name: example.com/hold }]
  containers:
  - name: c
    image: busybox
    command: ["sh", "-c", "echo never"]
`,
  );
  await k.ok(["apply", "-f", manifest]);
  const unscheduled = await k.run(["logs", "gated"]);
  expect(unscheduled.stderr.trim()).toBe("Error from server (BadRequest): pod gated does not have a host assigned");
  const prev = await k.run(["logs", "hello", "--previous"]);
  expect(prev.stderr.trim()).toBe('Error from server (BadRequest): previous terminated container "hello" in pod "hello" not found');
  const raw = await k.run(["get", "--raw", "/api/v1/namespaces/default/pods/hello/log?tailLines=-1"]);
  expect(raw.stderr).toContain('PodLogOptions "hello" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0');
}, 60_000);
