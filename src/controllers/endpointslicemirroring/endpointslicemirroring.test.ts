/**
 * Cases restated from upstream endpointslicemirroring reconciler_test.go (TestReconcile) and
 * endpointslicemirroring_controller_test.go (TestSyncEndpoints, TestShouldMirror): the plan for an
 * Endpoints object and existing slices, and one sync's writes.
 */
import { describe, expect, it } from "vitest";
import type { EndpointSubset, Endpoints, Service } from "../../apimachinery/api/core/v1.js";
import type { EndpointSlice } from "../../apimachinery/api/discovery/v1.js";
import { builtin } from "../../client/typed.js";
import { ControllerFixture } from "../../testing/fixture.js";
import { EndpointSliceMirroringController, planMirroring, shouldMirror } from "./controller.js";
import { MANAGED_BY_LABEL, MIRRORING_CONTROLLER_NAME_VALUE, newEndpointSlice, desiredState, SERVICE_NAME_LABEL } from "./desired.js";

const endpoints = (subsets: EndpointSubset[] | undefined, meta: Partial<NonNullable<Endpoints["metadata"]>> = {}): Endpoints => ({
  apiVersion: "v1",
  kind: "Endpoints",
  metadata: { name: "test-ep", namespace: "test", uid: "ep-uid", labels: { foo: "bar" }, ...meta },
  ...(subsets ? { subsets } : {}),
});
const port80 = [{ name: "http", port: 80, protocol: "TCP" }];
const addresses = (n: number, base = "10.0.") => Array.from({ length: n }, (_, i) => ({ ip: `${base}${Math.floor(i / 250)}.${(i % 250) + 1}` }));
const existingFor = (ep: Endpoints, name: string): EndpointSlice => {
  const [g] = desiredState(ep).groups.values();
  return newEndpointSlice(ep, g, name);
};

describe("planMirroring (TestReconcile)", () => {
  const one = endpoints([{ ports: port80, addresses: [{ ip: "10.0.0.1", hostname: "pod-1" }] }]);
  it.each([
    { name: "Endpoints with no subsets", ep: endpoints(undefined), existing: [], want: [0, 0, 0] },
    { name: "Endpoints with no addresses", ep: endpoints([{ ports: port80 }]), existing: [], want: [0, 0, 0] },
    { name: "Endpoints with 1 subset, port, and address", ep: one, existing: [], want: [1, 0, 0], endpoints: [1] },
    { name: "Endpoints with 1 subset, port, and address and existing slice with same fields", ep: one, existing: [existingFor(one, "test-ep-1")], want: [0, 0, 0] },
    {
      name: "Endpoints with 1 subset, port, and address and existing slice with an additional annotation",
      ep: one,
      existing: [{ ...existingFor(one, "test-ep-1"), metadata: { ...existingFor(one, "test-ep-1").metadata, annotations: { extra: "x" } } }],
      want: [0, 1, 0],
    },
    {
      name: "Endpoints with 1 subset, port, and address and existing slice with different endpoints",
      ep: one,
      existing: [existingFor(endpoints([{ ports: port80, addresses: [{ ip: "10.0.0.9" }] }]), "test-ep-1")],
      want: [0, 1, 0],
    },
    { name: "Endpoints with 1 subset, port, and address and 2 existing slices: one is deleted", ep: one, existing: [existingFor(one, "test-ep-1"), existingFor(one, "test-ep-2")], want: [0, 0, 1] },
    {
      name: "Endpoints with 2 subsets, multiple ports and addresses",
      ep: endpoints([
        { ports: port80, addresses: [{ ip: "10.0.0.1" }, { ip: "10.0.0.2" }] },
        { ports: [{ name: "https", port: 443, protocol: "TCP" }], addresses: [{ ip: "10.0.0.3" }], notReadyAddresses: [{ ip: "10.0.0.4" }] },
      ]),
      existing: [],
      want: [2, 0, 0],
      endpoints: [2, 2],
    },
    { name: "Endpoints with IPv4 and IPv6 addresses: a slice per family", ep: endpoints([{ ports: port80, addresses: [{ ip: "10.0.0.1" }, { ip: "2001:db8::1" }] }]), existing: [], want: [2, 0, 0], endpoints: [1, 1] },
    { name: "Endpoints with 1001 addresses - 1 should not be sent", ep: endpoints([{ ports: port80, addresses: addresses(1001) }]), existing: [], want: [1, 0, 0], endpoints: [1000], skipped: 1 },
    {
      name: "Endpoints with 1 subset, port and address and an invalid address",
      ep: endpoints([{ ports: port80, addresses: [{ ip: "10.0.0.1" }, { ip: "not-an-ip" }] }]),
      existing: [],
      want: [1, 0, 0],
      endpoints: [1],
      invalid: 1,
    },
    { name: "a group no longer desired: its slice is deleted", ep: endpoints([{ ports: port80 }]), existing: [existingFor(one, "test-ep-1")], want: [0, 0, 1] },
  ])("$name", (t) => {
    const plan = planMirroring(t.ep, t.existing);
    expect([plan.toCreate.length, plan.toUpdate.length, plan.toDelete.length]).toEqual(t.want);
    if (t.endpoints) expect(plan.toCreate.map((s) => s.endpoints?.length)).toEqual(t.endpoints);
    expect(plan.invalidAddresses).toBe(t.invalid ?? 0);
    expect(plan.skippedAddresses).toBe((t.skipped ?? 0) + (t.invalid ?? 0));
    for (const s of plan.toCreate) {
      expect(s.metadata?.generateName).toBe("test-ep-");
      expect(s.metadata?.labels).toEqual({ foo: "bar", [SERVICE_NAME_LABEL]: "test-ep", [MANAGED_BY_LABEL]: MIRRORING_CONTROLLER_NAME_VALUE });
      expect(s.metadata?.ownerReferences).toEqual([{ apiVersion: "v1", kind: "Endpoints", name: "test-ep", uid: "ep-uid", controller: true, blockOwnerDeletion: true }]);
    }
  });

  it("a not-ready address is mirrored with ready false; an address ready in another subset with the same ports is ready", () => {
    const plan = planMirroring(endpoints([{ ports: port80, notReadyAddresses: [{ ip: "10.0.0.1" }, { ip: "10.0.0.2" }] }, { ports: port80, addresses: [{ ip: "10.0.0.2" }] }]), []);
    expect(plan.toCreate[0].endpoints).toEqual([
      { addresses: ["10.0.0.2"], conditions: { ready: true } },
      { addresses: ["10.0.0.1"], conditions: { ready: false } },
    ]);
  });
});

