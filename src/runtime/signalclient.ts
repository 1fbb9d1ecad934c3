/**
 * A client factory whose every request carries one AbortSignal: what a reconcile gets as
 * `ctx.client`, so that shutdown (or lost leadership) cancels the writes it has in flight without
 * the reconcile passing `signal` to each call. A call's own `signal`, when given, still applies:
 * the request stops when either aborts.
 */
import type { Scale } from "../apimachinery/api/autoscaling/v1.js";
import type { Status } from "../apimachinery/api/meta/v1.js";
import type { ResourceDescriptor } from "../apimachinery/resource.js";
import type { KubeList, TypedObject } from "../apimachinery/types.js";
import type {
  DeleteOptions,
  GetOptions,
  ListOptions,
  PatchOptions,
  PatchType,
  RequestOptions,
  ResourceClient,
  ResourceClientFactory,
  WatchOptions,
  WatchStream,
  UpdateOptions,
  WriteOptions,
} from "../client/interfaces.js";

/** `opts` with `signal` added (combined with the options' own signal, if any). */
function withSignal<O extends RequestOptions>(opts: O | undefined, signal: AbortSignal): O {
  if (!opts) return { signal } as O;
  if (!opts.signal || opts.signal === signal) return { ...opts, signal };
  return { ...opts, signal: AbortSignal.any([opts.signal, signal]) };
}

export class SignalBoundClientFactory implements ResourceClientFactory {
  constructor(
    readonly inner: ResourceClientFactory,
    readonly signal: AbortSignal,
  ) {}

  resource<T extends TypedObject>(resource: ResourceDescriptor<T>, namespace?: string): ResourceClient<T> {
    return new SignalBoundClient<T>(this.inner.resource(resource, namespace), this.signal);
  }
}

class SignalBoundClient<T extends TypedObject> implements ResourceClient<T> {
  constructor(
    private readonly c: ResourceClient<T>,
    private readonly signal: AbortSignal,
  ) {}

  get resource(): ResourceDescriptor<T> {
    return this.c.resource;
  }

  get namespace(): string {
    return this.c.namespace;
  }

  get(name: string, opts?: GetOptions): Promise<T> {
    return this.c.get(name, withSignal(opts, this.signal));
  }

  list(opts?: ListOptions): Promise<KubeList<T>> {
    return this.c.list(withSignal(opts, this.signal));
  }

  watch(opts?: WatchOptions): Promise<WatchStream<T>> {
    return this.c.watch(withSignal(opts, this.signal));
  }

  create(obj: T, opts?: WriteOptions): Promise<T> {
    return this.c.create(obj, withSignal(opts, this.signal));
  }

  update(obj: T, opts?: UpdateOptions): Promise<T> {
    return this.c.update(obj, withSignal(opts, this.signal));
  }

  updateStatus(obj: T, opts?: WriteOptions): Promise<T> {
    return this.c.updateStatus(obj, withSignal(opts, this.signal));
  }

  patch(name: string, type: PatchType, patch: unknown, opts?: PatchOptions): Promise<T> {
    return this.c.patch(name, type, patch, withSignal(opts, this.signal));
  }

  delete(name: string, opts?: DeleteOptions): Promise<T | Status> {
    return this.c.delete(name, withSignal(opts, this.signal));
  }

  deleteCollection(listOpts?: ListOptions, deleteOpts?: DeleteOptions): Promise<KubeList<T> | Status> {
    return this.c.deleteCollection(listOpts, withSignal(deleteOpts, this.signal));
  }

  getScale(name: string, opts?: GetOptions): Promise<Scale> {
    return this.c.getScale(name, withSignal(opts, this.signal));
  }

  updateScale(name: string, scale: Scale, opts?: WriteOptions): Promise<Scale> {
    return this.c.updateScale(name, scale, withSignal(opts, this.signal));
  }
}
