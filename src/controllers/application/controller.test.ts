/**
 * Fixture tests in the style of sample-controller's controller_test.go: objects go into the
 * informer caches directly (informers not started) and into a FakeClient, one key is synced, and
 * the client's write actions are compared, in order, with the expected ones.
 */
import type { Deployment } from "../../apimachinery/api/apps/v1.js";
import type { Service } from "../../apimachinery/api/core/v1.js";
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../apimachinery/clock.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { StatusError } from "../../apimachinery/errors.js";
import type { ResourceDescriptor } from "../../apimachinery/resource.js";
import type { KubeObject, TypedObject } from "../../apimachinery/types.js";
import { builtin } from "../../client/typed.js";
import type { Controller } from "../../runtime/controller.js";
import type { Action } from "../../testing/fakeclient.js";
import { ControllerFixture } from "../../testing/fixture.js";
import { setupApplicationController } from "./controller.js";
import { applicationLabels, newDeployment, newService } from "./desired.js";
import { computeStatus } from "./status.js";
import { FIELD_MANAGER, PAUSED_ANNOTATION, applications, type Application } from "./types.js";

const NOW = Date.UTC(2026, 0, 1);
let uid = 0;

function newApp(name: string, replicas = 1, extra: Partial<Application["spec"]> = {}): Application {
  uid++;
  return {
    apiVersion: "kubeloop.dev/v1alpha1",
    kind: "Application",
    metadata: { name, namespace: "default", uid: `app-uid-${uid}`, generation: 1, resourceVersion: "10" },
    spec: { image: "nginx:1.27", replicas, ...extra },
  };
}

/** What the API server would have stored: defaults filled in, a UID, a status from the Deployment controller. */
function serverDefaulted(d: Deployment, status?: Deployment["status"]): Deployment {
  const out = deepCopy(d);
  out.metadata = { ...out.metadata, uid: `dep-uid-${++uid}`, resourceVersion: "20", generation: 1 };
  const c = out.spec!.template.spec!.containers[0];
  c.imagePullPolicy = "IfNotPresent";
  c.terminationMessagePath = "/dev/termination-log";
  c.terminationMessagePolicy = "File";
  c.resources ??= {};
  out.spec!.template.spec!.restartPolicy = "Always";
  out.spec!.template.spec!.dnsPolicy = "ClusterFirst";
  out.spec!.revisionHistoryLimit = 10;
  out.spec!.progressDeadlineSeconds = 600;
  out.status = status ?? {};
  return out;
}

function serviceDefaulted(s: Service): Service {
  const out = deepCopy(s);
  out.metadata = { ...out.metadata, uid: `svc-uid-${++uid}`, resourceVersion: "30" };
  out.spec!.clusterIP = "10.96.0.10";
  out.spec!.clusterIPs = ["10.96.0.10"];
  out.spec!.sessionAffinity = "None";
  out.spec!.ipFamilies = ["IPv4"];
  out.spec!.ipFamilyPolicy = "SingleStack";
  out.spec!.internalTrafficPolicy = "Cluster";
  return out;
}

const readyStatus: Deployment["status"] = {
  observedGeneration: 1,
  replicas: 1,
  updatedReplicas: 1,
  readyReplicas: 1,
  availableReplicas: 1,
  conditions: [
    { type: "Available", status: "True", reason: "MinimumReplicasAvailable", message: "Deployment has minimum availability." },
    { type: "Progressing", status: "True", reason: "NewReplicaSetAvailable", message: 'ReplicaSet "web-abc" has successfully progressed.' },
  ],
};

/**
 * upstream's newFixture, over the one harness (ControllerFixture): objects listed here are seeded
 * into the fake API and the caches; the listed objects take the stored resourceVersion and
 * creationTimestamp, so expectations built from them match what the controller sees.
 */
class Fixture {
  readonly f = new ControllerFixture({ clock: new FakeClock(NOW) });
  apps: Application[] = [];
  deployments: Deployment[] = [];
  services: Service[] = [];
  labelSelector?: string;

