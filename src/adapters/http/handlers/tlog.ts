// /v2/tlog/*: checkpoints and RFC 9162 proofs. Proof parameters beyond the committed log
// answer 422 with the bound in the detail, as the service description's Limits require.

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect, Option } from "effect"
import { Charter } from "../../../app/Charter.js"
import { LogNotary } from "../../../app/LogNotary.js"
import { LogReader } from "../../../app/LogReader.js"
import { LogStatus } from "../../../app/LogStatus.js"
import { Publisher } from "../../../app/Publisher.js"
import { ServiceConfig, TILE_PREFIX } from "../../../app/ServiceConfig.js"
import { fromHex, toHex } from "../../../domain/bytes.js"
import { decodeU64, encodeB64, encodeU64 } from "../../../domain/encoding.js"
import { LogStore } from "../../../ports/LogStore.js"
import { AicsApi } from "../api.js"
import { InvalidRequest, NotFound, Unavailable } from "../problem.js"
import { orUnavailable, tilesState } from "./common.js"
import { CosignatureCollector } from "../../../app/CosignatureCollector.js"
import { cosignedNote } from "../../../app/servedCheckpoint.js"

export const TlogHandlers = HttpApiBuilder.group(AicsApi, "tlog", (handlers) =>
  Effect.gen(function*() {
    const config = yield* ServiceConfig
    const store = yield* LogStore
    const reader = yield* LogReader
    const publisher = yield* Publisher
    const status = yield* LogStatus
    const notary = yield* LogNotary
    const charter = yield* Charter
    const collector = yield* CosignatureCollector
    const tilesPrefix = `${config.publicUrl}${TILE_PREFIX}`

    const latestCheckpoint = Effect.flatMap(publisher.latest, (latest) =>
      latest === undefined
        ? Effect.fail(Unavailable.of("no_checkpoint", "no checkpoint has been published yet"))
        : Effect.succeed(latest))

    const committedSize = Effect.map(status.current, (s) => s.size)

    return handlers
      .handle("checkpoint", () =>
        Effect.gen(function*() {
          const latest = yield* latestCheckpoint
          const state = yield* status.current
          return {
            checkpoint: new TextDecoder().decode(yield* cosignedNote(latest).pipe(Effect.provideService(CosignatureCollector, collector))),
            origin: config.origin,
            tree_size: latest.size,
            root_hash: encodeB64(latest.rootHash),
            root_hash_hex: toHex(latest.rootHash),
            log_vkey: notary.vkey,
            policy_kid: charter.terms.policyKid,
            owner_kid: charter.terms.ownerKid,
            charter_index: 0,
            tiles: tilesState(state, tilesPrefix)
          }
        }))
      .handle("proof", ({ path }) =>
        Effect.gen(function*() {
          const index = path.leaf_index
          const latest = yield* coveringCheckpoint(publisher, index, yield* committedSize, config.mmdSeconds)
          const { entry, proof } = yield* reader.entryWithProof(index, latest.size)
          return {
            index,
            entry_bytes: encodeU64(entry),
            leaf_hash: encodeU64(reader.hasher.leafHash(entry)),
            inclusion_proof: { index, size: latest.size, hashes: proof.map(encodeB64) },
            checkpoint_note: encodeU64(latest.note)
          }
        }).pipe(orUnavailable))
      .handle("inclusion", ({ urlParams: { index, size } }) =>
        Effect.gen(function*() {
          const committed = yield* committedSize
          if (size > committed) {
            return yield* InvalidRequest.fail("size_out_of_range", `size must be at most the tree size ${committed}`,
              [{ path: "size", message: `expected at most ${committed}` }])
          }
          if (index >= size) {
            return yield* InvalidRequest.fail("index_out_of_range", `index must be below size ${size}`,
              [{ path: "index", message: `expected at most ${size - 1}` }])
          }
          const hashes = yield* reader.inclusionProof(index, size)
          return { index, size, hashes: hashes.map(encodeB64) }
        }).pipe(orUnavailable))
      .handle("consistency", ({ urlParams: { from, to } }) =>
        Effect.gen(function*() {
          const committed = yield* committedSize
          if (to > committed) {
            return yield* InvalidRequest.fail("size_out_of_range", `to must be at most the tree size ${committed}`,
              [{ path: "to", message: `expected at most ${committed}` }])
          }
          if (from > to) {
            return yield* InvalidRequest.fail("size_out_of_range", `from must be at most to (${to})`,
              [{ path: "from", message: `expected at most ${to}` }])
          }
          const hashes = yield* reader.consistencyProof(from, to)
          return { from, to, hashes: hashes.map(encodeB64) }
        }).pipe(orUnavailable))
      .handle("index", ({ path }) =>
        Effect.gen(function*() {
          const leafHash = (path.entry_hash.length === 64 ? fromHex(path.entry_hash) : decodeU64(path.entry_hash))!
          const found = yield* store.findLeaf(leafHash)
          if (Option.isNone(found)) {
            return yield* NotFound.fail("leaf_not_found", "no leaf has this hash here; absence proves nothing")
          }
          return { index: found.value, leaf_hash: encodeU64(leafHash) }
        }).pipe(orUnavailable))
  }))

/**
 * The published checkpoint that covers leaf `index`. A leaf that is committed but not yet
 * published is at most one merge delay away, so the answer waits for it rather than
 * sending the client away; an index beyond the log is 404.
 */
export const coveringCheckpoint = (
  publisher: typeof Publisher.Service,
  index: number,
  committed: number,
  mmdSeconds: number
) =>
  Effect.gen(function*() {
    if (index >= committed) {
      return yield* NotFound.fail("entry_not_found", `the log has ${committed} entries`)
    }
    const covering = yield* publisher.awaitCoverage(index + 1, `${2 * mmdSeconds} seconds`)
    if (Option.isNone(covering)) {
      return yield* Unavailable.fail("not_yet_published", `entry ${index} is not under a published checkpoint yet`)
    }
    return covering.value
  })
