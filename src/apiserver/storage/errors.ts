/** Typed storage errors; the REST layer maps them to Status errors (404, 409, 410). */

export class StorageError extends Error {
  constructor(
    message: string,
    readonly key: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class KeyNotFoundError extends StorageError {
  constructor(key: string) {
    super(`key not found: ${key}`, key);
  }
}

export class KeyExistsError extends StorageError {
  constructor(key: string) {
    super(`key exists: ${key}`, key);
  }
}

/** A compare-and-swap lost: the key's current revision is not the expected one. */
export class RevisionMismatchError extends StorageError {
  constructor(
    key: string,
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`revision mismatch on ${key}: expected ${expected}, current ${actual}`, key);
  }
}

/** The requested revision is older than the retained history. */
export class CompactedError extends StorageError {
  constructor(
    readonly requested: number,
    readonly compacted: number,
    /** The oldest revision still retained (compacted + 1). */
    readonly oldest: number,
  ) {
    super(`required revision ${requested} has been compacted (compacted revision ${compacted})`, "");
  }
}
