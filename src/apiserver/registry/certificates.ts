/**
 * certificates.k8s.io/v1 CertificateSigningRequests with the status and approval subresources
 * (pkg/apis/certificates/validation, pkg/registry/certificates/certificates/strategy.go) and
 * the admission plugins that guard them (CertificateApproval, CertificateSigning,
 * CertificateSubjectRestriction).
 *
 * - Create: spec.username/uid/groups/extra come from the requesting user, status starts empty;
 *   the request must be a valid self-signed PKCS#10 PEM block, usages known and unique, the
 *   signerName `domain/path` (not the legacy-unknown signer), expirationSeconds ≥ 600.
 * - Main-resource updates change metadata only (spec and status are kept).
 * - /status keeps the spec and the Approved/Denied conditions, and may set the certificate once.
 * - /approval changes only status.conditions (Approved or Denied, mutually exclusive, never
 *   removed); condition timestamps are filled in by the server.
 * - Approving needs `approve` and issuing needs `sign` on `signers` (the signer name, or
 *   `<domain>/*`); a kube-apiserver-client request may not ask for the system:masters group.
 */
import type { Clock } from "../../apimachinery/clock.js";
import { StatusError } from "../../apimachinery/errors.js";
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { isDNS1123Label, isDNS1123Subdomain } from "../../apimachinery/validation.js";
import { X509Certificate } from "node:crypto";
import { checkCertificateRequest, decodePEMBlocks, parseCertificateRequest } from "../auth/csr.js";
import type { UserInfo } from "../auth/user.js";
import type { ResourceHooks } from "../rest/context.js";
import { formatTime } from "../rest/metadata.js";
import { defineStrategy } from "./define.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { validateObjectMetaUpdate } from "./meta.js";
import { child, index } from "./path.js";
import { GoValueError, fieldsOf, goBytes, num, objAt, rec, records, str, strings, text, type Obj } from "./shape.js";
import type { ResourceStrategy, SubresourceStrategy } from "./strategy.js";

export const certificatesGroup = "certificates.k8s.io";
export const kubeAPIServerClientSignerName = "kubernetes.io/kube-apiserver-client";
export const kubeAPIServerClientKubeletSignerName = "kubernetes.io/kube-apiserver-client-kubelet";
export const kubeletServingSignerName = "kubernetes.io/kubelet-serving";
export const legacyUnknownSignerName = "kubernetes.io/legacy-unknown";

const allValidUsages = [
  "any",
  "cert sign",
  "client auth",
  "code signing",
  "content commitment",
  "crl sign",
  "data encipherment",
  "decipher only",
  "digital signature",
  "email protection",
  "encipher only",
  "ipsec end system",
  "ipsec tunnel",
  "ipsec user",
  "key agreement",
  "key encipherment",
  "microsoft sgc",
  "netscape sgc",
  "ocsp signing",
  "s/mime",
  "server auth",
  "signing",
  "timestamping",
];

/** Condition types that may only be True. */
const trueConditionTypes = new Set(["Approved", "Denied", "Failed"]);

const spec = (o: KubeObject): Obj => rec(fieldsOf(o).spec) ?? {};
const status = (o: KubeObject): Obj => rec(fieldsOf(o).status) ?? {};
const conditions = (o: KubeObject): Obj[] => records(status(o).conditions);
/** A []byte field (base64 in JSON) as bytes; undefined when absent or not base64 text. */
function bytesOf(v: unknown): Buffer | undefined {
  const s = str(v);
  return s === undefined ? undefined : Buffer.from(s, "base64");
}
const certificateOf = (o: KubeObject) => bytesOf(status(o).certificate) ?? Buffer.alloc(0);