  get client() {
    return this.f.client;
  }
  get recorder() {
    return this.f.recorder;
  }
  get clock() {
    return this.f.clock;
  }

  newController(): Controller {
    const c = setupApplicationController(this.f.manager, { labelSelector: this.labelSelector });
    const load = <T extends TypedObject>(r: ResourceDescriptor<T>, objs: T[]) => {
      for (const o of objs) {
        const input = deepCopy(o);
        delete (input.metadata as { resourceVersion?: string }).resourceVersion;
        const [stored] = this.f.seed(r, input);
        o.metadata = { ...o.metadata, resourceVersion: stored.metadata?.resourceVersion, creationTimestamp: stored.metadata?.creationTimestamp };
        o.apiVersion = stored.apiVersion;
        o.kind = stored.kind;
      }
    };
    load(applications, this.apps);
    load(builtin.deployments, this.deployments);
    load(builtin.services, this.services);
    return c;
  }

  async run(key: string, expectError = false): Promise<{ actions: Action[]; error?: unknown; controller: Controller }> {
    const c = this.newController();
    let error: unknown;
    try {
      await this.f.reconcile(c, key);
    } catch (err) {
      error = err;
    }
    if (expectError) expect(error, "expected an error syncing the Application").toBeDefined();
    else expect(error).toBeUndefined();
    return { actions: this.f.writeActions(), error, controller: c };
  }
}

/** verb resource[/subresource] name, as a compact action signature. */
function sig(a: Action): string {
  return `${a.verb} ${a.resource}${a.subresource ? `/${a.subresource}` : ""} ${a.name ?? (a.object?.metadata?.name as string | undefined) ?? ""}`.trim();
}

