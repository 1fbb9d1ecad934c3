/**
 * The create-only, never-stored resources of authentication.k8s.io and authorization.k8s.io
 * (reviews). They are registered like other resources so that discovery and OpenAPI list them
 * with the single verb "create"; AccessControl answers their POSTs.
 */
import { defineStrategy } from "../registry/define.js";
import type { ResourceStrategy } from "../registry/strategy.js";

const always = () => [];

function review(group: string, kind: string, resource: string, namespaced: boolean): ResourceStrategy {
  return defineStrategy({
    names: { group, version: "v1", kind, resource, singular: kind.toLowerCase(), listKind: `${kind}List`, shortNames: [], categories: [], namespaced },
    verbs: ["create"],
    nameFn: always,
  });
}

export function reviewStrategies(): ResourceStrategy[] {
  return [
    review("authentication.k8s.io", "SelfSubjectReview", "selfsubjectreviews", false),
    review("authentication.k8s.io", "TokenReview", "tokenreviews", false),
    review("authorization.k8s.io", "LocalSubjectAccessReview", "localsubjectaccessreviews", true),
    review("authorization.k8s.io", "SelfSubjectAccessReview", "selfsubjectaccessreviews", false),
    review("authorization.k8s.io", "SelfSubjectRulesReview", "selfsubjectrulesreviews", false),
    review("authorization.k8s.io", "SubjectAccessReview", "subjectaccessreviews", false),
  ];
}
