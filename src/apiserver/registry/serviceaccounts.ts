/**
 * core/v1 ServiceAccounts: metadata validation only (DNS-1123 subdomain names), as upstream.
 * The `token` subresource (TokenRequest) is served elsewhere.
 */
import { nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import { defineStrategy } from "./define.js";
import type { ResourceStrategy } from "./strategy.js";

export const serviceAccountStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: "",
    version: "v1",
    kind: "ServiceAccount",
    resource: "serviceaccounts",
    singular: "serviceaccount",
    listKind: "ServiceAccountList",
    shortNames: ["sa"],
    categories: [],
    namespaced: true,
  },
  nameFn: nameIsDNSSubdomain,
});
