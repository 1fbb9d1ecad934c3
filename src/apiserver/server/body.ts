/** Request bodies: reading with a size limit, and decoding JSON, YAML and Kubernetes protobuf. */
import type { IncomingMessage } from "node:http";
import { StatusError } from "../../apimachinery/errors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { checkJSONDepth, checkValueBounds, NestingTooDeepError, parseYAMLBounded } from "./decodelimits.js";
import { bodyFormat } from "./negotiate.js";

/** kube-apiserver's limit for request bodies (3 MiB). */
export const defaultMaxBodyBytes = 3 * 1024 * 1024;

export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"]);
    if (Number.isFinite(declared) && declared > maxBytes) {
      req.resume();
      reject(StatusError.requestEntityTooLarge(`limit is ${maxBytes}`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on("data", (c: Buffer) => {
      if (failed) return;
      size += c.length;
      if (size > maxBytes) {
        failed = true;
        reject(StatusError.requestEntityTooLarge(`limit is ${maxBytes}`));
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => {
      // A body that arrived in one chunk (the usual case) needs no copy.
      if (!failed) resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    });
    req.on("error", (err) => {
      if (!failed) {
        failed = true;
        reject(err);
      }
    });
    // The client went away (or the connection was closed at the request's deadline) mid-body.
    req.on("close", () => {
      if (!failed && !req.complete) {
        failed = true;
        reject(StatusError.badRequest("the request body was not received completely: the connection was closed"));
      }
    });
  });
}

/**
 * JSON.parse with kube-apiserver-like error text (keeps the parse position), refusing documents
 * nested deeper than decodelimits' maxNestingDepth before parsing them (400).
 */
export function parseJSON(buf: Buffer | string, what = "couldn't get version/kind; json parse error"): unknown {
  try {
    checkJSONDepth(buf);
    return JSON.parse(typeof buf === "string" ? buf : buf.toString("utf8"));
  } catch (err) {
    throw StatusError.badRequest(`${what}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** YAML (parseYAMLBounded) with kube-apiserver-like error text; depth and alias limits → 400. */
export function parseYAML(buf: Buffer | string, what = "error converting YAML to JSON", options: { uniqueKeys?: boolean } = {}): unknown {
  try {
    return parseYAMLBounded(typeof buf === "string" ? buf : buf.toString("utf8"), options);
  } catch (err) {
    if (err instanceof StatusError) throw err;
    const m = err instanceof NestingTooDeepError ? `yaml: ${err.message}` : err instanceof Error ? err.message : String(err);
    throw StatusError.badRequest(`${what}: ${m}`);
  }
}

export type ProtobufDecoder = (body: Uint8Array) => { object: KubeObject; warnings: string[] };

export interface DecodedBody {
  object: KubeObject;
  warnings: string[];
}

/** Decodes an object body by Content-Type; the result must be a JSON object. */
export function decodeObjectBody(buf: Buffer, contentType: string | undefined, protobuf: ProtobufDecoder | undefined): DecodedBody {
  const format = bodyFormat(contentType);
  let value: unknown;
  const warnings: string[] = [];
  if (format === "protobuf") {
    if (!protobuf) throw StatusError.unsupportedMediaType(contentType ?? "", ["application/json", "application/yaml"]);
    const r = protobuf(new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength));
    value = r.object;
    warnings.push(...r.warnings);
    // The decoder bounds its own recursion; embedded JSON (RawExtension) it does not.
    try {
      checkValueBounds(value);
    } catch (err) {
      if (err instanceof NestingTooDeepError) throw StatusError.badRequest(`protobuf decoding error: ${err.message}`);
      throw err;
    }
  } else if (format === "yaml") {
    value = parseYAML(buf);
  } else {
    if (buf.length === 0) throw StatusError.badRequest("couldn't get version/kind; json parse error: unexpected end of JSON input");
    value = parseJSON(buf);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw StatusError.badRequest(`couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(value) ? "array" : typeof value} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  }
  return { object: value as KubeObject, warnings };
}
