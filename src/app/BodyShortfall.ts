// A body file found shorter than the leaves that name it (issue 13 item 10; docs/operations.md
// "Damage found at start"). The body store opens on such a file and serves every body it
// still holds whole; what it could not find is its shortfallAtOpen (ports/BodyStore.ts).
// This reports it, once the projection knows which bodies the log names: bodies whose
// records were synced are lost for certain, and bodies of the last records written are lost
// only when a leaf names them, because a crash cuts exactly such records of a put that was
// never answered, and the sequencer appends a leaf only after its body is durable. It looks
// up only the digests the store lost (the projection's `bodyNaming` list of each), never
// the leaves, so it costs the same at any log size. When the projection cannot be read (a
// full disk), a cut record is counted as lost: damage may not go unreported.
//
// A loss is damage: an error line naming the file and /healthz DEGRADED with the reason
// (app/StartupDamage.ts). A cut no leaf names is a crash's torn tail: a warning line only.

import { Effect, Layer } from "effect"
import { encodeU64 } from "../domain/encoding.js"
import { BodyStore } from "../ports/BodyStore.js"
import { reportDamage } from "./StartupDamage.js"
import { StateReader } from "./StateReader.js"

/** Digests listed in the error line, so a loss of millions stays one readable line. */
const LISTED = 100

export const BodyShortfallLive = Layer.effectDiscard(Effect.gen(function*() {
  const shortfall = (yield* BodyStore).shortfallAtOpen
  if (shortfall === undefined) return
  const reader = yield* StateReader
  const named = yield* Effect.filter(shortfall.unsynced, (digest) =>
    reader.list("bodyNaming", encodeU64(digest), { limit: 1 }).pipe(
      Effect.map((page) => page.length > 0),
      Effect.orElseSucceed(() => true)
    ))
  const lost = [...shortfall.synced, ...named]
  const found = `the body file ${shortfall.file} holds ${shortfall.heldBytes} bytes, fewer than the ${shortfall.describedBytes} its index describes`
  if (lost.length === 0) {
    yield* Effect.logWarning(`${found}; recovery cut the last records, of a write a crash interrupted before it was answered (no entry names them)`).pipe(
      Effect.annotateLogs({ file: shortfall.file, cut: shortfall.unsynced.length })
    )
    return
  }
  yield* reportDamage(`${found}: ${lost.length} bodies are lost (the first is /v2/bodies/${encodeU64(lost[0]!)}) and answer 404; every other body is served`).pipe(
    Effect.annotateLogs({ file: shortfall.file, lost: lost.length, lost_digests: lost.slice(0, LISTED).map(encodeU64) })
  )
}))
