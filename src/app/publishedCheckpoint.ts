// Whether a published checkpoint belongs to the log: a note signed by the log key, for this
// origin, for a size the log has, with the log's own root at that size. The publisher asks
// this of what an earlier run published and of the checkpoint its node kept, and the
// background audit of what is on disk now.

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

/** How a checkpoint note stands against the log. */
export type CheckpointComparison =
  | { readonly _tag: "Matches"; readonly checkpoint: PublishedCheckpoint }
  /** Not a checkpoint of this origin signed by the log key: no evidence about this log either way. */
  | { readonly _tag: "NotOfThisLog" }
  /** Signed by the log key for more leaves than the log holds: the log went back. */
  | { readonly _tag: "AboveLog"; readonly size: number; readonly logSize: number }
  /** Signed by the log key with another root at a size the log holds: the log forked. */
  | { readonly _tag: "OtherRoot"; readonly size: number }

export const compareCheckpoint = (judge: CheckpointJudge, note: Uint8Array) =>
  Effect.gen(function*(): Effect.fn.Return<CheckpointComparison, StorageError> {
    const opened = openNote(note, [judge.verifierKey], judge.ed25519)
    const checkpoint = Either.isRight(opened) ? parseCheckpoint(opened.right.text) : undefined
    if (checkpoint === undefined || checkpoint.origin !== judge.origin) return { _tag: "NotOfThisLog" }
    const logSize = yield* judge.logSize
    if (checkpoint.size > logSize) return { _tag: "AboveLog", size: checkpoint.size, logSize }
    if (!equal(yield* judge.rootAt(checkpoint.size), checkpoint.rootHash)) return { _tag: "OtherRoot", size: checkpoint.size }
    return { _tag: "Matches", checkpoint: { size: checkpoint.size, rootHash: checkpoint.rootHash, note } }
  })

/** Right: the checkpoint, matching the log. Left: why it does not. */
export const judgeCheckpoint = (judge: CheckpointJudge, note: Uint8Array) =>
  Effect.map(compareCheckpoint(judge, note), (compared): Either.Either<PublishedCheckpoint, string> => {
    switch (compared._tag) {
      case "Matches": return Either.right(compared.checkpoint)
      case "NotOfThisLog": return Either.left("the published checkpoint is not a checkpoint of this log signed by its key")
      case "AboveLog": return Either.left(`the published checkpoint has ${compared.size} leaves but the log only ${compared.logSize}`)
      case "OtherRoot": return Either.left(`the published checkpoint's root at size ${compared.size} differs from the log's`)
    }
  })
