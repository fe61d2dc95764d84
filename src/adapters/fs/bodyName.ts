// The name of a body: the lower-case hex of its 32-byte SHA-256 digest. Shared by the body
// stores so that they accept and refuse the same digests.

import { toHex } from "../../domain/bytes.js"
import { StorageError } from "../../ports/StorageError.js"

/** The hex name of a digest, or a StorageError when it is not 32 bytes. */
export const digestName = (operation: string, digest: Uint8Array): string | StorageError =>
  digest.length === 32
    ? toHex(digest)
    : new StorageError({ operation, detail: `a body digest is 32 bytes, got ${digest.length}` })
