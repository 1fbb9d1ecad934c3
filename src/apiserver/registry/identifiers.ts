/**
 * Identifier checks several API groups share: path segment names (object references in HPAs,
 * Ingress backends, IPAddress parents) and domain-prefixed paths (Job managedBy, IngressClass
 * controller), with upstream's messages.
 */
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import { isDNS1123Subdomain, regexError } from "../../apimachinery/validation.js";

/** path.IsValidPathSegmentName. */
export function pathSegmentErrors(name: string): string[] {
  if (name === "." || name === "..") return [`may not be '${name}'`];
  const errs: string[] = [];
  for (const c of ["/", "%"]) if (name.includes(c)) errs.push(`may not contain '${c}'`);
  return errs;
}

const httpPathFmt = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const httpPathRegexp = new RegExp(`^${httpPathFmt}$`);

/** validation.IsDomainPrefixedPath. */
export function validateDomainPrefixedPath(field: string, value: string): FieldError[] {
  if (value.length === 0) return [fieldErrors.required(field, "")];
  const slash = value.indexOf("/");
  const host = slash < 0 ? value : value.slice(0, slash);
  const path = slash < 0 ? "" : value.slice(slash + 1);
  if (slash < 0 || host === "" || path === "") return [fieldErrors.invalid(field, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const errs = isDNS1123Subdomain(host).map((msg) => fieldErrors.invalid(field, host, msg));
  if (!httpPathRegexp.test(path)) errs.push(fieldErrors.invalid(field, path, regexError("Invalid path", httpPathFmt)));
  return errs;
}
