/**
 * Content negotiation: which representation an Accept header asks for (plain JSON, a
 * meta.k8s.io Table or PartialObjectMetadata, aggregated discovery), and which decoder a
 * request Content-Type selects.
 */
import { StatusError } from "../../apimachinery/errors.js";

export interface MediaRange {
  type: string;
  subtype: string;
  params: Record<string, string>;
  q: number;
}

export function parseMediaType(s: string): MediaRange | undefined {
  const [full, ...rawParams] = s.split(";").map((x) => x.trim());
  if (!full) return undefined;
  const slash = full.indexOf("/");
  if (slash <= 0) return undefined;
  const params: Record<string, string> = {};
  let q = 1;
  for (const p of rawParams) {
    const eq = p.indexOf("=");
    if (eq <= 0) continue;
    const k = p.slice(0, eq).trim().toLowerCase();
    const v = p.slice(eq + 1).trim().replace(/^"(.*)"$/, "$1");
    if (k === "q") q = Number(v);
    else params[k] = v;
  }
  return { type: full.slice(0, slash).toLowerCase(), subtype: full.slice(slash + 1).toLowerCase(), params, q: Number.isFinite(q) ? q : 1 };
}

export function parseAccept(header: string | undefined): MediaRange[] {
  if (!header || header.trim() === "") return [{ type: "*", subtype: "*", params: {}, q: 1 }];
  const out: MediaRange[] = [];
  for (const part of header.split(",")) {
    const m = parseMediaType(part);
    if (m && m.q > 0) out.push(m);
  }
  // Stable sort by q, highest first.
  return out.map((m, i) => ({ m, i })).sort((a, b) => b.m.q - a.m.q || a.i - b.i).map((x) => x.m);
}

function isJSONish(m: MediaRange): boolean {
  return (m.type === "application" && m.subtype === "json") || (m.type === "application" && m.subtype === "*") || (m.type === "*" && m.subtype === "*");
}

export type ObjectRepresentation =
  | { kind: "json" }
  | { kind: "table"; version: "v1" | "v1beta1" }
  | { kind: "partial"; version: "v1" | "v1beta1" };

/**
 * The representation for a resource response. `as=Table` / `as=PartialObjectMetadata[List]`
 * entries are honoured when `conversions` allows; otherwise JSON if acceptable, else 406.
 */
export function negotiateObject(accept: string | undefined, conversions: { table: boolean; partial: boolean }): ObjectRepresentation {
  // The usual headers, answered without parsing: none, and plain JSON.
  if (accept === undefined || accept === "" || accept === "application/json" || accept === "*/*") return { kind: "json" };
  for (const m of parseAccept(accept)) {
    const as = m.params["as"];
    if (as !== undefined) {
      if (m.type !== "application" || m.subtype !== "json" || m.params["g"] !== "meta.k8s.io") continue;
      const v = m.params["v"];
      if (v !== "v1" && v !== "v1beta1") continue;
      if (as === "Table" && conversions.table) return { kind: "table", version: v };
      if ((as === "PartialObjectMetadata" || as === "PartialObjectMetadataList") && conversions.partial) return { kind: "partial", version: v };
      continue;
    }
    if (isJSONish(m)) return { kind: "json" };
  }
  throw notAcceptable();
}

export function notAcceptable(): StatusError {
  return new StatusError({
    message: "the server was unable to respond with a content type that the client supports",
    reason: "NotAcceptable",
    code: 406,
  });
}

export type DiscoveryRepresentation = { kind: "legacy" } | { kind: "aggregated"; version: "v2" | "v2beta1" };

export function negotiateDiscovery(accept: string | undefined): DiscoveryRepresentation {
  for (const m of parseAccept(accept)) {
    if (m.params["as"] === "APIGroupDiscoveryList" && m.params["g"] === "apidiscovery.k8s.io") {
      const v = m.params["v"];
      if (v === "v2" || v === "v2beta1") return { kind: "aggregated", version: v };
      continue;
    }
    if (m.params["as"] !== undefined) continue;
    if (isJSONish(m)) return { kind: "legacy" };
  }
  throw notAcceptable();
}

/** Whether a plain (non-conversion) JSON answer is acceptable. */
export function acceptsJSON(accept: string | undefined): boolean {
  return parseAccept(accept).some((m) => m.params["as"] === undefined && isJSONish(m));
}

export type BodyFormat = "json" | "yaml" | "protobuf";

export const acceptedBodyTypes = ["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"];

/** The decoder a request Content-Type selects; missing means JSON (kubectl scale sends none). */
export function bodyFormat(contentType: string | undefined): BodyFormat {
  if (!contentType || contentType === "application/json" || contentType.trim() === "") return "json";
  const m = parseMediaType(contentType);
  const t = m ? `${m.type}/${m.subtype}` : contentType.toLowerCase();
  if (t === "application/json") return "json";
  if (t === "application/yaml") return "yaml";
  if (t === "application/vnd.kubernetes.protobuf") return "protobuf";
  throw StatusError.unsupportedMediaType(contentType, acceptedBodyTypes);
}
