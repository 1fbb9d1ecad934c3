/**
 * The files of one API in a scaffolded project (`kubeloop create api`, and `kubeloop init` for its
 * first kind): the custom resource declared in TypeScript, its controller on the builder, unit
 * tests on ControllerFixture, an integration test on startTestEnv, a sample object, the generated
 * CRD YAML — and the edits that register the kind at the project's scaffold markers (main.ts, the
 * API index, RBAC in deploy/ and in the Helm chart, the kustomization).
 *
 * A namespaced kind's controller keeps a ConfigMap (its spec.message) controlled by the object; a
 * cluster-scoped one, which cannot own namespaced objects by default, reconciles its status only.
 *
 * The CRD YAML is rendered here from `starterResource` — the same declaration, built in memory,
 * that `declarationSource` writes as TypeScript — with the header `npm run crd:gen` writes; the
 * scaffold's own test/crds.test.ts fails if the two ever differ.
 */
import { defineCustomResource, type CustomResourceInfo } from "../../runtime/crd/customresource.js";
import { plannedFiles } from "../../runtime/crd/generate.js";
import { k } from "../../runtime/crd/schema.js";
import { specifier, type ApiNames, type ProjectNames } from "./names.js";
import type { ScaffoldPlan } from "./writer.js";

/** The module `npm run crd:gen` hands to `kubeloop crd gen` (named in the YAML headers). */
export const CRD_GEN_MODULE = "dist/api/index.js";

