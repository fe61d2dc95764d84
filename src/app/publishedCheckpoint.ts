// Whether a published checkpoint belongs to the log: a note signed by the log key, for this
// origin, for a size the log has, with the log's own root at that size. The publisher asks
// this of what an earlier run published, and the background audit of what is on disk now.

import { Effect, Either } from "effect"
import { equal } from "../domain/bytes.js"
import type { Ed25519 } from "../domain/crypto.js"
import { parseCheckpoint } from "../domain/note/checkpoint.js"
import { openNote } from "../domain/note/signedNote.js"
import type { VerifierKey } from "../domain/note/verifierKey.js"
import type { Hash } from "../domain/tlog/hasher.js"
import type { StorageError } from "../ports/StorageError.js"

export interface PublishedCheckpoint {
  readonly size: number
  readonly rootHash: Hash
  /** The signed note exactly as published. */
  readonly note: Uint8Array
}

export interface CheckpointJudge {
  readonly origin: string
  readonly verifierKey: VerifierKey
  readonly ed25519: Ed25519
  readonly logSize: Effect.Effect<number>
  readonly rootAt: (size: number) => Effect.Effect<Hash, StorageError>
}

/** Right: the checkpoint, matching the log. Left: why it does not. */
export const judgeCheckpoint = (judge: CheckpointJudge, note: Uint8Array) =>
  Effect.gen(function*() {
    const opened = openNote(note, [judge.verifierKey], judge.ed25519)
    const checkpoint = Either.isRight(opened) ? parseCheckpoint(opened.right.text) : undefined
    if (checkpoint === undefined || checkpoint.origin !== judge.origin) {
      return Either.left("the published checkpoint is not a checkpoint of this log signed by its key")
    }
    const logSize = yield* judge.logSize
    if (checkpoint.size > logSize) {
      return Either.left(`the published checkpoint has ${checkpoint.size} leaves but the log only ${logSize}`)
    }
    if (!equal(yield* judge.rootAt(checkpoint.size), checkpoint.rootHash)) {
      return Either.left(`the published checkpoint's root at size ${checkpoint.size} differs from the log's`)
    }
    return Either.right<PublishedCheckpoint>({ size: checkpoint.size, rootHash: checkpoint.rootHash, note })
  })
