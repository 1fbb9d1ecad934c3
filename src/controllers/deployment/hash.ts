/**
 * The pod-template hash that names a Deployment's ReplicaSets (`<deployment>-<hash>`) and labels
 * their pods (`pod-template-hash`).
 *
 * Upstream hashes a spew dump of the Go struct with FNV-1a; a Go struct dump has no TypeScript
 * equivalent, so kubeloop hashes a canonical JSON form instead (object keys sorted, undefined
 * dropped): FNV-1a 32-bit over its UTF-8 bytes, then the collision count as 4 little-endian bytes
 * (as upstream), rendered as the decimal digits of the hash mapped through upstream's
 * SafeEncodeString alphabet. Hashes are therefore stable across kubeloop versions and processes,
 * but differ from the ones kube-controller-manager would compute for the same template.
 */
import type { PodTemplateSpec } from "../../apimachinery/api/core/v1.js";

const FNV_OFFSET_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** The alphabet of rand.SafeEncodeString: no vowels (no words), no 0/1/3 (no look-alikes). */
export const SAFE_ENCODE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

/** JSON with object keys in sorted order and undefined members dropped: equal data, equal text. */
export function canonicalJSON(value: unknown): string {
  if (value === null || typeof value !== "object") {
    const s = JSON.stringify(value);
    return s === undefined ? "null" : s;
  }
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJSON(v === undefined ? null : v)).join(",")}]`;
  const obj = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const k of Object.keys(obj).sort()) {
    const v = obj[k];
    if (v === undefined) continue;
    parts.push(`${JSON.stringify(k)}:${canonicalJSON(v)}`);
  }
  return `{${parts.join(",")}}`;
}

/** Continues an FNV-1a 32-bit hash over `bytes`. */
export function fnv1a32(bytes: Uint8Array, hash = FNV_OFFSET_BASIS): number {
  let h = hash >>> 0;
  for (let i = 0; i < bytes.length; i++) {
    h ^= bytes[i];
    h = Math.imul(h, FNV_PRIME) >>> 0;
  }
  return h >>> 0;
}

/** Maps every character through the safe alphabet (rand.SafeEncodeString). */
export function safeEncodeString(s: string): string {
  let out = "";
  for (let i = 0; i < s.length; i++) out += SAFE_ENCODE_ALPHABET[s.charCodeAt(i) % SAFE_ENCODE_ALPHABET.length];
  return out;
}

/**
 * The hash of a pod template and the Deployment's collision count (controller.ComputeHash).
 * A different collision count gives a different hash for the same template: that is how a
 * Deployment escapes a name collision with a ReplicaSet it does not own.
 */
export function computeHash(template: PodTemplateSpec | undefined, collisionCount?: number | null): string {
  let h = fnv1a32(new TextEncoder().encode(canonicalJSON(template ?? {})));
  if (collisionCount !== undefined && collisionCount !== null) {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, collisionCount >>> 0, true);
    h = fnv1a32(b, h);
  }
  return safeEncodeString(String(h));
}
