/** A protobuf request body that cannot be decoded (the server answers 400 BadRequest). */
export class ProtobufDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ProtobufDecodeError";
  }
}

/**
 * A well-formed protobuf envelope naming an apiVersion/kind this server has no table for (the
 * server answers 415 UnsupportedMediaType, as kube-apiserver does for a kind it cannot decode).
 */
export class UnsupportedProtobufKindError extends Error {
  constructor(
    readonly apiVersion: string,
    readonly kind: string,
  ) {
    super(`no protobuf schema for ${apiVersion ? `${apiVersion}, ` : ""}Kind=${kind}`);
    this.name = "UnsupportedProtobufKindError";
  }
}
