import { readFileSync } from "node:fs";
import type { CustomResourceDefinition } from "../../apimachinery/api/apiextensions/v1.js";
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../apimachinery/clock.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { builtin } from "../../client/typed.js";
import { FakeClient } from "../../testing/fakeclient.js";
import { applicationCRDPath, CRDNotEstablishedError, installApplicationCRD, loadApplicationCRD } from "./crd.js";
import { FIELD_MANAGER } from "./types.js";

const crds = builtin.customResourceDefinitions;

/** Marks the stored CRD with a condition, as the API server's establishing loop would. */
function setCondition(client: FakeClient, type: string, status: string, reason = "Test"): void {
  const cur = client.tracker.get(crds, "", "applications.kubeloop.dev");
  const next = deepCopy(cur);
  next.status = { conditions: [{ type, status, reason, message: `${type} ${status}` }] };
  client.tracker.update(crds, "", next);
}

async function settle(clock: FakeClock, done: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !done(); i++) {
    await new Promise((r) => setImmediate(r));
    await clock.advance(100);
  }
}

describe("the Application CRD", () => {
  it("is the declaration's manifest; applicationCRDPath finds the generated deploy/crds file relative to the module", () => {
    const path = applicationCRDPath();
    expect(path.endsWith("deploy/crds/applications.kubeloop.dev.yaml")).toBe(true);
    const crd = loadApplicationCRD();
    expect(crd.metadata?.name).toBe("applications.kubeloop.dev");
    expect(crd.spec.names).toMatchObject({ kind: "Application", plural: "applications", shortNames: ["app"] });
    const v = crd.spec.versions[0];
    expect(v.name).toBe("v1alpha1");
    expect(v.subresources?.scale).toEqual({ specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas", labelSelectorPath: ".status.selector" });
    expect(v.additionalPrinterColumns?.map((c) => c.name.toUpperCase())).toEqual(["READY", "AVAILABLE", "IMAGE", "AGE"]);
    const replicas = v.schema?.openAPIV3Schema?.properties?.spec?.properties?.replicas;
    expect(replicas).toMatchObject({ minimum: 0, maximum: 1000, default: 1 });
    expect(v.schema?.openAPIV3Schema?.properties?.spec?.required).toEqual(["image"]);
    // A fresh object each time: callers may modify it.
    expect(loadApplicationCRD()).not.toBe(crd);
    expect(readFileSync(path, "utf8")).toContain("kind: CustomResourceDefinition");
  });

  it("installApplicationCRD creates it and waits for Established", async () => {
    const clock = new FakeClock();
    const client = new FakeClient({ clock });
    let result: CustomResourceDefinition | undefined;
    const p = installApplicationCRD(client, { clock }).then((r) => (result = r));
    await settle(clock, () => client.writeActions().length > 0);
    expect(client.writeActions().map((a) => `${a.verb} ${a.resource}`)).toEqual(["create customresourcedefinitions"]);
    expect(client.writeActions()[0].options).toMatchObject({ fieldManager: FIELD_MANAGER });
    expect(result).toBeUndefined();
    setCondition(client, "Established", "True");
    await settle(clock, () => result !== undefined);
    await p;
    expect(result?.status?.conditions?.[0]?.type).toBe("Established");
  });

  it("makes no write when the installed CRD already matches, and updates it when it differs", async () => {
    const clock = new FakeClock();
    const client = new FakeClient({ clock });
    const installed = loadApplicationCRD();
    installed.spec.conversion = { strategy: "None" }; // the server's default
    installed.status = { conditions: [{ type: "Established", status: "True" }] } as CustomResourceDefinition["status"];
    client.seed(crds, installed);
    await installApplicationCRD(client, { clock });
    expect(client.writeActions()).toEqual([]);

    const changed = loadApplicationCRD();
    changed.spec.names.shortNames = ["app", "apps2"];
    await installApplicationCRD(client, { clock, crd: changed });
    expect(client.writeActions().map((a) => `${a.verb} ${a.resource}`)).toEqual(["update customresourcedefinitions"]);
  });

  it("rejects when the names are not accepted, or Established never comes", async () => {
    const clock = new FakeClock();
    const client = new FakeClient({ clock });
    const p = installApplicationCRD(client, { clock }).catch((e: unknown) => e);
    await settle(clock, () => client.writeActions().length > 0);
    setCondition(client, "NamesAccepted", "False", "PluralConflict");
    let err: unknown;
    void p.then((e) => (err = e));
    await settle(clock, () => err !== undefined);
    expect(err).toBeInstanceOf(CRDNotEstablishedError);
    expect((err as Error).message).toContain("PluralConflict");

    const clock2 = new FakeClock();
    const client2 = new FakeClient({ clock: clock2 });
    let err2: unknown;
    void installApplicationCRD(client2, { clock: clock2, timeoutMs: 1000 }).catch((e: unknown) => (err2 = e));
    await settle(clock2, () => err2 !== undefined);
    expect((err2 as Error).message).toContain("timed out after 1000ms");
  });
});