describe("ApplicationController.syncHandler (sample-controller fixtures)", () => {
  it("creates the Deployment and writes status (TestCreatesDeployment)", async () => {
    const f = new Fixture();
    const app = newApp("web", 1);
    f.apps.push(app);
    const { actions } = await f.run("default/web");
    expect(actions.map(sig)).toEqual(["create deployments web", "update applications/status web"]);
    expect(actions[0].object).toEqual(newDeployment(app) as unknown as KubeObject);
    expect(actions[0].options).toMatchObject({ fieldManager: FIELD_MANAGER });
    expect(actions[1].options).toMatchObject({ fieldManager: FIELD_MANAGER });
    const status = (actions[1].object as unknown as Application).status!;
    expect(status.observedGeneration).toBe(1);
    expect(status.selector).toBe("app.kubernetes.io/instance=web,app.kubernetes.io/name=web");
    expect(status.conditions?.map((c) => `${c.type}=${c.status}`)).toEqual(["Available=Unknown", "Progressing=Unknown", "ReconcileError=False"]);
    expect(f.recorder.events).toEqual(["Normal Synced Application synced successfully"]);
  });

  it("creates the Deployment and the Service when spec.service is set", async () => {
    const f = new Fixture();
    const app = newApp("web", 3, { service: { port: 80 } });
    f.apps.push(app);
    const { actions } = await f.run("default/web");
    expect(actions.map(sig)).toEqual(["create deployments web", "create services web", "update applications/status web"]);
    const svc = actions[1].object as unknown as Service;
    expect(svc.spec?.selector).toEqual(applicationLabels(app));
    expect(svc.spec?.selector).toEqual((actions[0].object as unknown as Deployment).spec?.template.metadata?.labels);
    expect(svc.spec?.ports).toEqual([{ port: 80, targetPort: 80, protocol: "TCP" }]);
    expect(svc.spec?.type).toBe("ClusterIP");
    expect(svc.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "Application", name: "web", uid: app.metadata!.uid, controller: true });
    expect((actions[2].object as unknown as Application).status?.serviceName).toBe("web");
  });

  it("makes zero writes in steady state (TestDoNothing, against server-defaulted children)", async () => {
    const f = new Fixture();
    const app = newApp("web", 1, { service: { port: 80, targetPort: 8080 }, ports: [{ containerPort: 8080 }], env: [{ name: "A", value: "1" }], resources: { requests: { cpu: "500m", memory: "64Mi" } } });
    const d = serverDefaulted(newDeployment(app), readyStatus);
    // The server canonicalizes quantities ("500m" stays, "0.5" would become "500m").
    d.spec!.template.spec!.containers[0].resources = { requests: { cpu: "0.5", memory: "64Mi" } };
    const s = serviceDefaulted(newService(app)!);
    app.status = computeStatus(app, { deployment: d, serviceName: "web" }, NOW - 60_000);
    f.apps.push(app);
    f.deployments.push(d);
    f.services.push(s);
    const { actions } = await f.run("default/web");
    expect(actions).toEqual([]);
    expect(f.client.actions()).toEqual([]); // not even a read: everything comes from the caches
    expect(f.recorder.events).toEqual([]);
  });

  it("ignores labels, annotations, sidecars and server defaults it does not own", async () => {
    const f = new Fixture();
    const app = newApp("web", 2);
    const d = serverDefaulted(newDeployment(app), readyStatus);
    d.metadata!.labels = { ...d.metadata!.labels, team: "a" };
    d.metadata!.annotations = { "deployment.kubernetes.io/revision": "1" };
    d.spec!.template.spec!.containers.push({ name: "sidecar", image: "envoy" });
    app.status = computeStatus(app, { deployment: d, noService: true }, NOW);
    f.apps.push(app);
    f.deployments.push(d);
    const { actions } = await f.run("default/web");
    expect(actions).toEqual([]);
  });

  it("updates the Deployment's replicas (TestUpdateDeployment)", async () => {
    const f = new Fixture();
    const app = newApp("web", 1);
    const d = serverDefaulted(newDeployment(app), readyStatus);
    app.status = computeStatus(app, { deployment: d, noService: true }, NOW);
    const changed = deepCopy(app);
    changed.spec!.replicas = 2;
    changed.metadata = { ...changed.metadata, generation: 2 };
    f.apps.push(changed);
    f.deployments.push(d);
    const { actions } = await f.run("default/web");
    expect(actions.map(sig)).toEqual(["update deployments web", "update applications/status web"]);
    const updated = actions[0].object as unknown as Deployment;
    expect(updated.spec?.replicas).toBe(2);
    // Only owned fields change: the server's defaults and the selector are kept as they were.
    const expected = deepCopy(d);
    expected.spec!.replicas = 2;
    expect(updated).toEqual(expected);
    expect((actions[1].object as unknown as Application).status?.observedGeneration).toBe(2);
  });

  it("updates the container image and keeps server-defaulted container fields", async () => {
    const f = new Fixture();
    const app = newApp("web", 1);
    const d = serverDefaulted(newDeployment(app), readyStatus);
    app.status = computeStatus(app, { deployment: d, noService: true }, NOW);
    app.spec!.image = "nginx:1.28";
    f.apps.push(app);
    f.deployments.push(d);
    const { actions } = await f.run("default/web");
    expect(actions.map(sig)).toEqual(["update deployments web"]);
    const c = (actions[0].object as unknown as Deployment).spec!.template.spec!.containers[0];
    expect(c.image).toBe("nginx:1.28");
    expect(c.terminationMessagePath).toBe("/dev/termination-log");
  });

  it("fails when the Deployment is not controlled by the Application (TestNotControlledByUs)", async () => {
    const f = new Fixture();
    const app = newApp("web", 1);
    const d = serverDefaulted(newDeployment(app));
    d.metadata!.ownerReferences = [];
    f.apps.push(app);
    f.deployments.push(d);
    const { actions, error } = await f.run("default/web", true);
    expect((error as Error).message).toBe('Resource "web" already exists and is not managed by Application');
    // No write to the foreign Deployment; the failure is recorded in status and as a Warning.
    expect(actions.map(sig)).toEqual(["update applications/status web"]);
    const cond = (actions[0].object as unknown as Application).status?.conditions?.find((c) => c.type === "ReconcileError");
    expect(cond).toMatchObject({ status: "True", reason: "ErrResourceExists", message: 'Resource "web" already exists and is not managed by Application' });
    expect(f.recorder.events).toEqual(['Warning ErrResourceExists Resource "web" already exists and is not managed by Application']);
  });

  it("fails when a Deployment of that name is controlled by another Application (UID differs)", async () => {
    const f = new Fixture();
    const app = newApp("web", 1);
    const other = newApp("web", 1); // same name, another UID: a deleted and recreated Application
    const d = serverDefaulted(newDeployment(other));
    f.apps.push(app);
    f.deployments.push(d);
    const { actions } = await f.run("default/web", true);
    expect(actions.map(sig)).toEqual(["update applications/status web"]);
  });

  it("fails when the Service is owned by someone else, after taking care of the Deployment", async () => {
    const f = new Fixture();
    const app = newApp("web", 1, { service: { port: 80 } });
    const svc = serviceDefaulted(newService(app)!);
    svc.metadata!.ownerReferences = undefined;
    f.apps.push(app);
    f.services.push(svc);
    const { actions, error } = await f.run("default/web", true);
    expect((error as Error).message).toBe('Resource "web" already exists and is not managed by Application');
    expect(actions.map(sig)).toEqual(["create deployments web", "update applications/status web"]);
  });

  it("uses spec.deploymentName for the children's names", async () => {
    const f = new Fixture();
    const app = newApp("web", 1, { deploymentName: "web-deploy", service: { port: 80, type: "NodePort" } });
    f.apps.push(app);
    const { actions } = await f.run("default/web");
    expect(actions.map(sig)).toEqual(["create deployments web-deploy", "create services web-deploy", "update applications/status web"]);
    expect((actions[1].object as unknown as Service).spec?.type).toBe("NodePort");
  });

  it("does nothing for an Application that no longer exists", async () => {
    const f = new Fixture();
    const { actions } = await f.run("default/gone");
    expect(actions).toEqual([]);
  });

  it("stops reconciling under kubeloop.dev/paused=true and says so in a condition, once", async () => {
    const f = new Fixture();
    const app = newApp("web", 1);
    app.metadata!.annotations = { [PAUSED_ANNOTATION]: "true" };
    f.apps.push(app);
    const { actions } = await f.run("default/web");
    expect(actions.map(sig)).toEqual(["update applications/status web"]);
    const paused = (actions[0].object as unknown as Application).status!;
    expect(paused.conditions).toEqual([expect.objectContaining({ type: "Paused", status: "True", reason: "ReconciliationPaused" })]);

    const g = new Fixture();
    const again = deepCopy(app);
    again.status = paused;
    g.apps.push(again);
    const second = await g.run("default/web");
    expect(second.actions).toEqual([]);
  });

  it("skips Applications outside the label selector", async () => {
    const f = new Fixture();
    f.labelSelector = "team=a";
    f.apps.push(newApp("web", 1));
    const { actions } = await f.run("default/web");
    expect(actions).toEqual([]);
  });

  it("updates the Service's port and keeps the allocated clusterIP", async () => {
    const f = new Fixture();
    const app = newApp("web", 1, { service: { port: 80 } });
    const d = serverDefaulted(newDeployment(app), readyStatus);
    const s = serviceDefaulted(newService(app)!);
    app.status = computeStatus(app, { deployment: d, serviceName: "web" }, NOW);
    app.spec!.service = { port: 8080 };
    f.apps.push(app);
    f.deployments.push(d);
    f.services.push(s);
    const { actions } = await f.run("default/web");
    expect(actions.map(sig)).toEqual(["update services web"]);
    const svc = actions[0].object as unknown as Service;
    expect(svc.spec?.ports).toEqual([{ port: 8080, targetPort: 8080, protocol: "TCP" }]);
    expect(svc.spec?.clusterIP).toBe("10.96.0.10");
  });

  it("mirrors the Deployment's conditions and keeps lastTransitionTime while a status holds", async () => {
    const f = new Fixture();
    const app = newApp("web", 1);
    const d = serverDefaulted(newDeployment(app), { replicas: 1, updatedReplicas: 1 });
    app.status = computeStatus(app, { deployment: d, noService: true }, NOW - 120_000);
    f.apps.push(app);
    f.deployments.push(serverDefaulted(newDeployment(app), readyStatus));
    f.deployments[0].metadata = { ...f.deployments[0].metadata, uid: d.metadata!.uid };
    const { actions } = await f.run("default/web");
    expect(actions.map(sig)).toEqual(["update applications/status web"]);
    const st = (actions[0].object as unknown as Application).status!;
    expect(st.availableReplicas).toBe(1);
    const avail = st.conditions!.find((c) => c.type === "Available")!;
    expect(avail).toMatchObject({ status: "True", reason: "MinimumReplicasAvailable", lastTransitionTime: "2026-01-01T00:00:00Z" });
    const rec = st.conditions!.find((c) => c.type === "ReconcileError")!;
    expect(rec.lastTransitionTime).toBe("2025-12-31T23:58:00Z");
  });
});

