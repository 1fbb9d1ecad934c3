/**
 * Item identity for work queues and per-item rate limiters.
 *
 * Go compares work-queue items with `==`, so two `cache.ObjectName{Namespace, Name}` values with the
 * same fields are the same item. JavaScript compares objects by reference, so every component here
 * maps an item to a key through a `KeyFunc` and uses the key (with SameValueZero, as `Map` does) as
 * the item's identity.
 */

/** Maps an item to the value that identifies it. Two items with equal keys are the same item. */
export type KeyFunc<T> = (item: T) => unknown;

/**
 * The default identity:
 * - primitives (strings, numbers, …) are their own key;
 * - objects with their own `toString()` (such as `ObjectName`, whose `toString()` is "ns/name") are
 *   keyed by `String(item)`, so equal names are one item. Note that this makes the string "ns/name"
 *   and `new ObjectName("ns", "name")` the same item, which is what MetaNamespaceKeyFunc implies;
 * - any other object (plain objects, whose `toString` is `Object.prototype.toString`) is keyed by
 *   reference. Pass a `keyOf` option to compare such items by value.
 */
export function defaultKeyOf(item: unknown): unknown {
  if (typeof item !== "object" || item === null) return item;
  const ts = (item as { toString?: unknown }).toString;
  if (typeof ts === "function" && ts !== Object.prototype.toString) return String(item);
  return item;
}
