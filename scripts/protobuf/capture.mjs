#!/usr/bin/env node
/**
 * Captures the protobuf request bodies the real kubectl 1.35 sends, as test fixtures for
 * src/apiserver/protobuf/. Starts a recording HTTP server on 127.0.0.1 (legacy discovery only,
 * enough for kubectl's typed clients), runs each command against it, and, where kubectl can print
 * it, also records the JSON the same command produces with `--dry-run=client -o json`.
 *
 * Usage:  node scripts/protobuf/capture.mjs --kubectl PATH
 * Writes: src/apiserver/protobuf/testdata/kubectl-bodies.json
 */
import { createServer } from "node:http";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const out = join(root, "src", "apiserver", "protobuf", "testdata", "kubectl-bodies.json");

const args = process.argv.slice(2);
const kubectl = args[args.indexOf("--kubectl") + 1];
if (!args.includes("--kubectl") || !kubectl) throw new Error("usage: capture.mjs --kubectl PATH");

/** Discovery: group version → resources (name, kind, namespaced, verbs). */
const RESOURCES = {
  v1: [
    ["namespaces", "Namespace", false],
    ["configmaps", "ConfigMap", true],
    ["secrets", "Secret", true],
    ["serviceaccounts", "ServiceAccount", true],
    ["serviceaccounts/token", "TokenRequest", true],
    ["services", "Service", true],
    ["resourcequotas", "ResourceQuota", true],
    ["pods", "Pod", true],
  ],
  "apps/v1": [["deployments", "Deployment", true]],
  "batch/v1": [["jobs", "Job", true], ["cronjobs", "CronJob", true]],
  "rbac.authorization.k8s.io/v1": [
    ["roles", "Role", true],
    ["rolebindings", "RoleBinding", true],
    ["clusterroles", "ClusterRole", false],
    ["clusterrolebindings", "ClusterRoleBinding", false],
  ],
  "authorization.k8s.io/v1": [
    ["selfsubjectaccessreviews", "SelfSubjectAccessReview", false],
    ["selfsubjectrulesreviews", "SelfSubjectRulesReview", false],
  ],
  "authentication.k8s.io/v1": [["selfsubjectreviews", "SelfSubjectReview", false]],
  "policy/v1": [["poddisruptionbudgets", "PodDisruptionBudget", true]],
  "scheduling.k8s.io/v1": [["priorityclasses", "PriorityClass", false]],
  "networking.k8s.io/v1": [["ingresses", "Ingress", true]],
};

/** name, kubectl args, whether `--dry-run=client -o json` gives the expected JSON. */
const COMMANDS = [
  ["deployment", ["create", "deployment", "web", "--image=nginx"], true],
  ["deployment-replicas0-port", ["create", "deployment", "web0", "--image=nginx:1.27", "--replicas=0", "--port=8080"], true],
  ["configmap", ["create", "configmap", "cm1", "--from-literal=a=b", "--from-literal=empty="], true],
  ["secret-generic", ["create", "secret", "generic", "s1", "--from-literal=k=v", "--type=Opaque"], true],
  ["secret-binary", ["create", "secret", "generic", "s2", "--from-file=bin=@BIN@"], true],
  ["namespace", ["create", "namespace", "ns1"], true],
  ["serviceaccount", ["create", "serviceaccount", "sa1"], true],
  ["service-clusterip", ["create", "service", "clusterip", "svc1", "--tcp=80:8080", "--tcp=443:https"], true],
  ["service-nodeport", ["create", "service", "nodeport", "svc2", "--tcp=80:8080", "--node-port=30080"], true],
  ["role", ["create", "role", "r1", "--verb=get,list", "--resource=pods,deployments.apps", "--resource-name=x"], true],
  ["rolebinding", ["create", "rolebinding", "rb1", "--role=r1", "--user=alice", "--serviceaccount=default:sa1", "--group=g"], true],
  ["clusterrole", ["create", "clusterrole", "cr1", "--verb=get", "--non-resource-url=/healthz"], true],
  ["clusterrolebinding", ["create", "clusterrolebinding", "crb1", "--clusterrole=cr1", "--user=bob"], true],
  ["job", ["create", "job", "j1", "--image=busybox", "--", "echo", "hi"], true],
  ["cronjob", ["create", "cronjob", "cj1", "--image=busybox", "--schedule=*/5 * * * *", "--", "date"], true],
  ["quota", ["create", "quota", "q1", "--hard=pods=10,cpu=1500m,memory=1Gi", "--scopes=NotTerminating"], true],
  ["priorityclass", ["create", "priorityclass", "pc1", "--value=1000", "--description=high", "--preemption-policy=Never"], true],
  ["poddisruptionbudget", ["create", "poddisruptionbudget", "pdb1", "--selector=app=x", "--min-available=50%"], true],
  ["ingress", ["create", "ingress", "ing1", "--rule=foo.com/bar=svc1:80"], true],
  ["can-i", ["auth", "can-i", "create", "deployments.apps", "--subresource=scale"], false],
  ["can-i-list", ["auth", "can-i", "--list"], false],
  ["whoami", ["auth", "whoami"], false],
  ["token", ["create", "token", "sa1", "--duration=10m", "--audience=api"], false],
];

const records = [];
let current = "";