describe("shouldMirror (TestShouldMirror)", () => {
  it.each([
    { name: "Endpoints with no labels", ep: endpoints([], { labels: undefined }), want: true },
    { name: "Endpoints with skip-mirror=true", ep: endpoints([], { labels: { "endpointslice.kubernetes.io/skip-mirror": "true" } }), want: false },
    { name: "Endpoints with skip-mirror=invalid", ep: endpoints([], { labels: { "endpointslice.kubernetes.io/skip-mirror": "invalid" } }), want: true },
    { name: "Endpoints with leader election annotation", ep: endpoints([], { annotations: { "control-plane.alpha.kubernetes.io/leader": "" } }), want: false },
    { name: "the API server's kubernetes Endpoints in default", ep: endpoints([], { name: "kubernetes", namespace: "default" }), want: false },
  ])("$name", ({ ep, want }) => expect(shouldMirror(ep)).toBe(want));
});

describe("EndpointSliceMirroringController.syncEndpoints (TestSyncEndpoints)", () => {
  const service = (selector?: Record<string, string>): Service => ({ apiVersion: "v1", kind: "Service", metadata: { name: "test-ep", namespace: "test" }, spec: { ports: [{ port: 80 }], ...(selector ? { selector } : {}) } });
  const ep = endpoints([{ ports: port80, addresses: [{ ip: "10.0.0.1" }] }]);
  it.each([
    { name: "Endpoints with no matching Service", services: [], eps: [ep], slices: [], want: [] },
    { name: "Service with selector specified", services: [service({ foo: "bar" })], eps: [ep], slices: [], want: [] },
    { name: "Service with selector specified and a mirrored slice: it is deleted", services: [service({ foo: "bar" })], eps: [ep], slices: [existingFor(ep, "test-ep-1")], want: ["delete endpointslices"] },
    { name: "Existing Service with 1 subset", services: [service()], eps: [ep], slices: [], want: ["create endpointslices"] },
    { name: "Existing Service with 1 subset and its mirrored slice: no writes", services: [service()], eps: [ep], slices: [existingFor(ep, "test-ep-1")], want: [] },
    { name: "Existing Service, Endpoints with skip-mirror: slices deleted", services: [service()], eps: [{ ...ep, metadata: { ...ep.metadata, labels: { "endpointslice.kubernetes.io/skip-mirror": "true" } } }], slices: [existingFor(ep, "test-ep-1")], want: ["delete endpointslices"] },
    { name: "Existing Service, Endpoints gone: slices deleted", services: [service()], eps: [], slices: [existingFor(ep, "test-ep-1")], want: ["delete endpointslices"] },
  ])("$name", async (t) => {
    const f = new ControllerFixture();
    const c = new EndpointSliceMirroringController(f.manager);
    f.seed(builtin.services, ...t.services);
    f.seed(builtin.endpoints, ...t.eps);
    f.seed(builtin.endpointSlices, ...t.slices);
    await c.syncEndpoints("test", "test-ep", f.client);
    expect(f.writeActions().map((a) => `${a.verb} ${a.resource}`)).toEqual(t.want);
  });

  it("more than 1000 addresses in a subset: a Warning names the skipped ones", async () => {
    const f = new ControllerFixture();
    const c = new EndpointSliceMirroringController(f.manager);
    f.seed(builtin.services, service());
    f.seed(builtin.endpoints, endpoints([{ ports: port80, addresses: addresses(1002) }]));
    await c.syncEndpoints("test", "test-ep", f.client);
    expect(f.recorder.events).toContain("Warning TooManyAddressesToMirror A max of 1000 addresses can be mirrored to EndpointSlices per Endpoints subset. 2 addresses were skipped");
  });
});
