/**
 * Golden tests against request bodies captured from the real kubectl v1.35.2
 * (scripts/protobuf/capture.mjs). For the `create` commands the expected JSON is what the same
 * command prints with `--dry-run=client -o json` (Go's encoding/json of the very object it sends).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { decodeProtobufBody, encodeProtobufBody, PROTOBUF_CONTENT_TYPE } from "./index.js";

interface Fixture {
  name: string;
  command: string;
  method: string;
  path: string;
  contentType: string;
  bodyBase64: string;
  expectedJson?: Record<string, unknown>;
}

const golden = JSON.parse(readFileSync(new URL("./testdata/kubectl-bodies.json", import.meta.url), "utf8")) as {
  kubectl: string;
  fixtures: Fixture[];
};

/** Expected JSON for the commands kubectl cannot print (Go's encoding/json of the same value). */
const HAND_EXPECTED: Record<string, Record<string, unknown>> = {
  "can-i": {
    kind: "SelfSubjectAccessReview",
    apiVersion: "authorization.k8s.io/v1",
    metadata: {},
    spec: {
      resourceAttributes: { namespace: "default", verb: "create", group: "apps", resource: "deployments", subresource: "scale" },
    },
    // SubjectAccessReviewStatus.allowed has no omitempty: Go prints it.
    status: { allowed: false },
  },
  "can-i-list": {
    kind: "SelfSubjectRulesReview",
    apiVersion: "authorization.k8s.io/v1",
    metadata: {},
    spec: { namespace: "default" },
    status: { incomplete: false },
  },
  whoami: {
    kind: "SelfSubjectReview",
    apiVersion: "authentication.k8s.io/v1",
    metadata: {},
    status: { userInfo: {} },
  },
  token: {
    kind: "TokenRequest",
    apiVersion: "authentication.k8s.io/v1",
    metadata: {},
    // expirationSeconds is a pointer: set by --duration=10m.
    spec: { audiences: ["api"], expirationSeconds: 600 },
    // Non-omitempty token and a zero metav1.Time (printed as null by Go).
    status: { token: "", expirationTimestamp: null },
  },
};

describe(`kubectl ${golden.kubectl} protobuf bodies`, () => {
  it("covers every command the notes list", () => {
    const names = golden.fixtures.map((f) => f.name);
    for (const n of [
      "deployment", "configmap", "secret-generic", "namespace", "serviceaccount", "service-clusterip", "role",
      "rolebinding", "clusterrole", "clusterrolebinding", "job", "cronjob", "quota", "priorityclass",
      "poddisruptionbudget", "can-i", "can-i-list", "whoami", "token",
    ]) {
      expect(names).toContain(n);
    }
    for (const f of golden.fixtures) expect(f.contentType).toBe(PROTOBUF_CONTENT_TYPE);
  });

  it.each(golden.fixtures.map((f) => [f.name, f] as const))("%s decodes to the JSON kubectl would send", (name, f) => {
    const body = Buffer.from(f.bodyBase64, "base64");
    const { object, warnings } = decodeProtobufBody(body);
    expect(warnings).toEqual([]);
    const expected = f.expectedJson ?? HAND_EXPECTED[name];
    expect(expected).toBeDefined();
    expect(object).toStrictEqual(expected);
    // Same key order as Go's encoding/json too.
    expect(JSON.stringify(object)).toBe(JSON.stringify(expected));
  });

  it.each(golden.fixtures.map((f) => [f.name, f] as const))("%s re-encodes byte for byte", (_name, f) => {
    const body = Buffer.from(f.bodyBase64, "base64");
    const { object } = decodeProtobufBody(body);
    expect(Buffer.from(encodeProtobufBody(object)).toString("hex")).toBe(body.toString("hex"));
  });

  it("keeps a pointer field set to zero (replicas: 0) and omits unset value fields", () => {
    const f = golden.fixtures.find((x) => x.name === "deployment-replicas0-port");
    const { object } = decodeProtobufBody(Buffer.from(f!.bodyBase64, "base64"));
    const spec = object.spec as Record<string, unknown>;
    expect(spec.replicas).toBe(0);
    expect(spec).not.toHaveProperty("paused");
    expect(spec).not.toHaveProperty("minReadySeconds");
    const podSpec = (spec.template as { spec: Record<string, unknown> }).spec;
    expect(podSpec).not.toHaveProperty("hostNetwork");
    expect(podSpec).not.toHaveProperty("terminationGracePeriodSeconds");
    expect(object.metadata).not.toHaveProperty("creationTimestamp");
  });
});
