/**
 * Issue 3's referee: stock kubectl v1.35 against the embedded API server on a free port.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer, type RunningApiServer } from "../../src/apiserver/index.js";
import { Kubectl } from "./kubectl.js";

let api: RunningApiServer;
let k: Kubectl;

beforeAll(async () => {
  api = await startApiServer({ port: 0 });
  k = new Kubectl(api.kubeconfigPath);
}, 60_000);

afterAll(async () => {
  await api?.stop();
});

const deploymentYaml = (replicas: number, image = "nginx:1.27") => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
  labels: { app: web }
spec:
  replicas: ${replicas}
  selector:
    matchLabels: { app: web }
  template:
    metadata:
      labels: { app: web }
    spec:
      containers:
      - name: web
        image: ${image}
        ports:
        - containerPort: 80
`;

describe("kubectl 1.35 against the embedded API server", () => {
  it("api-resources lists the built-in kinds with short names", async () => {
    const out = await k.ok(["api-resources"]);
    expect(out).toMatch(/^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND/m);
    expect(out).toMatch(/^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment/m);
    expect(out).toMatch(/^pods\s+po\s+v1\s+true\s+Pod/m);
    expect(out).toMatch(/^namespaces\s+ns\s+v1\s+false\s+Namespace/m);
  });

  it("get ns shows the initial namespaces", async () => {
    const out = await k.ok(["get", "ns"]);
    expect(out).toMatch(/^NAME\s+STATUS\s+AGE/m);
    for (const ns of ["default", "kube-system", "kube-public", "kube-node-lease"]) expect(out).toMatch(new RegExp(`^${ns}\\s+Active`, "m"));
  });

  it("create deployment (a protobuf body), configmap and secret", async () => {
    const r = await k.run(["create", "deployment", "pb", "--image=nginx", "--replicas=2"]);
    expect(r.stderr).toBe("");
    expect(r.stdout.trim()).toBe("deployment.apps/pb created");
    const json = JSON.parse(await k.ok(["get", "deployment", "pb", "-o", "json"]));
    expect(json.spec.replicas).toBe(2);
    expect(json.spec.template.spec.containers[0].image).toBe("nginx");
    expect(json.spec.strategy.rollingUpdate).toEqual({ maxSurge: "25%", maxUnavailable: "25%" });
    expect(json.metadata.generation).toBe(1);
    expect((await k.ok(["create", "configmap", "cfg", "--from-literal=a=1"])).trim()).toBe("configmap/cfg created");
    expect((await k.ok(["create", "secret", "generic", "sec", "--from-literal=pw=s3cret"])).trim()).toBe("secret/sec created");
    const sec = JSON.parse(await k.ok(["get", "secret", "sec", "-o", "json"]));
    expect(Buffer.from(sec.data.pw, "base64").toString()).toBe("s3cret");
    expect(sec.type).toBe("Opaque");
  });

  it("apply creates, is unchanged, then configured, with nothing on stderr", async () => {
    const f1 = await k.manifest("web1.yaml", deploymentYaml(1));
    let r = await k.run(["apply", "-f", f1]);
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout.trim()).toBe("deployment.apps/web created");
    r = await k.run(["apply", "-f", f1]);
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout.trim()).toBe("deployment.apps/web unchanged");
    const f2 = await k.manifest("web2.yaml", deploymentYaml(3, "nginx:1.28"));
    r = await k.run(["apply", "-f", f2]);
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout.trim()).toBe("deployment.apps/web configured");
    const json = JSON.parse(await k.ok(["get", "deploy", "web", "-o", "json"]));
    expect(json.spec.replicas).toBe(3);
    expect(json.spec.template.spec.containers[0].image).toBe("nginx:1.28");
    expect(json.metadata.generation).toBe(2);
  });

  it("get prints upstream's headers, and -o wide adds columns", async () => {
    const out = await k.ok(["get", "deploy"]);
    expect(out).toMatch(/^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE/m);
    expect(out).toMatch(/^web\s+0\/3\s+0\s+0\s+\d+s/m);
    const wide = await k.ok(["get", "deploy", "-o", "wide"]);
    expect(wide).toMatch(/^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR/m);
    expect(wide).toMatch(/web\s+nginx:1\.28\s+app=web/);
    expect(await k.ok(["get", "cm", "cfg"])).toMatch(/^cfg\s+1\s+\d+s/m);
    expect(await k.ok(["get", "svc"])).toMatch(/^kubernetes\s+ClusterIP\s+10\.96\.0\.1\s+<none>\s+443\/TCP/m);
  });

  it("scale goes through the scale subresource", async () => {
    expect((await k.ok(["scale", "deployment", "web", "--replicas=5"])).trim()).toBe("deployment.apps/web scaled");
    expect(JSON.parse(await k.ok(["get", "deploy", "web", "-o", "json"])).spec.replicas).toBe(5);
  });

  it("patch --type=merge|json|strategic", async () => {
    await k.ok(["patch", "deploy", "web", "--type=merge", "-p", '{"spec":{"replicas":2}}']);
    await k.ok(["patch", "deploy", "web", "--type=json", "-p", '[{"op":"add","path":"/spec/minReadySeconds","value":3}]']);
    await k.ok(["patch", "deploy", "web", "-p", '{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox"}]}}}}']);
    const json = JSON.parse(await k.ok(["get", "deploy", "web", "-o", "json"]));
    expect(json.spec.replicas).toBe(2);
    expect(json.spec.minReadySeconds).toBe(3);
    expect(json.spec.template.spec.containers.map((c: { name: string }) => c.name).sort()).toEqual(["sidecar", "web"]);
  });

  it("replace of a stale object fails with the Conflict message", async () => {
    const stale = await k.ok(["get", "cm", "cfg", "-o", "yaml"]);
    await k.ok(["patch", "cm", "cfg", "--type=merge", "-p", '{"data":{"b":"2"}}']);
    const f = await k.manifest("stale.yaml", stale);
    const r = await k.run(["replace", "-f", f]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      'Error from server (Conflict): error when replacing "' +
        f +
        '": Operation cannot be fulfilled on configmaps "cfg": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it("delete of an object with a finalizer waits for the finalizer", async () => {
    await k.ok(["create", "configmap", "held"]);
    await k.ok(["patch", "cm", "held", "--type=merge", "-p", '{"metadata":{"finalizers":["example.com/hold"]}}']);
    const r = await k.run(["delete", "cm", "held", "--wait=false"]);
    expect(r.code).toBe(0);
    const held = JSON.parse(await k.ok(["get", "cm", "held", "-o", "json"]));
    expect(held.metadata.deletionTimestamp).toBeTruthy();
    const waiter = k.run(["wait", "--for=delete", "cm/held", "--timeout=20s"]);
    await k.ok(["patch", "cm", "held", "--type=json", "-p", '[{"op":"remove","path":"/metadata/finalizers"}]']);
    const w = await waiter;
    expect(w.code).toBe(0);
    expect((await k.run(["get", "cm", "held"])).stderr).toContain('configmaps "held" not found');
  });

  it("create --dry-run=server leaves nothing behind and sends no watch event", async () => {
    // Not --watch-only: kubectl lists first and watches from the list's resourceVersion, so
    // once the list is printed no later event can be missed.
    const watch = k.stream(["get", "cm", "-w", "--output-watch-events"]);
    await watch.waitFor((lines) => lines.some((l) => l.includes("cfg")));
    const r = await k.run(["create", "configmap", "ghost", "--dry-run=server", "-o", "name"]);
    expect(r.stdout.trim()).toBe("configmap/ghost");
    await k.ok(["create", "configmap", "marker"]);
    await watch.waitFor((lines) => lines.some((l) => l.includes("marker")));
    const out = await watch.stop();
    expect(out.stdout).not.toContain("ghost");
    expect((await k.run(["get", "cm", "ghost"])).stderr).toContain("not found");
  });

  it("get -w prints updates as table rows", async () => {
    const watch = k.stream(["get", "deploy", "web", "-w"]);
    await watch.waitFor((lines) => lines.some((l) => /^web\s+0\/2/.test(l)));
    await k.ok(["scale", "deploy", "web", "--replicas=4"]);
    await watch.waitFor((lines) => lines.some((l) => /^web\s+0\/4/.test(l)));
    const out = await watch.stop();
    expect(out.stdout.split("\n")[0]).toMatch(/^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE/);
  });

  it("get --chunk-size=2 returns everything", async () => {
    for (let i = 0; i < 7; i++) await k.ok(["create", "configmap", `chunk-${i}`, "-n", "kube-public"]);
    const out = await k.ok(["get", "cm", "-n", "kube-public", "--chunk-size=2", "-o", "name"]);
    const names = out.trim().split("\n").filter((l) => l.includes("chunk-"));
    expect(names).toHaveLength(7);
  });

  it("explain deployment.spec.strategy", async () => {
    const r = await k.run(["explain", "deployment.spec.strategy"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/GROUP:\s+apps/);
    expect(r.stdout).toMatch(/FIELD: strategy <DeploymentStrategy>/);
    expect(r.stdout).toMatch(/rollingUpdate\s+<RollingUpdateDeployment>/);
  });

  it("bad input gets upstream's errors", async () => {
    const r = await k.run(["create", "deployment", "Bad_Name", "--image=nginx"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('Deployment.apps "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name"');
    const nf = await k.run(["get", "deploy", "nope"]);
    expect(nf.stderr.trim()).toBe('Error from server (NotFound): deployments.apps "nope" not found');
  });
});
