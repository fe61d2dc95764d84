// A log held by the test itself, signing its checkpoints with a key the test knows: the
// client side of C2SP tlog-witness against the service as a witness, and a log that can
// fork (sign another tree at a size it already signed) to show what a witness refuses.
// Its tiles (C2SP tlog-tiles, any width) are served by path, as a log's publisher would.

import { Either } from "effect"
import { nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { utf8 } from "../../src/domain/bytes.js"
import { formatCheckpoint } from "../../src/domain/note/checkpoint.js"
import { signNote } from "../../src/domain/note/signedNote.js"
import { formatVerifierKey, makeVerifierKey } from "../../src/domain/note/verifierKey.js"
import { parseTilePath } from "../../src/domain/tlog/tile.js"
import { consistencyProofFromHashes, consistencyProofIndexes } from "../../src/domain/tlog/consistency.js"
import type { Hash } from "../../src/domain/tlog/hasher.js"
import { treeHashFromHashes, treeHashIndexes } from "../../src/domain/tlog/treeHash.js"
import { formatAddCheckpointRequest } from "../../src/domain/witness/addCheckpoint.js"
import { buildLog, hasher, readStored, tileBytes } from "../domain/tlog/support.js"

export const harnessLog = (origin: string, entryPrefix = "entry", size = 64) => {
  const seed = nodeCrypto.sha256(utf8(`harness log key ${origin}`))
  const key = makeVerifierKey(nodeCrypto.sha256, origin, nodeCrypto.ed25519.publicKey(seed))
  const log = buildLog(Array.from({ length: size }, (_, i) => utf8(`${entryPrefix} ${i}`)))
  const root = (n: number): Hash => treeHashFromHashes(hasher, n, readStored(log, n, treeHashIndexes(n)))
  const proof = (m: number, n: number) => consistencyProofFromHashes(hasher, m, n, readStored(log, n, consistencyProofIndexes(m, n)))
  const text = (n: number, rootHash: Hash = root(n)) => formatCheckpoint({ origin, size: n, rootHash })
  const note = (n: number, rootHash: Hash = root(n)) => utf8(Either.getOrThrow(signNote(text(n, rootHash), origin, seed, nodeCrypto)))
  return {
    origin,
    vkey: formatVerifierKey(key),
    root,
    proof,
    text,
    note,
    /** The bytes of the tile at this path (`tile/0/000.p/9`), or undefined when the path names none. */
    tile: (path: string): Uint8Array | undefined => {
      const tile = parseTilePath(path)
      return tile === undefined ? undefined : tileBytes(log, tile)
    },
    /** The add-checkpoint body from `old` to `n` (with the log's own tree unless a root is given). */
    request: (old: number, n: number, rootHash?: Hash) => formatAddCheckpointRequest(old, old === 0 ? [] : proof(old, n), note(n, rootHash))
  }
}

export const postAddCheckpoint = async (baseUrl: string, body: Uint8Array) => {
  const response = await fetch(`${baseUrl}/add-checkpoint`, { method: "POST", body, headers: { "content-type": "text/plain" } })
  return { status: response.status, contentType: response.headers.get("content-type"), text: await response.text() }
}
