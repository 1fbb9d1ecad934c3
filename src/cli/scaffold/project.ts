/**
 * The project-level files of `kubeloop init` (the per-API files are api.ts's): the npm package
 * (TypeScript, vitest), the manager's main.ts, the API index `kubeloop crd gen` reads, the CRD
 * staleness test, deploy/ (namespace, ServiceAccount, least-privilege RBAC, a Deployment under the
 * restricted Pod Security profile, kustomization, Dockerfile), the Helm chart, CI, README and the
 * PROJECT file `create api` reads. Every artifact follows the one kubeloop ships for its own
 * Application controller (deploy/, deploy/helm/kubeloop-application, deploy/Dockerfile, .ci/run).
 *
 * Files that `create api` extends carry `+kubeloop:scaffold:<section>` markers (writer.ts).
 */
import { createRequire } from "node:module";
import { specifier, type ApiNames, type ProjectNames } from "./names.js";
import type { NewFile } from "./writer.js";

/** The PROJECT file's layout value. */
export const PROJECT_LAYOUT = "kubeloop.dev/v1";
export const PROJECT_FILE = "PROJECT";

/** The versions a scaffold depends on: kubeloop's own, and the toolchain kubeloop itself is built and tested with. */
export interface Toolchain {
  kubeloop: string;
  devDependencies: Record<string, string>;
}

/** The development dependencies a scaffold takes from kubeloop's own package.json (so one lock file's versions serve both). */
export const SCAFFOLD_DEV_DEPENDENCIES = ["@types/node", "typescript", "vite", "vitest"] as const;

/** kubeloop's package.json (two directories above this module's folder, in src/ and in dist/ alike). */
export function kubeloopToolchain(): Toolchain {
  const pkg = createRequire(import.meta.url)("../../../package.json") as { version: string; devDependencies: Record<string, string> };
  const devDependencies: Record<string, string> = {};
  for (const d of SCAFFOLD_DEV_DEPENDENCIES) {
    const range = pkg.devDependencies[d];
    if (!range) throw new Error(`kubeloop's package.json has no devDependency ${d}`);
    devDependencies[d] = range;
  }
  return { kubeloop: `^${pkg.version}`, devDependencies };
}

