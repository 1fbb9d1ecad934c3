/** System metadata the server fills in: uid, timestamps, generated names. */
import { randomInt, randomUUID } from "node:crypto";

let lastSecond = Number.NaN;
let lastText = "";

/** metav1.Time: RFC 3339 UTC with second precision ("2026-11-29T12:20:09Z"). */
export function formatTime(ms: number): string {
  const second = Math.floor(ms / 1000);
  // Every write stamps the current second (often twice); the last text is reused within it.
  if (second !== lastSecond) {
    lastText = new Date(second * 1000).toISOString().replace(".000Z", "Z");
    lastSecond = second;
  }
  return lastText;
}

/** metav1.MicroTime: six fractional digits ("2026-11-29T12:20:09.123000Z"). */
export function formatMicroTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.replace(/\.(\d{3})Z$/, ".$1000Z");
}

export function newUID(): string {
  return randomUUID();
}

// Upstream's generator alphabet (no vowels, no confusable characters).
const alphabet = "bcdfghjklmnpqrstvwxz2456789";
const maxNameLength = 63;
const randomLength = 5;
const maxGeneratedNameLength = maxNameLength - randomLength;

/** generateName → name: the prefix cut to 58 characters plus 5 random characters. */
export function generateName(prefix: string): string {
  const base = prefix.length > maxGeneratedNameLength ? prefix.slice(0, maxGeneratedNameLength) : prefix;
  let suffix = "";
  for (let i = 0; i < randomLength; i++) suffix += alphabet[randomInt(alphabet.length)];
  return base + suffix;
}
