/**
 * A built-in resource served at a second API version from the storage of the first
 * (autoscaling/v1 HorizontalPodAutoscalers from autoscaling/v2 storage): the served version's
 * strategy is the storage version's with the served version's names and defaults and a
 * `conversion` (rest/conversion.ts explains where the state lives and how a store uses it).
 * Register the storage version's strategy first: it is the preferred version and the one
 * `byGroupResource` finds.
 */
import { StatusError } from "../../apimachinery/errors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { malformedObjectError } from "./define.js";
import type { ResourceStrategy } from "./strategy.js";

export interface ServedVersion {
  version: string;
  /** The served version's SetDefaults_* (before conversion). */
  defaults(obj: KubeObject): void;
  /** Served version → storage version (apiVersion included). */
  toStorage(obj: KubeObject): KubeObject;
  /** Storage version → served version (apiVersion included). */
  fromStorage(obj: KubeObject): KubeObject;
}

export function servedAtVersion(storage: ResourceStrategy, served: ServedVersion): ResourceStrategy {
  const n = storage.names;
  const names = { ...n, version: served.version };
  const guard = <R>(fn: () => R): R => {
    try {
      return fn();
    } catch (err) {
      if (err instanceof StatusError) throw err;
      throw malformedObjectError(names, err);
    }
  };
  return {
    ...storage,
    names,
    defaults: (obj) => guard(() => served.defaults(obj)),
    conversion: {
      storageVersion: n.group === "" ? n.version : `${n.group}/${n.version}`,
      toStorage(obj) {
        return guard(() => {
          const out = served.toStorage(obj);
          // As upstream decodes the stored object: the storage version's defaults apply.
          storage.defaults(out);
          return out;
        });
      },
      fromStorage: served.fromStorage,
    },
  };
}