function packageJson(p: ProjectNames, t: Toolchain): string {
  const pkg = {
    name: p.name,
    version: "0.1.0",
    private: true,
    description: `The ${p.name} controller, on kubeloop.`,
    type: "module",
    engines: { node: ">=20.19" },
    scripts: {
      build: "tsc -p tsconfig.build.json",
      typecheck: "tsc -p tsconfig.json --noEmit",
      test: "vitest run",
      // Against the cluster of the current kubeconfig context (kubeloop up makes itself that context).
      start: "npm run build && node dist/main.js --install-crds",
      "crd:gen": "npm run build && kubeloop crd gen dist/api/index.js",
    },
    dependencies: { kubeloop: t.kubeloop },
    devDependencies: t.devDependencies,
    // esbuild (under vite) needs no install script: its binary comes as an optional dependency.
    allowScripts: { esbuild: false },
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

const TSCONFIG = `{
  "compilerOptions": {
    "target": "ES2022",
    "lib": ["ES2023"],
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "strict": true,
    "noImplicitOverride": true,
    "noFallthroughCasesInSwitch": true,
    "esModuleInterop": true,
    "skipLibCheck": true,
    "forceConsistentCasingInFileNames": true,
    "isolatedModules": true,
    "types": ["node"],
    "noEmit": true
  },
  "include": ["src", "test", "vitest.config.ts"]
}
`;

const TSCONFIG_BUILD = `{
  "extends": "./tsconfig.json",
  "compilerOptions": {
    "rootDir": "src",
    "outDir": "dist",
    "noEmit": false,
    "declaration": false,
    "sourceMap": true
  },
  "include": ["src"],
  "exclude": ["src/**/*.test.ts"]
}
`;

const VITEST_CONFIG = `import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    environment: "node",
    // The integration tests start an API server in-process (a second or two, more on a busy machine).
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
  },
});
`;

function mainSource(p: ProjectNames): string {
  return `/**
 * The ${p.name} controller manager: this project's controllers on one kubeloop Manager — shared
 * informers, Lease leader election, /metrics and /healthz + /readyz, graceful shutdown on
 * SIGINT/SIGTERM — against the cluster a kubeconfig names (--kubeconfig, else KUBECONFIG, the
 * in-cluster config in a pod, then ~/.kube/config, as controller-runtime's GetConfig).
 *
 *   node dist/main.js [--kubeconfig FILE] [--leader-elect] [--metrics-bind-address :8080]
 *                     [--health-probe-bind-address :8081] [--log-level info] [--install-crds]
 *
 * --install-crds creates or updates this project's CRDs first (for development: in a cluster,
 * deploy/ installs them and the controller's RBAC does not allow it). \`kubeloop create api\` adds
 * each new controller at the +kubeloop:scaffold markers below.
 */
import { parseArgs } from "node:util";
import { KubeClient, Manager, createLogger, installCRDs, isCustomResource, runUntilSignal } from "kubeloop";
import * as api from ${specifier(`./api/index.js`)};
// +kubeloop:scaffold:imports

/** The Lease the replicas compete for (--leader-elect), in the namespace the process runs in. */
export const LEADER_ELECTION_ID = ${JSON.stringify(`${p.name}-controller`)};

/** Bad input: one line and a non-zero exit. */
function fail(message: string): never {
  process.stderr.write(\`error: \${message}\\n\`);
  process.exit(1);
}

function parseFlags() {
  try {
    return parseArgs({
      options: {
        kubeconfig: { type: "string" },
        "leader-elect": { type: "boolean", default: false },
        "metrics-bind-address": { type: "string", default: ":8080" },
        "health-probe-bind-address": { type: "string", default: ":8081" },
        "log-level": { type: "string", default: "info" },
        "install-crds": { type: "boolean", default: false },
      },
    }).values;
  } catch (err) {
    return fail(err instanceof Error ? err.message : String(err));
  }
}

const flags = parseFlags();
let logger: ReturnType<typeof createLogger>;
let client: KubeClient;
try {
  logger = createLogger({ level: flags["log-level"], name: ${JSON.stringify(p.name)} });
  client = KubeClient.fromConfig({ kubeconfig: flags.kubeconfig, argv: [] });
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
}

const mgr = new Manager({
  client,
  leaderElection: flags["leader-elect"] ? { namespace: client.namespace, name: LEADER_ELECTION_ID } : false,
  metricsBindAddress: flags["metrics-bind-address"],
  healthProbeBindAddress: flags["health-probe-bind-address"],
  logger,
});
// +kubeloop:scaffold:controllers

try {
  if (flags["install-crds"]) {
    await installCRDs(client, Object.values(api).filter(isCustomResource));
    logger.info("installed the CRDs");
  }
  await runUntilSignal(mgr, { logger });
} catch (err) {
  logger.error({ err }, "the manager stopped with an error");
  process.exitCode = 1;
} finally {
  await client.close();
}
`;
}

const API_INDEX = `/**
 * This project's APIs. \`npm run crd:gen\` writes deploy/crds (and the Helm chart's crds/) from the
 * custom resources this module exports; main.ts installs them with --install-crds.
 */
// +kubeloop:scaffold:exports
`;

function crdsTestSource(p: ProjectNames): string {
  return `/**
 * deploy/crds and the Helm chart's crds/ hold what \`npm run crd:gen\` (kubeloop crd gen) writes
 * from the declarations in src/api: this test fails while a committed CRD is stale or missing.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { isCustomResource, plannedFiles, staleFiles } from "kubeloop";
import * as api from ${specifier(`../src/api/index.js`)};

const root = fileURLToPath(new URL("..", import.meta.url));

describe("the CRD manifests", () => {
  it("are generated from the declarations (run npm run crd:gen when this fails)", () => {
    const declared = Object.values(api).filter(isCustomResource);
    expect(declared.length).toBeGreaterThan(0);
    const files = plannedFiles(declared, [join(root, "deploy/crds"), join(root, ${JSON.stringify(`deploy/helm/${p.name}/crds`)})], { source: "dist/api/index.js" });
    expect(staleFiles(files).map((f) => f.path.slice(root.length))).toEqual([]);
  });
});
`;
}

const labels = (p: ProjectNames, indent: string) =>
  [`app.kubernetes.io/name: ${p.name}`, `app.kubernetes.io/instance: ${p.name}`, `app.kubernetes.io/part-of: ${p.name}`].map((l) => indent + l).join("\n");

function namespaceYaml(p: ProjectNames): string {
  return `# The namespace the ${p.name} controller runs in, under the restricted Pod Security profile.
apiVersion: v1
kind: Namespace
metadata:
  name: ${p.namespace}
  labels:
    app.kubernetes.io/name: ${p.name}
    app.kubernetes.io/part-of: ${p.name}
    pod-security.kubernetes.io/enforce: restricted
`;
}

function serviceAccountYaml(p: ProjectNames): string {
  return `apiVersion: v1
kind: ServiceAccount
metadata:
  name: ${p.name}
  namespace: ${p.namespace}
  labels:
${labels(p, "    ")}
`;
}

/** The ClusterRole's rules every project has (leader election's events); each API adds its own at the marker. */
const EVENT_RULE = `  # Events: the leader election's, created, then patched when repeated.
  - apiGroups: [""]
    resources: ["events"]
    verbs: ["create", "patch"]
  # +kubeloop:scaffold:rbac`;

function rbacYaml(p: ProjectNames): string {
  return `# Least privilege: exactly the requests the ${p.name} controllers make. \`kubeloop create api\`
# adds each new API's rules at the scaffold marker.
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ${p.name}
  labels:
${labels(p, "    ")}
rules:
${EVENT_RULE}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: ${p.name}
  labels:
${labels(p, "    ")}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: ${p.name}
subjects:
  - kind: ServiceAccount
    name: ${p.name}
    namespace: ${p.namespace}
---
# Leader election: one Lease in the controller's own namespace.
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: ${p.name}-leader-election
  namespace: ${p.namespace}
  labels:
${labels(p, "    ")}
rules:
  - apiGroups: ["coordination.k8s.io"]
    resources: ["leases"]
    verbs: ["get", "create", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: ${p.name}-leader-election
  namespace: ${p.namespace}
  labels:
${labels(p, "    ")}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: ${p.name}-leader-election
subjects:
  - kind: ServiceAccount
    name: ${p.name}
    namespace: ${p.namespace}
`;
}

/** The container's securityContext and probes: kubeloop's deploy/deployment.yaml's (restricted Pod Security). */
function containerTail(indent: string, resources: string): string {
  return `ports:
  - name: metrics
    containerPort: 8080
    protocol: TCP
  - name: health
    containerPort: 8081
    protocol: TCP
livenessProbe:
  httpGet:
    path: /healthz
    port: health
  initialDelaySeconds: 5
  periodSeconds: 10
readinessProbe:
  httpGet:
    path: /readyz
    port: health
  initialDelaySeconds: 2
  periodSeconds: 5
resources:
${resources}
securityContext:
  allowPrivilegeEscalation: false
  readOnlyRootFilesystem: true
  runAsNonRoot: true
  capabilities:
    drop:
      - ALL
  seccompProfile:
    type: RuntimeDefault`
    .split("\n")
    .map((l) => indent + l)
    .join("\n");
}

const RESOURCES = `  requests:
    cpu: 100m
    memory: 128Mi
  limits:
    cpu: 500m
    memory: 256Mi`;

function deploymentYaml(p: ProjectNames): string {
  return `# The ${p.name} controller. Two replicas are safe: --leader-elect lets one of them work.
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${p.name}-controller
  namespace: ${p.namespace}
  labels:
${labels(p, "    ")}
    app.kubernetes.io/component: controller
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: ${p.name}
      app.kubernetes.io/instance: ${p.name}
      app.kubernetes.io/component: controller
  template:
    metadata:
      labels:
${labels(p, "        ")}
        app.kubernetes.io/component: controller
    spec:
      serviceAccountName: ${p.name}
      automountServiceAccountToken: true
      securityContext:
        runAsNonRoot: true
        runAsUser: 1000
        runAsGroup: 1000
        seccompProfile:
          type: RuntimeDefault
      containers:
        - name: controller
          image: ${p.name}:0.1.0
          imagePullPolicy: IfNotPresent
          args:
            - --leader-elect
            - --metrics-bind-address=:8080
            - --health-probe-bind-address=:8081
${containerTail("          ", RESOURCES)}
      terminationGracePeriodSeconds: 35
`;
}

function kustomizationYaml(p: ProjectNames): string {
  return `# kubectl apply -k deploy/   installs the ${p.name} controller: the namespace, the CRDs, the
# ServiceAccount, least-privilege RBAC and the Deployment (kustomize orders Namespace and CRDs first).
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - namespace.yaml
  # +kubeloop:scaffold:crds
  - serviceaccount.yaml
  - rbac.yaml
  - deployment.yaml
`;
}

function dockerfile(p: ProjectNames): string {
  return `# The ${p.name} controller's image.
#   docker build -f deploy/Dockerfile -t ${p.name}:0.1.0 .
# Build stage: install every dependency exactly as locked (commit package-lock.json; no install
# scripts: the build needs none), compile, then drop dev dependencies.
FROM node:26-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev --ignore-scripts

# Runtime stage: the compiled code and the production dependencies.
FROM node:26-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /src/package.json ./package.json
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
# The node image's unprivileged "node" user (uid/gid 1000), numeric so runAsNonRoot can verify it.
USER 1000:1000
EXPOSE 8080 8081
ENTRYPOINT ["node", "dist/main.js"]
`;
}

const DOCKERIGNORE = `# The build context of deploy/Dockerfile: only what the image is built from.
.git
node_modules
dist
coverage
*.log
*.tgz
test
deploy
.ci
.github
`;

const GITIGNORE = `node_modules/
dist/
coverage/
*.tgz
`;

function chartYaml(p: ProjectNames): string {
  return `apiVersion: v2
name: ${p.name}
description: The ${p.name} controller.
type: application
version: 0.1.0
appVersion: "0.1.0"
`;
}

function valuesYaml(p: ProjectNames): string {
  return `# Install as Helm expects (the chart renders no Namespace, so \`helm uninstall\` never deletes the
# namespace that holds the release's own records):
#   helm install ${p.name} deploy/helm/${p.name} -n ${p.namespace} --create-namespace
# The CRDs are in crds/ (written by npm run crd:gen): Helm installs them before the templates.
image:
  repository: ${p.name}
  tag: "0.1.0"
  pullPolicy: IfNotPresent

# Controller replicas; more than one needs leaderElect.
replicas: 1

# Run only while holding the Lease ${p.name}-controller in the release namespace.
leaderElect: true

resources:
${RESOURCES}
`;
}

function helpersTpl(p: ProjectNames): string {
  const n = p.name;
  return `{{/*
The name of every object of a release (Helm's fullname convention): the release name when it
already contains the chart name, else "<release>-<chart>". Cluster-scoped objects (ClusterRole,
ClusterRoleBinding) therefore never collide between two releases.
*/}}
{{- define "${n}.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* The labels every object of the chart carries. */}}
{{- define "${n}.labels" -}}
{{ include "${n}.selectorLabels" . }}
app.kubernetes.io/part-of: ${n}
{{- end -}}

{{/* The labels that tell one release's controller pods from another's (the Deployment's selector). */}}
{{- define "${n}.selectorLabels" -}}
app.kubernetes.io/name: ${n}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
`;
}

function helmServiceAccount(p: ProjectNames): string {
  return `apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "${p.name}.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "${p.name}.labels" . | nindent 4 }}
`;
}

function helmRbac(p: ProjectNames): string {
  const n = p.name;
  const meta = (name: string, namespaced: boolean) => `metadata:
  name: ${name}${namespaced ? "\n  namespace: {{ .Release.Namespace }}" : ""}
  labels:
    {{- include "${n}.labels" . | nindent 4 }}`;
  const subjects = `subjects:
  - kind: ServiceAccount
    name: {{ include "${n}.fullname" . }}
    namespace: {{ .Release.Namespace }}`;
  return `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
${meta(`{{ include "${n}.fullname" . }}`, false)}
rules:
${EVENT_RULE}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
${meta(`{{ include "${n}.fullname" . }}`, false)}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: {{ include "${n}.fullname" . }}
${subjects}
{{- if .Values.leaderElect }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
${meta(`{{ include "${n}.fullname" . }}-leader-election`, true)}
rules:
  - apiGroups: ["coordination.k8s.io"]
    resources: ["leases"]
    verbs: ["get", "create", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
${meta(`{{ include "${n}.fullname" . }}-leader-election`, true)}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: {{ include "${n}.fullname" . }}-leader-election
${subjects}
{{- end }}
`;
}

function helmDeployment(p: ProjectNames): string {
  const n = p.name;
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "${n}.fullname" . }}-controller
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "${n}.labels" . | nindent 4 }}
    app.kubernetes.io/component: controller
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels:
      {{- include "${n}.selectorLabels" . | nindent 6 }}
      app.kubernetes.io/component: controller
  template:
    metadata:
      labels:
        {{- include "${n}.labels" . | nindent 8 }}
        app.kubernetes.io/component: controller
    spec:
      serviceAccountName: {{ include "${n}.fullname" . }}
      automountServiceAccountToken: true
      securityContext:
        runAsNonRoot: true
        runAsUser: 1000
        runAsGroup: 1000
        seccompProfile:
          type: RuntimeDefault
      containers:
        - name: controller
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
          imagePullPolicy: {{ .Values.image.pullPolicy }}
          args:
            {{- if .Values.leaderElect }}
            - --leader-elect
            {{- end }}
            - --metrics-bind-address=:8080
            - --health-probe-bind-address=:8081
