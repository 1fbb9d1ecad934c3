/**
 * Field paths as apimachinery's field.Path prints them: `spec.template.spec.containers[0].image`,
 * `metadata.labels`, `data[key.name]` (map keys in brackets, unquoted). Paths are plain strings;
 * these helpers only keep the separators right.
 */

/** `base.name` (or `name` when base is empty). */
export function child(base: string, ...names: string[]): string {
  let p = base;
  for (const n of names) p = p === "" ? n : `${p}.${n}`;
  return p;
}

/** `base[i]`. */
export function index(base: string, i: number): string {
  return `${base}[${i}]`;
}

/** `base[key]` (field.Path.Key: no quoting). */
export function key(base: string, k: string): string {
  return `${base}[${k}]`;
}
