/**
 * The generated wire types as users see them: kubernetes-types' names and layout, kube-openapi's
 * required fields, literal apiVersion/kind on kinds, no readonly fields. These are compile-time
 * assertions (the typecheck enforces them); the runtime part only proves the modules are
 * type-only.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import type { Deployment } from "../../src/apimachinery/api/apps/v1.js";
import type { Container, Pod, Service, ServicePort } from "../../src/apimachinery/api/core/v1.js";
import type { DeleteOptions, ObjectMeta, Status, Time } from "../../src/apimachinery/api/meta/v1.js";
import type { Quantity } from "../../src/apimachinery/api/api/resource.js";
import type { IntOrString } from "../../src/apimachinery/api/util/intstr.js";
import type { APIService } from "../../src/apimachinery/api/apiregistration/v1.js";
import type { appsv1, batchv1, corev1, resourcev1 } from "../../src/index.js";
import type { Writable } from "../../src/apimachinery/types.js";

describe("generated wire types", () => {
  it("give kinds literal apiVersion and kind, and types with many kinds plain strings", () => {
    expectTypeOf<Deployment["apiVersion"]>().toEqualTypeOf<"apps/v1" | undefined>();
    expectTypeOf<Pod["kind"]>().toEqualTypeOf<"Pod" | undefined>();
    expectTypeOf<APIService["apiVersion"]>().toEqualTypeOf<"apiregistration.k8s.io/v1" | undefined>();
    expectTypeOf<Status["apiVersion"]>().toEqualTypeOf<"v1" | undefined>();
    expectTypeOf<DeleteOptions["apiVersion"]>().toEqualTypeOf<string | undefined>();
  });

  it("make fields required exactly where kube-openapi does (no omitempty, no +optional)", () => {
    const c: Container = { name: "app" };
    // @ts-expect-error Container.name has no omitempty: required
    const noName: Container = { image: "nginx" };
    const port: ServicePort = { port: 80, targetPort: "http" };
    expect([c, noName, port]).toHaveLength(3);
    expectTypeOf<Deployment["spec"]>().toEqualTypeOf<appsv1.DeploymentSpec | undefined>();
  });

  it("write named scalars and special types as kubernetes-types does", () => {
    expectTypeOf<Time>().toEqualTypeOf<string>();
    expectTypeOf<Quantity>().toEqualTypeOf<string>();
    expectTypeOf<IntOrString>().toEqualTypeOf<number | string>();
    expectTypeOf<ServicePort["targetPort"]>().toEqualTypeOf<number | string | undefined>();
    expectTypeOf<Service["spec"]>().toEqualTypeOf<corev1.ServiceSpec | undefined>();
    expectTypeOf<NonNullable<corev1.ResourceRequirements["limits"]>>().toEqualTypeOf<{ [name: string]: string }>();
  });

  it("have no readonly fields, so Writable is the identity", () => {
    expectTypeOf<Writable<ObjectMeta>>().toEqualTypeOf<ObjectMeta>();
    const m: ObjectMeta = { name: "x" };
    m.uid = "u";
    m.resourceVersion = "1";
    expect(m.uid).toBe("u");
  });

  it("export every group version from the public entry, 1.36 fields included", () => {
    expectTypeOf<batchv1.JobSpec["backoffLimitPerIndex"]>().toEqualTypeOf<number | undefined>();
    expectTypeOf<appsv1.DeploymentStatus["terminatingReplicas"]>().toEqualTypeOf<number | undefined>();
    expectTypeOf<resourcev1.ResourceClaim["kind"]>().toEqualTypeOf<"ResourceClaim" | undefined>();
  });

  it("are type-only modules (nothing at run time)", async () => {
    const mod: Record<string, unknown> = await import("../../src/apimachinery/api/core/v1.js");
    expect(Object.keys(mod)).toEqual([]);
  });
});