${containerTail("          ", "  {{- toYaml .Values.resources | nindent 12 }}")}
      terminationGracePeriodSeconds: 35
`;
}

const CI_RUN = `#!/usr/bin/env bash
# CI: from a clean clone, install exactly as locked, build, type-check, check that the CRD YAML is
# what the declarations generate, and run the tests (unit tests on the fake client, integration
# tests on kubeloop's in-process test environment).
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== npm ci"; npm ci --no-audit --no-fund
echo "== build"; npm run build
echo "== typecheck"; npm run typecheck
echo "== crd gen --check"; npx kubeloop crd gen --check dist/api/index.js
echo "== test"; npm test
`;

const GITHUB_WORKFLOW = `# Runs .ci/run (the same script runs anywhere else) on every push and pull request.
name: ci
on: [push, pull_request]
jobs:
  ci:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 22
          cache: npm
      - run: bash .ci/run
`;

function projectFileYaml(p: ProjectNames): string {
  return `# Written by kubeloop init; kubeloop create api reads it (the name, the domain) and adds each new
# API to resources.
layout: ${PROJECT_LAYOUT}
projectName: ${p.name}
domain: ${p.domain}
resources:
  # +kubeloop:scaffold:resources
`;
}

function readme(p: ProjectNames, first: ApiNames): string {
  return `# ${p.name}

