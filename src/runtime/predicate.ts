/**
 * Predicates: which events reach a controller's handlers (controller-runtime's pkg/predicate).
 * A predicate answers per event type; an absent method lets the event through (predicate.Funcs).
 *
 * - `generationChanged`: updates whose metadata.generation changed (spec changes, for resources
 *   with a status subresource); creates and deletes pass.
 * - `resourceVersionChanged`: updates whose resourceVersion changed — drops the resyncs that
 *   re-deliver an unchanged object.
 * - `labelsChanged`, `annotationsChanged`: updates whose labels / annotations differ
 *   (reflect.DeepEqual: absent and `{}` differ).
 * - `labelSelectorPredicate(selector)`: objects whose labels match, on every event (the new object
 *   on updates).
 * - `newPredicateFuncs(filter)`: `filter(object)` for every event (the new object on updates).
 * - `and`, `or`, `not`.
 */
import type { LabelSelector } from "../apimachinery/api/meta/v1.js";
import { deepEqual } from "../apimachinery/equality.js";
import { labelSelectorAsSelector } from "../apimachinery/labels.js";
import type { TypedObject } from "../apimachinery/types.js";
import type { CreateEvent, DeleteEvent, UpdateEvent } from "./handler.js";

export interface Predicate<T> {
  create?(e: CreateEvent<T>): boolean;
  update?(e: UpdateEvent<T>): boolean;
  delete?(e: DeleteEvent<T>): boolean;
}

/** Whether every predicate lets the event through (predicates absent → true). */
export function allowCreate<T>(ps: readonly Predicate<T>[], e: CreateEvent<T>): boolean {
  for (const p of ps) if (p.create && !p.create(e)) return false;
  return true;
}

export function allowUpdate<T>(ps: readonly Predicate<T>[], e: UpdateEvent<T>): boolean {
  for (const p of ps) if (p.update && !p.update(e)) return false;
  return true;
}

export function allowDelete<T>(ps: readonly Predicate<T>[], e: DeleteEvent<T>): boolean {
  for (const p of ps) if (p.delete && !p.delete(e)) return false;
  return true;
}

/** `filter(object)` on every event; the new object on updates (predicate.NewPredicateFuncs). */
export function newPredicateFuncs<T>(filter: (object: T) => boolean): Predicate<T> {
  return {
    create: (e) => filter(e.object),
    update: (e) => filter(e.objectNew),
    delete: (e) => filter(e.object),
  };
}

/** Updates whose resourceVersion changed (predicate.ResourceVersionChangedPredicate). */
export const resourceVersionChanged: Predicate<TypedObject> = Object.freeze({
  update: (e: UpdateEvent<TypedObject>) => {
    if (!e.objectOld || !e.objectNew) return false;
    return e.objectOld.metadata?.resourceVersion !== e.objectNew.metadata?.resourceVersion;
  },
});

/** Updates whose metadata.generation changed (predicate.GenerationChangedPredicate). */
export const generationChanged: Predicate<TypedObject> = Object.freeze({
  update: (e: UpdateEvent<TypedObject>) => {
    if (!e.objectOld || !e.objectNew) return false;
    return (e.objectOld.metadata?.generation ?? 0) !== (e.objectNew.metadata?.generation ?? 0);
  },
});

/** Updates whose labels changed (predicate.LabelChangedPredicate). */
export const labelsChanged: Predicate<TypedObject> = Object.freeze({
  update: (e: UpdateEvent<TypedObject>) => {
    if (!e.objectOld || !e.objectNew) return false;
    return !deepEqual(e.objectNew.metadata?.labels, e.objectOld.metadata?.labels);
  },
});

/** Updates whose annotations changed (predicate.AnnotationChangedPredicate). */
export const annotationsChanged: Predicate<TypedObject> = Object.freeze({
  update: (e: UpdateEvent<TypedObject>) => {
    if (!e.objectOld || !e.objectNew) return false;
    return !deepEqual(e.objectNew.metadata?.annotations, e.objectOld.metadata?.annotations);
  },
});

/**
 * Objects whose labels match `selector` (predicate.LabelSelectorPredicate); throws the selector's
 * conversion error, as upstream returns it.
 */
export function labelSelectorPredicate(selector: LabelSelector): Predicate<TypedObject> {
  const sel = labelSelectorAsSelector(selector);
  return newPredicateFuncs((o: TypedObject) => sel.matches(o.metadata?.labels ?? {}));
}

/** Every predicate passes (predicate.And; none → pass). */
export function and<T>(...ps: Predicate<T>[]): Predicate<T> {
  return {
    create: (e) => allowCreate(ps, e),
    update: (e) => allowUpdate(ps, e),
    delete: (e) => allowDelete(ps, e),
  };
}

/** Some predicate passes (predicate.Or; none → fail). */
export function or<T>(...ps: Predicate<T>[]): Predicate<T> {
  return {
    create: (e) => ps.some((p) => p.create?.(e) ?? true),
    update: (e) => ps.some((p) => p.update?.(e) ?? true),
    delete: (e) => ps.some((p) => p.delete?.(e) ?? true),
  };
}

/** The opposite of `p` (predicate.Not). */
export function not<T>(p: Predicate<T>): Predicate<T> {
  return {
    create: (e) => !(p.create?.(e) ?? true),
    update: (e) => !(p.update?.(e) ?? true),
    delete: (e) => !(p.delete?.(e) ?? true),
  };
}
