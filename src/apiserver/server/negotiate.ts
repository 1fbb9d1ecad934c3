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
  // As goautoneg (kube-apiserver's parser): highest q first, then concrete types before
  // wildcards (`*/*` after `application/json` at the same q), ties in the client's order.
  const rank = (m: MediaRange) => (m.type === "*" ? 2 : m.subtype === "*" ? 1 : 0);
  return out
    .map((m, i) => ({ m, i }))
    .sort((a, b) => b.m.q - a.m.q || rank(a.m) - rank(b.m) || a.i - b.i)
    .map((x) => x.m);
}

function isJSONish(m: MediaRange): boolean {
  return (m.type === "application" && m.subtype === "json") || (m.type === "application" && m.subtype === "*") || (m.type === "*" && m.subtype === "*");
}

/** Kubernetes protobuf (apimachinery's protobuf serializer): the `k8s\0` envelope. */
export const PROTOBUF_MEDIA_TYPE = "application/vnd.kubernetes.protobuf";

function isProtobuf(m: MediaRange): boolean {
  return m.type === "application" && m.subtype === "vnd.kubernetes.protobuf";
}

/**
 * The representation of a resource response: the object itself (JSON or protobuf), a
 * meta.k8s.io Table (JSON only, as upstream), or PartialObjectMetadata (JSON, or protobuf for v1).
 */
export type ObjectRepresentation =
  | { kind: "json" }
  | { kind: "protobuf" }
  | { kind: "table"; version: "v1" | "v1beta1" }
  | { kind: "partial"; version: "v1" | "v1beta1"; protobuf?: true };

export interface Conversions {
  /** A Table converter exists. */
  table: boolean;
  /** PartialObjectMetadata[List] may be asked for. */
  partial: boolean;
  /**
   * The resource's kind can be protobuf-encoded: it is compiled into the server (it has a
   * generated.proto table). Custom resources cannot, as upstream: a protobuf Accept entry is then
   * skipped and the next one (normally JSON) chosen.
   */
  protobuf?: boolean;
}

/** kubectl's and client-go typed clients' Accept when they prefer protobuf. */
const PROTOBUF_FIRST = "application/vnd.kubernetes.protobuf,application/json";

/**
 * The representation for a resource response, following the Accept entries in order (highest q
 * first, ties in the client's order) as kube-apiserver's negotiation does: `as=Table` /
 * `as=PartialObjectMetadata[List]` entries when `conversions` allows, protobuf when the kind can
 * be encoded so, JSON (or a wildcard); 406 NotAcceptable when no entry can be served.
 */
export function negotiateObject(accept: string | undefined, conversions: Conversions): ObjectRepresentation {
  // The usual headers, answered without parsing: none, plain JSON, and protobuf-then-JSON.
  if (accept === undefined || accept === "" || accept === "application/json" || accept === "*/*") return { kind: "json" };
  if (accept === PROTOBUF_FIRST) return conversions.protobuf ? { kind: "protobuf" } : { kind: "json" };
  for (const m of parseAccept(accept)) {
    const as = m.params["as"];
    if (as !== undefined) {
      const pb = isProtobuf(m);
      if (m.type !== "application" || (m.subtype !== "json" && !pb) || m.params["g"] !== "meta.k8s.io") continue;
      const v = m.params["v"];
      if (v !== "v1" && v !== "v1beta1") continue;
      // Upstream serves Tables as JSON or YAML only; PartialObjectMetadata in every format.
      if (as === "Table" && conversions.table && !pb) return { kind: "table", version: v };
      if ((as === "PartialObjectMetadata" || as === "PartialObjectMetadataList") && conversions.partial) {
        if (!pb) return { kind: "partial", version: v };
        // Only meta.k8s.io/v1 has protobuf tables here (v1beta1's are the same messages upstream).
        if (v === "v1") return { kind: "partial", version: v, protobuf: true };
      }
      continue;
    }
    if (isProtobuf(m)) {
      if (conversions.protobuf) return { kind: "protobuf" };
      continue;
    }
    if (isJSONish(m)) return { kind: "json" };
  }
  throw notAcceptable();
}

/**
 * The encoding of a response that is always the object itself (writes, subresources, deletes,
 * Status errors): protobuf when the client lists it before JSON and the kind allows it.
 */
export function negotiateEncoding(accept: string | undefined, protobuf: boolean): { kind: "json" } | { kind: "protobuf" } {
  if (accept === undefined || accept === "" || accept === "application/json" || accept === "*/*") return { kind: "json" };
  if (accept === PROTOBUF_FIRST) return protobuf ? { kind: "protobuf" } : { kind: "json" };
  for (const m of parseAccept(accept)) {
    if (isProtobuf(m) && m.params["as"] === undefined) {
      if (protobuf) return { kind: "protobuf" };
      continue;
    }
    // A conversion entry (as=Table on a write) does not apply; JSON (with or without it) does.
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

/** Whether protobuf is the encoding negotiated for a protobuf-capable kind (never throws). */
export function prefersProtobuf(accept: string | undefined): boolean {
  if (accept === undefined || accept === "" || accept === "application/json" || accept === "*/*") return false;
  try {
    return negotiateEncoding(accept, true).kind === "protobuf";
  } catch {
    return false;
  }
}
