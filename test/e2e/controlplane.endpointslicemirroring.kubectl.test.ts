/**
 * EndpointSlice mirroring end to end with the real kubectl 1.35: a Service without a selector and
 * hand-written Endpoints get a mirrored EndpointSlice (`kubectl get endpointslices` shows it,
 * `describe svc` lists its endpoints, which kubectl 1.35 reads from slices); a change to the
 * Endpoints is mirrored, and the skip-mirror label takes the slice away.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { RunningControlPlane } from "../../src/controlplane/index.js";
import { eventually, startTestControlPlane } from "./controlplane-env.js";
import type { Kubectl } from "./kubectl.js";

let cp: RunningControlPlane;
let k: Kubectl;

beforeAll(async () => {
  ({ cp, k } = await startTestControlPlane());
}, 60_000);

afterAll(async () => {
  await cp?.stop();
});

const endpointsYAML = (ips: string[], labels = "") => `apiVersion: v1
kind: Endpoints
metadata:
  name: external
${labels}subsets:
- addresses: [${ips.map((ip) => `{ip: "${ip}"}`).join(", ")}]
  ports: [{name: http, port: 8080, protocol: TCP}]
`;

it("a selector-less Service's hand-written Endpoints are mirrored to an EndpointSlice that kubectl shows", async () => {
  const ns = "e2e-mirror";
  await k.ok(["create", "namespace", ns]);
  await k.ok(
    ["-n", ns, "apply", "-f", "-"],
    `apiVersion: v1
kind: Service
metadata: {name: external}
spec:
  ports: [{name: http, port: 80, targetPort: 8080, protocol: TCP}]
---
${endpointsYAML(["10.1.0.1", "10.1.0.2"])}`,
  );
  const table = await eventually("the mirrored slice", async () => {
    const t = await k.ok(["-n", ns, "get", "endpointslices", "-l", "kubernetes.io/service-name=external"]);
    return /10\.1\.0\.1,10\.1\.0\.2/.test(t) ? t : undefined;
  });
  expect(table.split("\n")[0]).toMatch(/^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE$/);
  expect(table.split("\n")[1]).toMatch(/^external-\w+\s+IPv4\s+8080\s+10\.1\.0\.1,10\.1\.0\.2\s+\S+$/);
  const slice = JSON.parse(await k.ok(["-n", ns, "get", "endpointslices", "-l", "kubernetes.io/service-name=external", "-o", "json"])) as {
    items: Array<{ metadata: { labels: Record<string, string>; ownerReferences: Array<{ kind: string; name: string }> } }>;
  };
  expect(slice.items).toHaveLength(1);
  expect(slice.items[0].metadata.labels["endpointslice.kubernetes.io/managed-by"]).toBe("endpointslicemirroring-controller.k8s.io");
  expect(slice.items[0].metadata.ownerReferences).toMatchObject([{ kind: "Endpoints", name: "external" }]);

  const described = await k.ok(["-n", ns, "describe", "svc", "external"]);
  expect(described.split("\n").find((l) => l.startsWith("Endpoints:"))).toMatch(/^Endpoints:\s+10\.1\.0\.1:8080,10\.1\.0\.2:8080$/);

  // Steady state: the slice is not rewritten.
  const rv = (await k.ok(["-n", ns, "get", "endpointslices", "-l", "kubernetes.io/service-name=external", "-o", "jsonpath={.items[0].metadata.resourceVersion}"])).trim();
  await k.ok(["-n", ns, "annotate", "svc", "external", "touched=yes"]);
  await eventually("the service annotated", async () => ((await k.ok(["-n", ns, "get", "svc", "external", "-o", "jsonpath={.metadata.annotations.touched}"])).trim() === "yes" ? true : undefined));
  await cp.ready;
  expect((await k.ok(["-n", ns, "get", "endpointslices", "-l", "kubernetes.io/service-name=external", "-o", "jsonpath={.items[0].metadata.resourceVersion}"])).trim()).toBe(rv);

  await k.ok(["-n", ns, "apply", "-f", "-"], endpointsYAML(["10.1.0.3"]));
  await eventually("the change mirrored", async () => (/\s10\.1\.0\.3\s/.test(await k.ok(["-n", ns, "get", "endpointslices", "-l", "kubernetes.io/service-name=external"])) ? true : undefined));

  await k.ok(["-n", ns, "apply", "-f", "-"], endpointsYAML(["10.1.0.3"], "  labels: {endpointslice.kubernetes.io/skip-mirror: \"true\"}\n"));
  await eventually("the slice gone with skip-mirror", async () => {
    const t = await k.run(["-n", ns, "get", "endpointslices", "-l", "kubernetes.io/service-name=external"]);
    return t.code === 0 && t.stdout.trim() === "" ? true : undefined;
  });
}, 120_000);
