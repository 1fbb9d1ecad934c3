/**
 * Test helpers for the admission and conversion webhook tests: an HTTPS webhook on a free
 * loopback port with a certificate from a throw-away CA (valid for 127.0.0.1, localhost and
 * the service names tests use), answering with a function of the review it received, and a
 * request's admission attributes.
 */
import { createServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { generateCA, issueCertificate, type CertificateAndKey } from "../../src/apimachinery/pki/x509.js";
import type { GroupVersionKind, GroupVersionResource } from "../../src/apimachinery/gvk.js";
import type { KubeObject } from "../../src/apimachinery/types.js";
import type { AdmissionAttributes, AdmissionOperation } from "../../src/apiserver/admission/interfaces.js";

export interface ReceivedReview {
  path: string;
  query: string;
  body: Record<string, unknown>;
  request: Record<string, unknown>;
}

/** What the test webhook answers: a full response body, raw text, or nothing at all (hang). */
export type Answer = { review: unknown } | { text: string; status?: number } | { hang: true };

export interface TestWebhook {
  url: string;
  port: number;
  ca: CertificateAndKey;
  caBundle: string;
  received: ReceivedReview[];
  /** Resolves when `n` requests have arrived. */
  waitFor(n: number): Promise<void>;
  close(): Promise<void>;
}

export const testCA = generateCA("webhook-test-ca");
const serving = issueCertificate(testCA, {
  subject: { commonName: "webhook" },
  dnsNames: ["localhost", "hook.webhooks.svc", "other.webhooks.svc"],
  ipAddresses: ["127.0.0.1"],
  usages: ["serverAuth"],
});

/** The usual answer: allowed, echoing the uid, with optional extras. */
export function allow(req: Record<string, unknown>, extra: Record<string, unknown> = {}): Answer {
  return { review: { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: req.uid, allowed: true, ...extra } } };
}

export function deny(req: Record<string, unknown>, status: Record<string, unknown>): Answer {
  return { review: { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: req.uid, allowed: false, status } } };
}

export function patchOf(ops: unknown[]): Record<string, unknown> {
  return { patchType: "JSONPatch", patch: Buffer.from(JSON.stringify(ops)).toString("base64") };
}

export async function startTestWebhook(answer: (r: ReceivedReview) => Answer, cert: CertificateAndKey = serving): Promise<TestWebhook> {
  const received: ReceivedReview[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer({ cert: cert.certPem, key: cert.keyPem }, (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const u = new URL(req.url ?? "/", "https://x");
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
      const r: ReceivedReview = { path: u.pathname, query: u.search, body, request: (body.request ?? {}) as Record<string, unknown> };
      received.push(r);
      for (const w of [...waiters]) if (received.length >= w.n) w.resolve();
      const a = answer(r);
      if ("hang" in a) {
        hanging.add(res);
        return;
      }
      if ("text" in a) {
        res.writeHead(a.status ?? 200, { "Content-Type": "application/json" });
        res.end(a.text);
        return;
      }
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify(a.review));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    ca: testCA,
    caBundle: Buffer.from(testCA.certPem).toString("base64"),
    received,
    waitFor: (n) =>
      received.length >= n
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            waiters.push({ n, resolve });
          }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of hanging) r.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface AttributesInit {
  operation?: AdmissionOperation;
  kind?: GroupVersionKind;
  resource?: GroupVersionResource;
  subresource?: string;
  namespace?: string;
  name?: string;
  object?: KubeObject;
  oldObject?: KubeObject;
  dryRun?: boolean;
}

export function attributes(init: AttributesInit = {}): AdmissionAttributes {
  const namespace = init.namespace ?? "default";
  const name = init.name ?? "p";
  return {
    operation: init.operation ?? "CREATE",
    kind: init.kind ?? { group: "", version: "v1", kind: "ConfigMap" },
    resource: init.resource ?? { group: "", version: "v1", resource: "configmaps" },
    subresource: init.subresource ?? "",
    namespace,
    name,
    object: "object" in init ? init.object : { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace }, data: { a: "1" } },
    oldObject: init.oldObject,
    options: { apiVersion: "meta.k8s.io/v1", kind: "CreateOptions" },
    dryRun: init.dryRun ?? false,
    userInfo: { username: "alice", uid: "u-1", groups: ["devs", "system:authenticated"] },
    warnings: [],
    auditAnnotations: new Map(),
  };
}