describe("the Application controller's watches", () => {
  /** Runs the controller on its informers and returns the requests it reconciled. */
  async function reconciled(f: Fixture): Promise<string[]> {
    const seen: string[] = [];
    f.client.prependReactor("*", "*", (a) => {
      if (a.verb === "update" && a.subresource === "status") seen.push(`status ${a.name}`);
      return { handled: false };
    });
    f.newController();
    await f.f.start();
    await f.f.settle();
    await f.f.stop();
    return seen;
  }

  it("a Deployment's controller reference of kind Application enqueues that Application; other owners do not", async () => {
    const f = new Fixture();
    const app = newApp("web", 1);
    f.apps.push(app);
    const owned = serverDefaulted(newDeployment(app));
    const foreign = serverDefaulted(newDeployment(newApp("other", 1)));
    foreign.metadata!.name = "foreign";
    foreign.metadata!.ownerReferences![0].kind = "Foo";
    f.deployments.push(owned, foreign);
    expect(await reconciled(f)).toEqual(["status web"]);
  });

  it("Applications outside the selector, or paused ones, are not enqueued by their own events", async () => {
    const f = new Fixture();
    f.labelSelector = "team=a";
    const outside = newApp("b", 1);
    const inside = newApp("a", 1);
    inside.metadata!.labels = { team: "a" };
    const paused = newApp("p", 1);
    paused.metadata!.labels = { team: "a" };
    paused.metadata!.annotations = { [PAUSED_ANNOTATION]: "true" };
    f.apps.push(outside, inside, paused);
    expect(await reconciled(f)).toEqual(["status a"]);
  });
});

describe("the Application controller running", () => {
  it("retries a status conflict and converges (rate-limited requeue on the fake clock)", async () => {
    const f = new ControllerFixture({ clock: new FakeClock(NOW) });
    const app = newApp("web", 1);
    app.metadata = { ...app.metadata, resourceVersion: undefined };
    f.seedAPI(applications, app);
    f.client.failNth("update", "applications", 1, StatusError.conflict({ group: "kubeloop.dev", resource: "applications" }, "web", "the object has been modified"));
    setupApplicationController(f.manager, { workers: 1 });
    await f.start();
    const statusWrites = () => f.writeActions().filter((a) => a.subresource === "status");
    await f.eventually(() => statusWrites().length >= 2);
    const stored = await f.client.resource(applications, "default").get("web");
    expect(stored.status?.conditions?.find((x) => x.type === "ReconcileError")?.status).toBe("False");
    const writes = f.writeActions().map(sig);
    // First attempt: Deployment created, status 409. Retry: the Deployment is in the cache now; status written.
    expect(writes.slice(0, 3)).toEqual(["create deployments web", "update applications/status web", "update applications/status web"]);
    expect(writes.filter((w) => w.startsWith("create deployments"))).toHaveLength(1);
    await f.stop();
  });
});
