/** Resource event handlers, as client-go's cache.ResourceEventHandler and its helpers. */
import type { TypedObject } from "../apimachinery/types.js";
import { DeletedFinalStateUnknown } from "./store.js";

export interface ResourceEventHandler<T extends TypedObject = TypedObject> {
  /** `isInInitialList` is true for objects delivered as part of the initial state. */
  onAdd?(obj: T, isInInitialList: boolean): void;
  /** Also called on resync, with `oldObj === newObj` (compare resourceVersions to skip). */
  onUpdate?(oldObj: T, newObj: T): void;
  /** The object, or a tombstone when the deletion was missed while the watch was down. */
  onDelete?(obj: T | DeletedFinalStateUnknown<T>): void;
}

/**
 * Passes through only objects that satisfy `filter`. An update that makes an object start or
 * stop matching arrives as an add or a delete (client-go's FilteringResourceEventHandler).
 */
export class FilteringResourceEventHandler<T extends TypedObject = TypedObject> implements ResourceEventHandler<T> {
  constructor(
    private readonly filter: (obj: T | DeletedFinalStateUnknown<T>) => boolean,
    private readonly handler: ResourceEventHandler<T>,
  ) {}

  onAdd(obj: T, isInInitialList: boolean): void {
    if (this.filter(obj)) this.handler.onAdd?.(obj, isInInitialList);
  }

  onUpdate(oldObj: T, newObj: T): void {
    const newer = this.filter(newObj);
    const older = this.filter(oldObj);
    if (newer && older) this.handler.onUpdate?.(oldObj, newObj);
    else if (newer) this.handler.onAdd?.(newObj, false);
    else if (older) this.handler.onDelete?.(oldObj);
  }

  onDelete(obj: T | DeletedFinalStateUnknown<T>): void {
    if (this.filter(obj)) this.handler.onDelete?.(obj);
  }
}

/** The object behind a delete notification: the object itself or the tombstone's last known state. */
export function objectFromDeletion<T extends TypedObject>(obj: T | DeletedFinalStateUnknown<T>): T | undefined {
  return obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
}