A Kubernetes controller written in TypeScript on [kubeloop](https://www.npmjs.com/package/kubeloop),
made by \`kubeloop init\`.

\`\`\`
npm install
npm test                      # unit tests (fake client) and integration tests (in-process API server)
\`\`\`

Run it against a cluster. \`kubeloop up\` starts a local control plane and makes it your kubeconfig's
current context; \`npm start\` installs the CRDs there and runs the controllers:

\`\`\`
npx kubeloop up               # in a second terminal
npm start
kubectl apply -f examples/
kubectl get ${first.plural}
\`\`\`

## Layout

| path | what |
|---|---|
| \`src/api/<version>/<kind>.ts\` | each custom resource, declared once (\`defineCustomResource\`): TS type, CRD, typed descriptor |
| \`src/controllers/<kind>.ts\` | its controller, on the builder; \`<kind>.test.ts\` beside it: unit tests on \`ControllerFixture\` |
| \`test/<kind>.integration.test.ts\` | the controller against a real API server (\`startTestEnv()\`) |
| \`test/crds.test.ts\` | fails while \`deploy/crds\` is stale: run \`npm run crd:gen\` |
| \`src/main.ts\` | the manager: leader election, metrics on :8080, probes on :8081 |
| \`deploy/\` | \`kubectl apply -k deploy/\`: namespace, CRDs, ServiceAccount, least-privilege RBAC, Deployment |
| \`deploy/Dockerfile\` | \`docker build -f deploy/Dockerfile -t ${p.name}:0.1.0 .\` (after \`npm install\` wrote package-lock.json) |
| \`deploy/helm/${p.name}\` | the same as a Helm chart: \`helm install ${p.name} deploy/helm/${p.name} -n ${p.namespace} --create-namespace\` |
| \`.ci/run\` | CI from a clean clone (\`.github/workflows/ci.yaml\` runs it) |
| \`examples/\` | a sample object of each kind |

Add a kind: \`npx kubeloop create api --group <group> --version v1 --kind <Kind>\` (\`--cluster\` for a
cluster-scoped one). It writes the declaration, the controller and its tests, the CRD YAML and the
sample, and registers the controller in \`src/main.ts\` and its rules in the RBAC, at the
\`+kubeloop:scaffold\` marker comments — keep them.
`;
}