/** ValidateSignerName (core validation): `<fqdn>/<path>`, each part checked, ≤ 571 characters. */
export function validateSignerName(signerName: string, field: string): FieldError[] {
  if (signerName.length === 0) return [fieldErrors.required(field, "")];
  const segments = signerName.split("/");
  if (segments.length !== 2) return [fieldErrors.invalid(field, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const errs: FieldError[] = [];
  const [domain, path] = segments;
  if (domain.length > 253) errs.push(fieldErrors.tooLong(field, domain, 253));
  const labels = domain.split(".");
  for (const lbl of labels) {
    const e = isDNS1123Label(lbl);
    if (e.length) {
      for (const msg of e) errs.push(fieldErrors.invalid(field, domain, `validating label ${JSON.stringify(lbl)}: ${msg}`));
      break;
    }
  }
  if (labels.length < 2) errs.push(fieldErrors.invalid(field, domain, "should be a domain with at least two segments separated by dots"));
  for (const lbl of path.split(".")) {
    const e = isDNS1123Subdomain(lbl);
    if (e.length) {
      for (const msg of e) errs.push(fieldErrors.invalid(field, path, `validating component ${JSON.stringify(lbl)}: ${msg}`));
      break;
    }
  }
  const max = 253 + (253 + 63 + 1) + 1;
  if (signerName.length > max) errs.push(fieldErrors.tooLong(field, signerName, max));
  return errs;
}

/** validateCertificate: zero or more CERTIFICATE blocks, no headers, each parsing as X.509. */
function certificateError(pem: Buffer): string | undefined {
  if (pem.length === 0) return undefined;
  const blocks = decodePEMBlocks(pem.toString("latin1"));
  for (const b of blocks) {
    if (b.type !== "CERTIFICATE") return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(b.type)}`;
    if (b.headers) return "no PEM block headers are permitted";
    try {
      new X509Certificate(b.der);
    } catch {
      return "x509: malformed certificate";
    }
  }
  if (blocks.length === 0) return "must contain at least one CERTIFICATE PEM block";
  return undefined;
}

interface Options {
  allowSettingApprovalConditions: boolean;
  allowSettingCertificate: boolean;
  allowBothApprovedAndDenied: boolean;
  allowLegacySignerName: boolean;
  allowDuplicateConditionTypes: boolean;
  allowEmptyConditionType: boolean;
  allowArbitraryCertificate: boolean;
  allowUnknownUsages: boolean;
  allowDuplicateUsages: boolean;
}

/** getValidationOptions: tolerate on update what the stored object already has. */
function optionsFor(obj: KubeObject, old: KubeObject | undefined): Options {
  const oldTypes = old ? conditions(old).map((c) => text(c.type)) : [];
  const oldUsages = old ? strings(spec(old).usages) : [];
  return {
    allowSettingApprovalConditions: false,
    allowSettingCertificate: false,
    allowBothApprovedAndDenied: oldTypes.includes("Approved") && oldTypes.includes("Denied"),
    allowLegacySignerName: old !== undefined && text(spec(old).signerName) === legacyUnknownSignerName,
    allowDuplicateConditionTypes: new Set(oldTypes).size !== oldTypes.length,
    allowEmptyConditionType: oldTypes.includes(""),
    allowArbitraryCertificate: old !== undefined && (certificateOf(obj).equals(certificateOf(old)) || certificateError(certificateOf(old)) !== undefined),
    allowUnknownUsages: oldUsages.some((u) => !allValidUsages.includes(u)),
    allowDuplicateUsages: new Set(oldUsages).size !== oldUsages.length,
  };
}

function validateConditions(obj: KubeObject, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const f = "status.conditions";
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  conditions(obj).forEach((c, i) => {
    const type = text(c.type);
    if (!opts.allowEmptyConditionType && type.length === 0) errs.push(fieldErrors.required(child(index(f, i), "type"), ""));
    const allowed = trueConditionTypes.has(type) ? ["True"] : ["False", "True", "Unknown"];
    const st = text(c.status);
    if (st === "") errs.push(fieldErrors.required(child(index(f, i), "status"), ""));
    else if (!allowed.includes(st)) errs.push(fieldErrors.notSupported(child(index(f, i), "status"), st, allowed));
    if (!opts.allowBothApprovedAndDenied) {
      if (type === "Approved") {
        approved = true;
        if (denied) errs.push(fieldErrors.invalid(f, type, "Approved and Denied conditions are mutually exclusive"));
      } else if (type === "Denied") {
        denied = true;
        if (approved) errs.push(fieldErrors.invalid(f, type, "Approved and Denied conditions are mutually exclusive"));
      }
    }
    if (!opts.allowDuplicateConditionTypes) {
      if (seen.has(type)) errs.push(fieldErrors.duplicate(child(index(f, i), "type"), type));
      seen.add(type);
    }
  });
  return errs;
}

/** validateCertificateSigningRequest (ObjectMeta is validated by the store). */
function validateCSR(obj: KubeObject, opts: Options): FieldError[] {
  const s = spec(obj);
  const errs: FieldError[] = [];
  const request = bytesOf(s.request);
  const requestError = checkCertificateRequest(request ?? Buffer.alloc(0));
  if (requestError) errs.push(new GoValueError("FieldValueInvalid", "spec.request", goBytes(request), requestError));
  const usages = strings(s.usages);
  if (usages.length === 0) errs.push(fieldErrors.required("spec.usages", ""));
  if (!opts.allowUnknownUsages) {
    usages.forEach((u, i) => {
      if (!allValidUsages.includes(u)) errs.push(fieldErrors.notSupported(index("spec.usages", i), u, allValidUsages));
    });
  }
  if (!opts.allowDuplicateUsages) {
    const seen = new Set<string>();
    usages.forEach((u, i) => {
      if (seen.has(u)) errs.push(fieldErrors.duplicate(index("spec.usages", i), u));
      seen.add(u);
    });
  }
  const signerName = text(s.signerName);
  if (!opts.allowLegacySignerName && signerName === legacyUnknownSignerName) {
    errs.push(fieldErrors.invalid("spec.signerName", signerName, "the legacy signerName is not allowed via this API version"));
  } else {
    errs.push(...validateSignerName(signerName, "spec.signerName"));
  }
  const exp = num(s.expirationSeconds);
  if (exp !== undefined && exp < 600) errs.push(fieldErrors.invalid("spec.expirationSeconds", exp, "may not specify a duration less than 600 seconds (10 minutes)"));
  errs.push(...validateConditions(obj, opts));
  if (!opts.allowArbitraryCertificate) {
    const certErr = certificateError(certificateOf(obj));
    if (certErr) errs.push(fieldErrors.invalid("status.certificate", "<certificate data>", certErr));
  }
  return errs;
}

function conditionsOfType(obj: KubeObject, type: string): Obj[] {
  return conditions(obj).filter((c) => text(c.type) === type);
}

/** validateCertificateSigningRequestUpdate, without ObjectMetaUpdate (which the caller adds). */
function validateCSRUpdate(obj: KubeObject, old: KubeObject, opts: Options): FieldError[] {
  const errs = validateCSR(obj, opts);
  for (const t of ["Approved", "Denied", "Failed"]) {
    if (conditionsOfType(obj, t).length < conditionsOfType(old, t).length) {
      errs.push(fieldErrors.forbidden("status.conditions", `updates may not remove a condition of type ${JSON.stringify(t)}`));
    }
  }
  if (!opts.allowSettingApprovalConditions) {
    for (const t of ["Approved", "Denied"]) {
      const o = conditionsOfType(old, t);
      const n = conditionsOfType(obj, t);
      if (n.length > o.length) errs.push(fieldErrors.forbidden("status.conditions", `updates may not add a condition of type ${JSON.stringify(t)}`));
      else if (n.length === o.length && !semanticEqual(o, n)) errs.push(fieldErrors.forbidden("status.conditions", `updates may not modify a condition of type ${JSON.stringify(t)}`));
    }
  }
  if (!certificateOf(obj).equals(certificateOf(old))) {
    if (!opts.allowSettingCertificate) errs.push(fieldErrors.forbidden("status.certificate", "updates may not set certificate content"));
    else if (certificateOf(old).length > 0) errs.push(fieldErrors.forbidden("status.certificate", "updates may not modify existing certificate content"));
  }
  return errs;
}

/** Keeps the old instances of a condition type when the update has as many of them (preserveConditionInstances). */
function preserveConditionInstances(obj: KubeObject, old: KubeObject, type: string): void {
  const oldConds = conditions(old);
  const newStatus = objAt(fieldsOf(obj), "status");
  const newConds = records(newStatus.conditions);
  const oldIdx = oldConds.flatMap((c, i) => (text(c.type) === type ? [i] : []));
  const newIdx = newConds.flatMap((c, i) => (text(c.type) === type ? [i] : []));
  if (oldIdx.length !== newIdx.length) return;
  oldIdx.forEach((oi, k) => (newConds[newIdx[k]] = structuredClone(oldConds[oi])));
  newStatus.conditions = newConds;
}

const approvalStrategy: SubresourceStrategy = {
  prepareForUpdate(obj, old) {
    const o = fieldsOf(obj);
    const newConditions = rec(o.status)?.conditions;
    o.spec = structuredClone(fieldsOf(old).spec);
    const st = structuredClone(rec(fieldsOf(old).status) ?? {});
    if (newConditions === undefined) delete st.conditions;
    else st.conditions = newConditions;
    o.status = st;
  },
  validateUpdate(obj, old) {
    const errs = validateCSRUpdate(obj, old, { ...optionsFor(obj, old), allowSettingApprovalConditions: true });
    return [...errs, ...validateObjectMetaUpdate(obj.metadata, old.metadata)];
  },
};

export const certificateSigningRequestStrategy: ResourceStrategy = defineStrategy({
  names: {
    group: certificatesGroup,
    version: "v1",
    kind: "CertificateSigningRequest",
    resource: "certificatesigningrequests",
    singular: "certificatesigningrequest",
    listKind: "CertificateSigningRequestList",
    shortNames: ["csr"],
    categories: [],
    namespaced: false,
  },
  subresources: { status: true, updates: { approval: approvalStrategy } },
  // ValidateCertificateRequestName: any name.
  nameFn: () => [],
  prepareForCreate(obj) {
    // Clients cannot claim an identity: the hooks fill it in from the request's user.
    const s = objAt(fieldsOf(obj), "spec");
    delete s.username;
    delete s.uid;
    delete s.groups;
    delete s.extra;
  },
  prepareForUpdate(obj, old) {
    // Updating the main resource changes metadata only.
    fieldsOf(obj).spec = structuredClone(fieldsOf(old).spec);
  },
  prepareForStatusUpdate(obj, old) {
    preserveConditionInstances(obj, old, "Approved");
    preserveConditionInstances(obj, old, "Denied");
  },
  validateCreate: (obj) => validateCSR(obj, optionsFor(obj, undefined)),
  validateUpdate: (obj, old) => validateCSRUpdate(obj, old, optionsFor(obj, old)),
  validateStatus: (obj, old) => validateCSRUpdate(obj, old, { ...optionsFor(obj, old), allowSettingCertificate: true }),
});

// ---- admission -----------------------------------------------------------------------------

const csrGR = { group: certificatesGroup, resource: "certificatesigningrequests" };

/** Authorization questions the admission plugins ask (verb on certificates.k8s.io/signers). */
export type SignerAuthorizer = (user: UserInfo, verb: "approve" | "sign", signerName: string) => boolean;

/** IsAuthorizedForSignerName: the exact signer name, or `<domain>/*`. */
export function authorizedForSigner(allowed: (name: string) => boolean, signerName: string): boolean {
  if (allowed(signerName)) return true;
  const slash = signerName.indexOf("/");
  return slash > 0 && allowed(`${signerName.slice(0, slash)}/*`);
}

/** populateConditionTimestamps: lastUpdateTime now when unset, lastTransitionTime kept from a same-type same-status condition. */
function populateConditionTimestamps(obj: KubeObject, old: KubeObject, now: string): void {
  const oldConds = conditions(old);
  const st = rec(fieldsOf(obj).status);
  if (!st || !Array.isArray(st.conditions)) return;
  st.conditions = records(st.conditions).map((c) => {
    const out = { ...c };
    if (text(out.lastUpdateTime) === "") out.lastUpdateTime = now;
    if (text(out.lastTransitionTime) === "") {
      const prior = oldConds.find((oc) => text(oc.type) === text(out.type) && text(oc.status) === text(out.status) && text(oc.lastTransitionTime) !== "");
      out.lastTransitionTime = prior ? prior.lastTransitionTime : now;
    }
    return out;
  });
}

export interface CSRHookDeps {
  clock: Clock;
  /** Absent: no authorization (a server without access control). */
  authorize?: SignerAuthorizer;
}

/**
 * The CSR hooks: identity from the requesting user on create, the subject restriction of the
 * kube-apiserver-client signer, `approve` / `sign` authorization, server-set condition times.
 */
export function certificateSigningRequestHooks(deps: CSRHookDeps): ResourceHooks {
  return {
    beforeCreate(obj, ctx) {
      const s = objAt(fieldsOf(obj), "spec");
      const user = ctx.user;
      if (user) {
        s.username = user.username;
        if (user.uid) s.uid = user.uid;
        if (user.groups.length) s.groups = [...user.groups];
        if (user.extra && Object.keys(user.extra).length) s.extra = structuredClone(user.extra);
      }
      if (text(s.signerName) !== kubeAPIServerClientSignerName) return;
      let parsed;
      try {
        parsed = parseCertificateRequest(bytesOf(s.request) ?? Buffer.alloc(0));
      } catch {
        // Upstream's plugin runs after validation, which reports the unparsable request.
        return;
      }
      if (parsed.organizations.includes("system:masters")) {
        throw StatusError.forbidden(csrGR, obj.metadata?.name ?? "", `use of ${kubeAPIServerClientSignerName} signer with system:masters group is not allowed`);
      }
    },
    beforeUpdate(obj, old, ctx) {
      if (ctx.subresource !== "approval" && ctx.subresource !== "status") return;
      const signerName = text(spec(old).signerName);
      const user = ctx.user;
      if (deps.authorize && user) {
        if (ctx.subresource === "approval") {
          if (!authorizedForSigner((n) => deps.authorize!(user, "approve", n), signerName)) {
            throw StatusError.forbidden(csrGR, obj.metadata?.name ?? "", `user not permitted to approve requests with signerName ${JSON.stringify(signerName)}`);
          }
        }
        const significant = !certificateOf(obj).equals(certificateOf(old)) || !semanticEqual(conditions(obj), conditions(old));
        if (ctx.subresource === "status" && significant) {
          if (!authorizedForSigner((n) => deps.authorize!(user, "sign", n), signerName)) {
            throw StatusError.forbidden(csrGR, obj.metadata?.name ?? "", `user not permitted to sign requests with signerName ${JSON.stringify(signerName)}`);
          }
        }
      }
      populateConditionTimestamps(obj, old, formatTime(deps.clock.now()));
    },
  };
}

/** The CSR's state as kubectl prints it: Pending / Approved / Denied, then ",Failed" and ",Issued". */
export function csrCondition(obj: KubeObject): string {
  let approved = false;
  let denied = false;
  let failed = false;
  for (const c of conditions(obj)) {
    const t = text(c.type);
    if (t === "Approved") approved = true;
    else if (t === "Denied") denied = true;
    else if (t === "Failed") failed = true;
  }
  let out = denied ? "Denied" : approved ? "Approved" : "Pending";
  if (failed) out += ",Failed";
  if (certificateOf(obj).length > 0) out += ",Issued";
  return out;
}
