/**
 * The Kubernetes base CEL environment (k8s.io/apiserver/pkg/cel/environment/base.go at the
 * 1.36 compatibility version): homogeneous aggregate literals, cross-type numeric comparisons,
 * optional types, the literal validators, the strings extension (version 2), sets, two-variable
 * comprehensions, cel.bind, and Kubernetes' libraries — URLs, regex, lists, quantity, IP, CIDR,
 * format, semver. Built once per process; callers extend it with their variables (CRD rules
 * add `self` and `oldSelf`, admission policies add `object`, `request`, `params`, ...).
 *
 * Not included: the authz library (no authorizer is declared for CRD rules; admission policies
 * add it with their variables) and the image library.
 */
import { Env } from "./env.js";
import { formatLibrary } from "./lib/format.js";
import { ipLibrary } from "./lib/ip.js";
import { listsLibrary, setsLibrary } from "./lib/lists.js";
import { optionalLibrary } from "./lib/optional.js";
import { quantityLibrary } from "./lib/quantity.js";
import { regexLibrary } from "./lib/regex.js";
import { semverLibrary } from "./lib/semver.js";
import { stringsLibrary } from "./lib/strings.js";
import { urlsLibrary } from "./lib/url.js";
import { standardLibrary } from "./stdlib.js";

let base: Env | undefined;
let conformance: Env | undefined;

/** The Kubernetes base environment (no variables). */
export function kubernetesEnv(): Env {
  base ??= Env.create(
    [
      standardLibrary(),
      optionalLibrary(),
      stringsLibrary(2),
      setsLibrary(),
      urlsLibrary(),
      regexLibrary(),
      listsLibrary(),
      quantityLibrary(),
      ipLibrary(),
      formatLibrary(),
      semverLibrary(),
    ],
    { homogeneousLiterals: true, optionalSyntax: true, twoVarComprehensions: true, validateLiterals: true },
  );
  return base;
}

/**
 * The environment cel-spec's conformance files assume: the standard library with optional
 * types, the latest strings extension and cel.bind, and no Kubernetes restrictions
 * (heterogeneous literals allowed).
 */
export function celConformanceEnv(): Env {
  conformance ??= Env.create([standardLibrary(), optionalLibrary(), stringsLibrary(3)], { optionalSyntax: true, twoVarComprehensions: true });
  return conformance;
}
