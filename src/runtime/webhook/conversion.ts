/**
 * The conversion webhook of a controller (controller-runtime's pkg/webhook/conversion): one
 * endpoint, `/convert`, answering apiextensions.k8s.io ConversionReviews for every kind that
 * has a converter. A converter gets each object and the desired apiVersion and returns the
 * converted object (apiVersion and kind are set for it when it leaves them out). Any failure —
 * no converter for the kind, a converter that throws — answers the whole review with
 * `result.status: Failure` and the message, which the API server reports as
 * `conversion webhook for <gvk> failed: <message>`.
 */
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { gvkOf } from "../../apimachinery/gvk.js";
import type { KubeObject } from "../../apimachinery/types.js";

/** Converts one object to `apiVersion` (same group and kind, another version). */
export type Converter = (obj: KubeObject, apiVersion: string) => KubeObject | Promise<KubeObject>;

export interface ConversionResponseBody {
  uid: string;
  convertedObjects: KubeObject[];
  result: { status: "Success" | "Failure"; message?: string };
}

const groupKindKey = (group: string, kind: string) => `${kind}.${group}`;

export class ConversionRegistry {
  private readonly converters = new Map<string, Converter>();

  /** Registers the converter of `kind` in `group` (all its versions). */
  add(group: string, kind: string, converter: Converter): void {
    const key = groupKindKey(group, kind);
    if (this.converters.has(key)) throw new Error(`a converter for ${key} is already registered`);
    this.converters.set(key, converter);
  }

  get size(): number {
    return this.converters.size;
  }

  has(group: string, kind: string): boolean {
    return this.converters.has(groupKindKey(group, kind));
  }

  /** The review's response. */
  async convert(request: { uid?: unknown; desiredAPIVersion?: unknown; objects?: unknown }): Promise<ConversionResponseBody> {
    const uid = typeof request.uid === "string" ? request.uid : "";
    const desired = typeof request.desiredAPIVersion === "string" ? request.desiredAPIVersion : "";
    const objects = Array.isArray(request.objects) ? request.objects : [];
    try {
      const out: KubeObject[] = [];
      for (const raw of objects) {
        if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new Error("an object to convert is not a JSON object");
        const obj = raw as KubeObject;
        const gvk = gvkOf(obj);
        if (obj.apiVersion === desired) throw new Error(`conversion is not allowed between same type ${gvk.kind}`);
        const converter = this.converters.get(groupKindKey(gvk.group, gvk.kind));
        if (!converter) throw new Error(`${gvk.kind}.${gvk.group} has no converter`);
        const converted = await converter(deepCopy(obj), desired);
        out.push({ ...converted, apiVersion: converted.apiVersion ?? desired, kind: converted.kind ?? obj.kind });
      }
      return { uid, convertedObjects: out, result: { status: "Success" } };
    } catch (err) {
      return { uid, convertedObjects: [], result: { status: "Failure", message: err instanceof Error ? err.message : String(err) } };
    }
  }
}
