// @ts-check
/**
 * TypeDoc: the API reference of every public entry point, i.e. every "exports" entry of
 * package.json (its `types` file under dist/ maps back to the source under src/). `npm run docs`
 * writes it to dist-docs/api (git-ignored). Warnings are errors (treatWarningsAsErrors), so a
 * public type that names an unexported type, or a broken {@link}, fails the build and the test
 * that runs it (test/docs/typedoc.test.ts).
 */
import { readFileSync } from "node:fs";

const pkg = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8"));

/** The source file of each public entry point, from package.json's exports. */
export const entryPoints = Object.entries(pkg.exports)
  .filter(([, v]) => typeof v === "object" && v !== null && typeof v.types === "string")
  .map(([, v]) => v.types.replace(/^\.\/dist\//, "./src/").replace(/\.d\.ts$/, ".ts"));

/** @type {Partial<import("typedoc").TypeDocOptions>} */
const config = {
  name: "kubeloop",
  entryPoints,
  tsconfig: "tsconfig.build.json",
  out: "dist-docs/api",
  readme: "none",
  excludePrivate: true,
  excludeInternal: true,
  treatWarningsAsErrors: true,
  // Validation: every exported symbol a public type refers to must itself be documented.
  validation: { notExported: true, invalidLink: true, notDocumented: false },
  // Named here, not exported: (1) type-level helpers that TypeDoc shows expanded where they are
  // used; (2) the embedded API server's internal components, which appear as fields and method
  // parameters of ApiServer, AccessControl, FieldManager and the webhook plugins — reachable for
  // in-process tests, but not an API kubeloop promises (StartApiServerOptions and RunningApiServer
  // are). Anything else a public type refers to is exported.
  intentionallyNotExported: [
    // (1)
    "src/runtime/crd/schema.ts:Simplify",
    "src/runtime/crd/schema.ts:RequiredKeys",
    "src/runtime/crd/schema.ts:OptionalKeys",
    "src/runtime/crd/customresource.ts:SpecPart",
    "src/runtime/crd/customresource.ts:SpecOf",
    "src/runtime/crd/customresource.ts:StatusPart",
    "src/runtime/crd/customresource.ts:StatusOf",
    "src/client/typed.ts:Namespaced",
    "src/client/typed.ts:Cluster",
    // (2)
    ...[
      "rest/context.ts:FieldTracker",
      "rest/context.ts:ResourceHooks",
      "rest/context.ts:WriteContext",
      "rest/watch.ts:WatchSettings",
      "admission/interfaces.ts:MutatingAdmissionPlugin",
      "admission/interfaces.ts:ValidatingAdmissionPlugin",
      "admission/interfaces.ts:AdmissionAttributes",
      "admission/interfaces.ts:AdmissionOperation",
      "admission/chain.ts:Admission",
      "admission/chain.ts:AdmissionPluginRegistration",
      "admission/objects.ts:ObjectInterfaces",
      "admission/webhook/source.ts:WebhookSource",
      "admission/webhook/dispatch.ts:DispatchDeps",
      "server/body.ts:ProtobufDecoder",
      "server/env.ts:TableConverter",
      "server/inflight.ts:InFlightLimiter",
      "server/openapiserve.ts:OpenAPISource",
      "server/serving.ts:ServingOptions",
      "server/resources.ts:ResourceRegistry",
      "server/target.ts:RequestURL",
      "server/requestinfo.ts:ResourceRequestInfo",
      "rbac/authorizer.ts:RBACAuthorizer",
      "rbac/authorizer.ts:Decision",
      "rbac/cache.ts:RbacCache",
      "rbac/resolver.ts:RuleResolver",
      "rbac/attributes.ts:Attributes",
      "auth/serviceaccount.ts:ServiceAccountTokens",
      "auth/authenticator.ts:TokenAuthenticator",
      "auth/access.ts:AccessControlDeps",
      "core/clusterapis.ts:ClusterAPIControllers",
      "core/controllers.ts:SystemControllers",
      "crd/controller.ts:CustomResourceController",
      "metrics/metrics.ts:ApiServerMetrics",
      "webhook/index.ts:Webhooks",
      "registry/strategy.ts:ResourceStrategy",
      "storage/memory.ts:Event",
      "ssa/typenode.ts:ListType",
      "ssa/fieldmanager.ts:ApplyOptions",
      "ssa/fieldmanager.ts:GroupVersionKind",
      "openapi/schema.ts:Definitions",
      "openapi/schema.ts:Schema",
    ].map((n) => `src/apiserver/${n}`),
  ],
  // The generated wire types carry upstream's descriptions verbatim; Quantity's opens a code
  // fence with its grammar ("``` <quantity> ::= ..."), which is not a language.
  ignoredHighlightLanguages: ["<quantity>"],
  githubPages: false,
  disableSources: true,
  logLevel: "Warn",
};

export default config;
