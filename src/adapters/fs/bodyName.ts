// The name of a body: the lower-case hex of its 32-byte SHA-256 digest. Shared by the body
// stores so that they accept and refuse the same digests.

import { toHex } from "../../domain/bytes.js"
import { StorageError } from "../../ports/StorageError.js"

/** The hex name of a digest, or a StorageError when it is not 32 bytes. */
export const digestName = (operation: string, digest: Uint8Array): string | StorageError =>
  digest.length === 32
    ? toHex(digest)
    : new StorageError({ operation, detail: `a body digest is 32 bytes, got ${digest.length}` })

/** The hex names of a batch of digests, or the StorageError of the first that is not 32 bytes. */
export const digestNames = (operation: string, digests: ReadonlyArray<Uint8Array>): Array<string> | StorageError => {
  const names: Array<string> = []
  for (const digest of digests) {
    const name = digestName(operation, digest)
    if (name instanceof StorageError) return name
    names.push(name)
  }
  return names
}