/** The declaration of the starter schema, in memory (what declarationSource writes). */
export function starterResource(a: ApiNames): CustomResourceInfo {
  const condition = k.object({
    type: k.string(),
    status: k.enum(["True", "False", "Unknown"]),
    observedGeneration: k.integer({ format: "int64" }).optional(),
    lastTransitionTime: k.dateTime().optional(),
    reason: k.string().optional(),
    message: k.string().optional(),
  });
  const namespaced = a.scope === "Namespaced";
  const status = namespaced
    ? k.object({
        observedGeneration: k.integer({ format: "int64" }).optional(),
        configMapName: k.string({ description: "The ConfigMap holding the message." }).optional(),
        conditions: k.array(condition, { listType: "map", mapKeys: ["type"] }).optional(),
      })
    : k.object({
        observedGeneration: k.integer({ format: "int64" }).optional(),
        conditions: k.array(condition, { listType: "map", mapKeys: ["type"] }).optional(),
      });
  return defineCustomResource({
    group: a.group,
    scope: a.scope,
    names: { kind: a.kind, plural: a.plural },
    versions: {
      [a.version]: {
        description: describeKind(a),
        spec: k.object({ message: k.string({ description: messageDescription(a), minLength: 1 }) }),
        status: status.optional(),
        subresources: { status: true },
        printerColumns: [
          { name: "Message", type: "string", jsonPath: ".spec.message" },
          { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
        ],
      },
    },
  });
}

function describeKind(a: ApiNames): string {
  return a.scope === "Namespaced" ? `A ${a.kind} keeps a ConfigMap holding its message.` : `A ${a.kind} reports in its status that it was reconciled.`;
}

function messageDescription(a: ApiNames): string {
  return a.scope === "Namespaced" ? `The text the ${a.kind}'s ConfigMap holds (data.message).` : `A message (the controller reports in status that it saw it).`;
}

/** The TypeScript declaration (src/api/<version>/<kind>.ts). */
export function declarationSource(a: ApiNames): string {
  const namespaced = a.scope === "Namespaced";
  const q = JSON.stringify;
  return `/**
 * The ${a.kind} API (${a.group}/${a.version}), declared once: the TypeScript type below, the CRD
 * (deploy/crds/${a.crdName}.yaml and the Helm chart's copy, written by \`npm run crd:gen\`;
 * test/crds.test.ts fails while they are stale) and the typed \`${a.ident}\` descriptor that the
 * client, the informers and the controller builder take (\`${a.ident}.resource\`).
 */
import { defineCustomResource, k, type CustomResourceObject } from "kubeloop";

/** A metav1.Condition, as the CRD's schema declares it. */
const condition = k.object({
  type: k.string(),
  status: k.enum(["True", "False", "Unknown"]),
  observedGeneration: k.integer({ format: "int64" }).optional(),
  lastTransitionTime: k.dateTime().optional(),
  reason: k.string().optional(),
  message: k.string().optional(),
});

export const ${a.ident} = defineCustomResource({
  group: ${q(a.group)},
  scope: ${q(a.scope)},
  names: { kind: ${q(a.kind)}, plural: ${q(a.plural)} },
  versions: {
    ${a.version}: {
      description: ${q(describeKind(a))},
      spec: k.object({
        message: k.string({ description: ${q(messageDescription(a))}, minLength: 1 }),
      }),
      status: k
        .object({
          observedGeneration: k.integer({ format: "int64" }).optional(),${namespaced ? `\n          configMapName: k.string({ description: "The ConfigMap holding the message." }).optional(),` : ""}
          conditions: k.array(condition, { listType: "map", mapKeys: ["type"] }).optional(),
        })
        .optional(),
      subresources: { status: true },
      printerColumns: [
        { name: "Message", type: "string", jsonPath: ".spec.message" },
        { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
      ],
    },
  },
});

export type ${a.kind} = CustomResourceObject<typeof ${a.ident}>;
`;
}

const CONTROLLER_HEADER_NAMESPACED = (a: ApiNames) => `/**
 * The ${a.kind} controller, on kubeloop's builder. Every ${a.kind} gets a ConfigMap named
 * "<name>-${a.singular}" in its namespace holding spec.message, controlled by the ${a.kind} (so the
 * garbage collector deletes it with the ${a.kind}), and a Ready condition saying whether it is in place:
 *
 *   for(${a.ident})        a ${a.kind} created, changed (a new generation) or deleted
 *   owns(configMaps)   a change to a ConfigMap a ${a.kind} controls → that ${a.kind}
 *   reconcile          the ${a.kind} from the cache (gone → done); its ConfigMap created when absent,
 *                      updated when its data differs, left alone when someone else controls it
 *                      (Ready=False and an error, retried with backoff); then the status, written
 *                      only when it changed — a steady state makes no writes.
 *
 * Objects from the cache are frozen: every write starts from a copy.
 */`;

const CONTROLLER_HEADER_CLUSTER = (a: ApiNames) => `/**
 * The ${a.kind} controller, on kubeloop's builder. A ${a.kind} is cluster-scoped; the controller
 * records that it reconciled each one (observedGeneration and a Ready condition) — the place to
 * add what your ${a.kind} should do.
 *
 *   for(${a.ident})        a ${a.kind} created, changed (a new generation) or deleted
 *   reconcile          the ${a.kind} from the cache (gone → done); then the status, written only
 *                      when it changed — a steady state makes no writes.
 *
 * Objects from the cache are frozen: every write starts from a copy.
 */`;

/** The controller (src/controllers/<kind>.ts). */
export function controllerSource(a: ApiNames, p: ProjectNames): string {
  const namespaced = a.scope === "Namespaced";
  const K = a.kind;
  const fm = `${p.name}-${a.singular}-controller`;
  const imports = namespaced
    ? [
        "builtin",
        "deepCopy",
        "generationChanged",
        "isControlledBy",
        "semanticEqual",
        "setControllerReference",
        "setStatusCondition",
        "type Controller",
        "type Manager",
        "type ObjectName",
        "type ObjectOf",
        "type ReconcileContext",
      ]
    : ["deepCopy", "generationChanged", "semanticEqual", "setStatusCondition", "type Controller", "type Manager", "type ObjectName", "type ReconcileContext"];
  const head = `${namespaced ? CONTROLLER_HEADER_NAMESPACED(a) : CONTROLLER_HEADER_CLUSTER(a)}
import {
${imports.map((i) => `  ${i},`).join("\n")}
} from "kubeloop";
import { ${a.ident}, type ${K} } from ${specifier(`../api/${a.version}/${a.singular}.js`)};

/** The field manager of every write this controller makes. */
export const ${upper(a.singular)}_FIELD_MANAGER = ${JSON.stringify(fm)};

type ${K}Status = NonNullable<${K}["status"]>;
type Ready = { ok: boolean; reason: string; message: string };
`;
  const setup = `
/** Builds the ${K} controller on \`mgr\`. */
export function setup${K}Controller(mgr: Manager): Controller {
  return mgr
    .controller(${JSON.stringify(a.singular)})
    .for(${a.ident}.resource, { predicates: [generationChanged] })${namespaced ? "\n    .owns(builtin.configMaps)" : ""}
    .reconcile((req, ctx) => reconcile${K}(req, ctx));
}
`;
  const writeStatus = `
/** Writes observedGeneration and the Ready condition through the status subresource, when they changed. */
async function writeStatus(ctx: ReconcileContext, obj: ${K}, ready: Ready${namespaced ? ", configMapName: string" : ""}): Promise<void> {
  const status: ${K}Status = deepCopy(obj.status ?? {});
  const generation = obj.metadata?.generation;
  status.observedGeneration = generation;${namespaced ? "\n  status.configMapName = configMapName;" : ""}
  const conditions = status.conditions ?? [];
  const condition = { type: "Ready", status: ready.ok ? "True" : "False", reason: ready.reason, message: ready.message, observedGeneration: generation } as const;
  setStatusCondition(conditions, condition, ctx.clock.now());
  status.conditions = conditions;
  if (semanticEqual(obj.status, status)) return;
  const copy = deepCopy(obj);
  copy.apiVersion ??= \`\${${a.ident}.resource.group}/\${${a.ident}.resource.version}\`;
  copy.kind ??= ${a.ident}.resource.kind;
  copy.status = status;
  await ctx.client.resource(${a.ident}.resource${namespaced ? ", obj.metadata?.namespace ?? \"\"" : ""}).updateStatus(copy, { fieldManager: ${upper(a.singular)}_FIELD_MANAGER });
}
`;
  if (!namespaced) {
    return `${head}${setup}
/** One reconcile of one ${K}; throws to be retried with backoff. */
export async function reconcile${K}(req: ObjectName, ctx: ReconcileContext): Promise<void> {
  const obj = ctx.cache.get(${a.ident}.resource, req);
  if (!obj || obj.metadata?.deletionTimestamp) return;
  await writeStatus(ctx, obj, { ok: true, reason: "Reconciled", message: \`saw message \${JSON.stringify(obj.spec.message)}\` });
}
${writeStatus}`;
  }
  return `${head}
type ConfigMap = ObjectOf<typeof builtin.configMaps>;

/** The name of the ConfigMap a ${K} keeps. */
export function configMapNameOf(obj: ${K}): string {
  return \`\${obj.metadata?.name}-${a.singular}\`;
}

/** The ConfigMap a ${K} wants: its message, controlled by it. */
export function desiredConfigMap(obj: ${K}): ConfigMap {
  const cm: ConfigMap = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: configMapNameOf(obj), namespace: obj.metadata?.namespace, labels: { "app.kubernetes.io/managed-by": ${JSON.stringify(p.name)} } },
    data: { message: obj.spec.message },
  };
  const gvk = { group: ${a.ident}.resource.group, version: ${a.ident}.resource.version, kind: ${a.ident}.resource.kind };
  return setControllerReference(obj, cm, { gvk });
}
${setup}
/** One reconcile of one ${K}; throws to be retried with backoff. */
export async function reconcile${K}(req: ObjectName, ctx: ReconcileContext): Promise<void> {
  const obj = ctx.cache.get(${a.ident}.resource, req);
  // Gone, or going: its ConfigMap goes with it (the garbage collector follows the owner reference).
  if (!obj || obj.metadata?.deletionTimestamp) return;
  const name = configMapNameOf(obj);
  const configMaps = ctx.client.resource(builtin.configMaps, req.namespace);
  const live = ctx.cache.get(builtin.configMaps, { namespace: req.namespace, name });
  const want = desiredConfigMap(obj);
  if (!live) {
    await configMaps.create(want, { fieldManager: ${upper(a.singular)}_FIELD_MANAGER });
    ctx.log.info({ configMap: name }, "created ConfigMap");
  } else if (!isControlledBy(live, obj)) {
    const message = \`ConfigMap \${name} exists and is not controlled by this ${K}\`;
    await writeStatus(ctx, obj, { ok: false, reason: "ConfigMapExists", message }, name);
    throw new Error(message);
  } else if (!semanticEqual(live.data ?? {}, want.data)) {
    const next = deepCopy(live);
    next.data = want.data;
    await configMaps.update(next, { fieldManager: ${upper(a.singular)}_FIELD_MANAGER });
    ctx.log.info({ configMap: name }, "updated ConfigMap");
  }
  await writeStatus(ctx, obj, { ok: true, reason: "ConfigMapReady", message: \`ConfigMap \${name} holds the message\` }, name);
}
${writeStatus}`;
}

function upper(s: string): string {
  return s.toUpperCase();
}

/** The unit tests (src/controllers/<kind>.test.ts), on ControllerFixture and its fake client. */
export function unitTestSource(a: ApiNames): string {
  const K = a.kind;
  const namespaced = a.scope === "Namespaced";
  const ns = namespaced ? `, namespace: "default"` : "";
  const key = namespaced ? `"default/sample"` : `"sample"`;
  const common = `/**
 * Unit tests of the ${K} controller in the shape of sample-controller's controller_test.go: objects
 * seeded into a fake API and the informer caches (ControllerFixture, on a fake clock), one
 * reconcile, then the client's write actions compared with the expected ones.
 */
import { describe, expect, it } from "vitest";
import { ControllerFixture, type Action } from "kubeloop/testing";
import { ${a.ident}, type ${K} } from ${specifier(`../api/${a.version}/${a.singular}.js`)};
import { ${namespaced ? "desiredConfigMap, " : ""}setup${K}Controller } from ${specifier(`./${a.singular}.js`)};

function new${K}(message = "hello"): ${K} {
  return { apiVersion: "${a.group}/${a.version}", kind: "${K}", metadata: { name: "sample"${ns}, generation: 1 }, spec: { message } };
}

/** "verb resource[/subresource]": an action in short. */
const sig = (a: Action) => \`\${a.verb} \${a.resource}\${a.subresource ? \`/\${a.subresource}\` : ""}\`;

/** Seeds \`objects\`, runs one reconcile of sample, and returns the writes it made. */
async function reconcileOnce(seed: (f: ControllerFixture) => void, expectError = false): Promise<Action[]> {
  const f = new ControllerFixture();
  const c = setup${K}Controller(f.manager);
  seed(f);
  let error: unknown;
  try {
    await f.reconcile(c, ${key});
  } catch (err) {
    error = err;
  }
  if (expectError) expect(error).toBeDefined();
  else expect(error).toBeUndefined();
  return f.writeActions();
}

/** The ${K}'s status as the first reconcile writes it. */
function statusOf(writes: Action[]): ${K}["status"] {
  const update = writes.find((w) => w.subresource === "status");
  return (update?.object as unknown as ${K}).status;
}
`;
  if (!namespaced) {
    return `${common}
describe("the ${K} controller", () => {
  it("writes observedGeneration and Ready=True", async () => {
    const writes = await reconcileOnce((f) => void f.seed(${a.ident}.resource, new${K}()));
    expect(writes.map(sig)).toEqual(["update ${a.plural}/status"]);
    const status = statusOf(writes)!;
    expect(status.observedGeneration).toBe(1);
    expect(status.conditions).toEqual([expect.objectContaining({ type: "Ready", status: "True", reason: "Reconciled" })]);
  });

  it("makes no write in steady state", async () => {
    const status = statusOf(await reconcileOnce((f) => void f.seed(${a.ident}.resource, new${K}())));
    const writes = await reconcileOnce((f) => void f.seed(${a.ident}.resource, { ...new${K}(), status }));
    expect(writes).toEqual([]);
  });

  it("does nothing for a ${K} that no longer exists", async () => {
    expect(await reconcileOnce(() => undefined)).toEqual([]);
  });
});
`;
  }
  return `${common}
describe("the ${K} controller", () => {
  it("creates the ConfigMap and writes Ready=True", async () => {
    const writes = await reconcileOnce((f) => void f.seed(${a.ident}.resource, new${K}()));
    expect(writes.map(sig)).toEqual(["create configmaps", "update ${a.plural}/status"]);
    const cm = writes[0].object as unknown as ReturnType<typeof desiredConfigMap>;
    expect(cm.metadata?.name).toBe("sample-${a.singular}");
    expect(cm.data).toEqual({ message: "hello" });
    expect(cm.metadata?.ownerReferences).toEqual([expect.objectContaining({ kind: "${K}", name: "sample", controller: true })]);
    const status = statusOf(writes)!;
    expect(status.configMapName).toBe("sample-${a.singular}");
    expect(status.conditions).toEqual([expect.objectContaining({ type: "Ready", status: "True", reason: "ConfigMapReady", observedGeneration: 1 })]);
  });

  it("makes no write in steady state", async () => {
    const first = await reconcileOnce((f) => {
      const [obj] = f.seed(${a.ident}.resource, new${K}());
      f.seed(builtin.configMaps, desiredConfigMap(obj));
    });
    const status = statusOf(first);
    const writes = await reconcileOnce((f) => {
      const [obj] = f.seed(${a.ident}.resource, { ...new${K}(), status });
      f.seed(builtin.configMaps, desiredConfigMap(obj));
    });
    expect(writes).toEqual([]);
  });

  it("updates the ConfigMap when the message changes", async () => {
    const writes = await reconcileOnce((f) => {
      const [obj] = f.seed(${a.ident}.resource, new${K}("new text"));
      f.seed(builtin.configMaps, desiredConfigMap({ ...obj, spec: { message: "old text" } }));
    });
    expect(writes.map(sig)).toEqual(["update configmaps", "update ${a.plural}/status"]);
    expect((writes[0].object as unknown as ReturnType<typeof desiredConfigMap>).data).toEqual({ message: "new text" });
  });

  it("leaves a ConfigMap it does not control alone, and says so in Ready=False", async () => {
    const writes = await reconcileOnce((f) => {
      f.seed(${a.ident}.resource, new${K}());
      f.seed(builtin.configMaps, { metadata: { name: "sample-${a.singular}", namespace: "default" }, data: { message: "theirs" } });
    }, true);
    expect(writes.map(sig)).toEqual(["update ${a.plural}/status"]);
    expect(statusOf(writes)!.conditions).toEqual([expect.objectContaining({ type: "Ready", status: "False", reason: "ConfigMapExists" })]);
  });

  it("does nothing for a ${K} that no longer exists", async () => {
    expect(await reconcileOnce(() => undefined)).toEqual([]);
  });
});
`.replace(`import { ControllerFixture, type Action } from "kubeloop/testing";`, `import { builtin } from "kubeloop";\nimport { ControllerFixture, type Action } from "kubeloop/testing";`);
}

/** The integration test (test/<kind>.integration.test.ts), on startTestEnv. */
export function integrationTestSource(a: ApiNames): string {
  const K = a.kind;
  const namespaced = a.scope === "Namespaced";
  const client = namespaced ? `env.client.resource(${a.ident}.resource, "default")` : `env.client.resource(${a.ident}.resource)`;
  const meta = namespaced ? `{ name: "sample", namespace: "default" }` : `{ name: "sample" }`;
  const body = namespaced
    ? `
  it("keeps a ConfigMap with the ${K}'s message, and reports Ready", async () => {
    await ${client}.create({ apiVersion: "${a.group}/${a.version}", kind: "${K}", metadata: ${meta}, spec: { message: "hello" } });
    const ready = await eventually(async () => {
      const obj = await ${client}.get("sample");
      return obj.status?.conditions?.find((c) => c.type === "Ready" && c.status === "True") && obj;
    }, { what: "the ${K} to be Ready" });
    expect(ready.status?.configMapName).toBe("sample-${a.singular}");
    const configMaps = env.client.resource(builtin.configMaps, "default");
    expect((await configMaps.get("sample-${a.singular}")).data).toEqual({ message: "hello" });

    // A new message reaches the ConfigMap.
    await ${client}.patch("sample", "merge", { spec: { message: "goodbye" } });
    await eventually(async () => (await configMaps.get("sample-${a.singular}")).data?.message === "goodbye", { what: "the ConfigMap to follow the message" });
  });
`
    : `
  it("reports Ready with the ${K}'s generation", async () => {
    await ${client}.create({ apiVersion: "${a.group}/${a.version}", kind: "${K}", metadata: ${meta}, spec: { message: "hello" } });
    const ready = await eventually(async () => {
      const obj = await ${client}.get("sample");
      return obj.status?.conditions?.find((c) => c.type === "Ready" && c.status === "True") && obj;
    }, { what: "the ${K} to be Ready" });
    expect(ready.status?.observedGeneration).toBe(ready.metadata?.generation);
  });
`;
  return `/**
 * The ${K} controller against a real API server: startTestEnv() runs kubeloop's embedded control
 * plane in this process (no built-in controllers, as envtest), installs the CRDs from deploy/crds,
 * and the controller runs on the environment's manager.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
${namespaced ? `import { builtin } from "kubeloop";\n` : ""}import { eventually, startTestEnv, type TestEnv } from "kubeloop/testing";
import { ${a.ident} } from ${specifier(`../src/api/${a.version}/${a.singular}.js`)};
import { setup${K}Controller } from ${specifier(`../src/controllers/${a.singular}.js`)};

let env: TestEnv;

beforeAll(async () => {
  env = await startTestEnv({ crdDirectoryPaths: [fileURLToPath(new URL("../deploy/crds", import.meta.url))] });
  setup${K}Controller(env.manager);
  await env.start();
});

afterAll(async () => {
  await env?.stop();
});

describe("the ${K} controller in the test environment", () => {${body}});
`;
}

/** A sample object (examples/<kind>.yaml). */
export function sampleSource(a: ApiNames): string {
  return `# A sample ${a.kind}: kubectl apply -f examples/${a.singular}.yaml
apiVersion: ${a.group}/${a.version}
kind: ${a.kind}
metadata:
  name: ${a.singular}-sample${a.scope === "Namespaced" ? "\n  namespace: default" : ""}
spec:
  message: Hello from ${a.singular}-sample
`;
}

/** The ClusterRole rules the controller of `a` needs (inserted at the rbac marker). */
export function rbacRules(a: ApiNames): string[] {
  const rules = [
    `# ${a.kind}s: read through the informer; status written through its subresource only;
# finalizers: the owner references it sets carry blockOwnerDeletion (OwnerReferencesPermissionEnforcement).
- apiGroups: [${JSON.stringify(a.group)}]
  resources: [${JSON.stringify(a.plural)}]
  verbs: ["get", "list", "watch"]
- apiGroups: [${JSON.stringify(a.group)}]
  resources: [${JSON.stringify(`${a.plural}/status`)}]
  verbs: ["update", "patch"]
- apiGroups: [${JSON.stringify(a.group)}]
  resources: [${JSON.stringify(`${a.plural}/finalizers`)}]
  verbs: ["update"]`,
  ];
  if (a.scope === "Namespaced") {
    rules.push(`# The ConfigMaps the controllers keep: read through the informer, created and updated (never
# deleted: the garbage collector removes them with their owner).
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get", "list", "watch", "create", "update", "patch"]`);
  }
  return rules;
}

/** Everything `create api` writes and edits for `a` in project `p`. */
export function apiPlan(p: ProjectNames, a: ApiNames): ScaffoldPlan {
  const crdFiles = plannedFiles([starterResource(a)], ["deploy/crds", `deploy/helm/${p.name}/crds`], { source: CRD_GEN_MODULE });
  const rbac = rbacRules(a);
  return {
    files: [
      { path: `src/api/${a.version}/${a.singular}.ts`, text: declarationSource(a) },
      { path: `src/controllers/${a.singular}.ts`, text: controllerSource(a, p) },
      { path: `src/controllers/${a.singular}.test.ts`, text: unitTestSource(a) },
      { path: `test/${a.singular}.integration.test.ts`, text: integrationTestSource(a) },
      { path: `examples/${a.singular}.yaml`, text: sampleSource(a) },
      ...crdFiles.map((f) => ({ path: f.path, text: f.text })),
    ],
    edits: [
      { path: "src/api/index.ts", section: "exports", snippet: `export { ${a.ident}, type ${a.kind} } from ${specifier(`./${a.version}/${a.singular}.js`)};` },
      { path: "src/main.ts", section: "imports", snippet: `import { setup${a.kind}Controller } from ${specifier(`./controllers/${a.singular}.js`)};` },
      { path: "src/main.ts", section: "controllers", snippet: `setup${a.kind}Controller(mgr);` },
      { path: "deploy/kustomization.yaml", section: "crds", snippet: `- crds/${a.crdName}.yaml` },
      ...rbac.map((snippet) => ({ path: "deploy/rbac.yaml", section: "rbac", snippet })),
      ...rbac.map((snippet) => ({ path: `deploy/helm/${p.name}/templates/rbac.yaml`, section: "rbac", snippet })),
    ],
  };
}