/** Every project-level file of `kubeloop init` (the first API's files come from api.ts). */
export function projectFiles(p: ProjectNames, t: Toolchain, first: ApiNames): NewFile[] {
  return [
    { path: PROJECT_FILE, text: projectFileYaml(p) },
    { path: "package.json", text: packageJson(p, t) },
    { path: "tsconfig.json", text: TSCONFIG },
    { path: "tsconfig.build.json", text: TSCONFIG_BUILD },
    { path: "vitest.config.ts", text: VITEST_CONFIG },
    { path: ".gitignore", text: GITIGNORE },
    { path: ".dockerignore", text: DOCKERIGNORE },
    { path: "README.md", text: readme(p, first) },
    { path: "src/main.ts", text: mainSource(p) },
    { path: "src/api/index.ts", text: API_INDEX },
    { path: "test/crds.test.ts", text: crdsTestSource(p) },
    { path: "deploy/namespace.yaml", text: namespaceYaml(p) },
    { path: "deploy/serviceaccount.yaml", text: serviceAccountYaml(p) },
    { path: "deploy/rbac.yaml", text: rbacYaml(p) },
    { path: "deploy/deployment.yaml", text: deploymentYaml(p) },
    { path: "deploy/kustomization.yaml", text: kustomizationYaml(p) },
    { path: "deploy/Dockerfile", text: dockerfile(p) },
    { path: `deploy/helm/${p.name}/Chart.yaml`, text: chartYaml(p) },
    { path: `deploy/helm/${p.name}/values.yaml`, text: valuesYaml(p) },
    { path: `deploy/helm/${p.name}/templates/_helpers.tpl`, text: helpersTpl(p) },
    { path: `deploy/helm/${p.name}/templates/serviceaccount.yaml`, text: helmServiceAccount(p) },
    { path: `deploy/helm/${p.name}/templates/rbac.yaml`, text: helmRbac(p) },
    { path: `deploy/helm/${p.name}/templates/deployment.yaml`, text: helmDeployment(p) },
    { path: ".ci/run", text: CI_RUN, executable: true },
    { path: ".github/workflows/ci.yaml", text: GITHUB_WORKFLOW },
  ];
}