function send(res, code, obj) {
  const body = JSON.stringify(obj);
  res.writeHead(code, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
  res.end(body);
}

function discovery(path) {
  if (path === "/version") return { major: "1", minor: "35", gitVersion: "v1.35.0", platform: "linux/amd64" };
  if (path === "/api") return { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [] };
  if (path === "/apis") {
    const groups = new Map();
    for (const gv of Object.keys(RESOURCES)) {
      if (gv === "v1") continue;
      const [g, v] = gv.split("/");
      groups.set(g, { name: g, versions: [{ groupVersion: gv, version: v }], preferredVersion: { groupVersion: gv, version: v } });
    }
    return { kind: "APIGroupList", apiVersion: "v1", groups: [...groups.values()] };
  }
  const gv = path === "/api/v1" ? "v1" : path.startsWith("/apis/") ? path.slice(6) : undefined;
  if (gv && RESOURCES[gv]) {
    return {
      kind: "APIResourceList",
      apiVersion: "v1",
      groupVersion: gv,
      resources: RESOURCES[gv].map(([name, kind, namespaced]) => ({
        name, singularName: "", namespaced, kind,
        verbs: name.includes("/") ? ["create"] : ["create", "delete", "get", "list", "patch", "update", "watch"],
      })),
    };
  }
  return undefined;
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const url = new URL(req.url ?? "/", "http://x");
    const body = Buffer.concat(chunks);
    if (req.method === "GET") {
      const d = discovery(url.pathname);
      if (d) return send(res, 200, d);
      return send(res, 404, { kind: "Status", apiVersion: "v1", status: "Failure", reason: "NotFound", code: 404 });
    }
    records.push({
      name: current,
      method: req.method,
      path: url.pathname + url.search,
      contentType: req.headers["content-type"] ?? "",
      bodyBase64: body.toString("base64"),
    });
    const last = url.pathname.split("/").pop();
    // Minimal answers that let each command finish.
    if (last === "selfsubjectaccessreviews") return send(res, 201, { kind: "SelfSubjectAccessReview", apiVersion: "authorization.k8s.io/v1", metadata: {}, spec: {}, status: { allowed: true } });
    if (last === "selfsubjectrulesreviews") return send(res, 201, { kind: "SelfSubjectRulesReview", apiVersion: "authorization.k8s.io/v1", metadata: {}, spec: {}, status: { resourceRules: [], nonResourceRules: [], incomplete: false } });
    if (last === "selfsubjectreviews") return send(res, 201, { kind: "SelfSubjectReview", apiVersion: "authentication.k8s.io/v1", metadata: {}, status: { userInfo: { username: "admin" } } });
    if (last === "token") return send(res, 201, { kind: "TokenRequest", apiVersion: "authentication.k8s.io/v1", metadata: {}, spec: {}, status: { token: "t", expirationTimestamp: "2030-01-01T00:00:00Z" } });
    return send(res, 201, { metadata: { name: "captured", namespace: "default" } });
  });
});

await new Promise((r) => server.listen(0, "127.0.0.1", r));
const port = server.address().port;
const dir = mkdtempSync(join(tmpdir(), "pbcap-"));
const kubeconfig = join(dir, "config");
writeFileSync(kubeconfig, `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "http://127.0.0.1:${port}"}}]
users: [{name: u, user: {}}]
contexts: [{name: x, context: {cluster: c, user: u, namespace: default}}]
current-context: x
`);
const env = { ...process.env, KUBECONFIG: kubeconfig, HOME: dir };
const binFile = join(dir, "bin.dat");
writeFileSync(binFile, Buffer.from([0xff, 0x00, 0x78, 0x0a, 0x80]));

function run(argv) {
  return new Promise((resolveRun) => {
    // execFileSync would block the event loop that serves kubectl's requests; use a child process.
    import("node:child_process").then(({ execFile }) => {
      execFile(kubectl, ["--cache-dir", join(dir, "cache"), ...argv], { env, timeout: 60_000 }, (err, stdout, stderr) => {
        resolveRun({ err, stdout, stderr });
      });
    });
  });
}

const fixtures = [];
for (const [name, rawArgv, dryRun] of COMMANDS) {
  const argv = rawArgv.map((a) => a.replace("@BIN@", binFile));
  current = name;
  const before = records.length;
  const r = await run(argv);
  if (r.err) console.error(`${name}: ${r.err.message.split("\n")[0]} ${r.stderr}`);
  const sent = records.slice(before).filter((x) => x.contentType === "application/vnd.kubernetes.protobuf");
  let expectedJson;
  if (dryRun) {
    const d = await run([...argv.slice(0, argv.indexOf("--") < 0 ? argv.length : argv.indexOf("--")), "--dry-run=client", "-o", "json",
      ...(argv.includes("--") ? argv.slice(argv.indexOf("--")) : [])]);
    if (d.err) console.error(`${name} dry-run: ${d.stderr}`);
    else expectedJson = JSON.parse(d.stdout);
  }
  for (const s of sent) fixtures.push({ ...s, command: `kubectl ${argv.join(" ")}`, expectedJson });
  console.log(`${name}: ${sent.length} protobuf bodies (${records.length - before} writes)`);
}
server.close();
rmSync(dir, { recursive: true, force: true });
const version = execFileSync(kubectl, ["version", "--client", "-o", "json"], { encoding: "utf8" });
writeFileSync(out, JSON.stringify({ kubectl: JSON.parse(version).clientVersion.gitVersion, fixtures }, null, 2) + "\n");
console.log(`wrote ${fixtures.length} fixtures to ${out}`);
