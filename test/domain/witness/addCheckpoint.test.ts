// C2SP tlog-witness add-checkpoint: parsing the request (against the spec's example body)
// and every status of the decision.

import { readFileSync } from "node:fs"
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { utf8 } from "../../../src/domain/bytes.js"
import { formatCheckpoint } from "../../../src/domain/note/checkpoint.js"
import { signNote } from "../../../src/domain/note/signedNote.js"
import { makeVerifierKey } from "../../../src/domain/note/verifierKey.js"
import { consistencyProofFromHashes, consistencyProofIndexes } from "../../../src/domain/tlog/consistency.js"
import {
  type CosignedState, decideAddCheckpoint, formatAddCheckpointRequest, parseAddCheckpointRequest, parseTlogSize, type WitnessedLog
} from "../../../src/domain/witness/addCheckpoint.js"
import { hasher, readStored, referenceLog } from "../tlog/support.js"
import { treeHashFromHashes, treeHashIndexes } from "../../../src/domain/tlog/treeHash.js"

const published = JSON.parse(readFileSync(new URL("../../vectors/witness/published.json", import.meta.url), "utf8"))
const { ed25519, sha256 } = nodeCrypto

const ORIGIN = "example.com/log"
const seed = sha256(utf8("log key"))
const otherSeed = sha256(utf8("another key"))
const logs: ReadonlyArray<WitnessedLog> = [{ origin: ORIGIN, key: makeVerifierKey(sha256, ORIGIN, ed25519.publicKey(seed)) }]
const log = referenceLog(20)
const root = (n: number) => treeHashFromHashes(hasher, n, readStored(log, n, treeHashIndexes(n)))
const proof = (m: number, n: number) => consistencyProofFromHashes(hasher, m, n, readStored(log, n, consistencyProofIndexes(m, n)))
const note = (n: number, rootHash = root(n), by = seed, origin = ORIGIN) =>
  utf8(Either.getOrThrow(signNote(formatCheckpoint({ origin, size: n, rootHash }), origin, by, nodeCrypto)))

const decide = (body: Uint8Array, state?: CosignedState) =>
  decideAddCheckpoint(Either.getOrThrow(parseAddCheckpointRequest(body)), logs, (o) => (o === ORIGIN ? state : undefined), hasher, ed25519)
const status = (outcome: ReturnType<typeof decide>) => (outcome._tag === "Cosign" ? 200 : outcome.status)

describe("the add-checkpoint body", () => {
  it("parses the example of the C2SP text", () => {
    const v = published.add_checkpoint_request
    const parsed = Either.getOrThrow(parseAddCheckpointRequest(utf8(v.body)))
    expect(parsed.oldSize).toBe(v.old_size)
    expect(parsed.proof.length).toBe(v.proof_lines)
    expect(new TextDecoder().decode(parsed.note)).toBe(v.body.slice(v.body.indexOf("\n\n") + 2))
  })

  it("round-trips what formatAddCheckpointRequest writes", () => {
    const body = formatAddCheckpointRequest(5, proof(5, 12), note(12))
    const parsed = Either.getOrThrow(parseAddCheckpointRequest(body))
    expect(parsed.oldSize).toBe(5)
    expect(parsed.proof).toEqual(proof(5, 12))
    expect(parsed.note).toEqual(note(12))
  })

  it.each([
    ["no old line", "\nx\n"],
    ["old with a leading zero", "old 05\n\nx\n"],
    ["a proof line that is not a hash", "old 1\nAAAA\n\nx\n"],
    ["no empty line", "old 1\n"],
    ["64 proof lines", `old 1\n${`${Buffer.alloc(32).toString("base64")}\n`.repeat(64)}\nx\n`]
  ])("is malformed with %s", (_, body) => {
    expect(Either.isLeft(parseAddCheckpointRequest(utf8(body)))).toBe(true)
  })

  it("reads the 409 body", () => {
    expect(parseTlogSize("12\n")).toBe(12)
    expect(parseTlogSize("x\n")).toBeUndefined()
  })
})

describe("the witness's decision", () => {
  it("cosigns a first checkpoint from old 0 with an empty proof", () => {
    const outcome = decide(formatAddCheckpointRequest(0, [], note(7)))
    expect(outcome._tag).toBe("Cosign")
  })

  it("cosigns a checkpoint consistent with the last cosigned one", () => {
    expect(status(decide(formatAddCheckpointRequest(7, proof(7, 13), note(13)), { size: 7, rootHash: root(7) }))).toBe(200)
  })

  it("cosigns the same checkpoint again", () => {
    expect(status(decide(formatAddCheckpointRequest(7, [], note(7)), { size: 7, rootHash: root(7) }))).toBe(200)
  })

  it("answers 404 for an origin it does not witness", () => {
    expect(status(decide(formatAddCheckpointRequest(0, [], note(3, root(3), seed, "other.example/log"))))).toBe(404)
  })

  it("answers 403 when no signature by the log's key verifies", () => {
    expect(status(decide(formatAddCheckpointRequest(0, [], note(3, root(3), otherSeed))))).toBe(403)
  })

  it("answers 400 for an old size above the checkpoint's", () => {
    expect(status(decide(formatAddCheckpointRequest(9, [], note(3)), { size: 9, rootHash: root(9) }))).toBe(400)
  })

  it("answers 409 with the known size on a stale old size", () => {
    const outcome = decide(formatAddCheckpointRequest(0, [], note(13)), { size: 7, rootHash: root(7) })
    expect(outcome).toMatchObject({ _tag: "Refused", status: 409, knownSize: 7 })
  })

  it("answers 409 for another root at the cosigned size: a fork", () => {
    const forked = sha256(utf8("another tree"))
    expect(decide(formatAddCheckpointRequest(7, [], note(7, forked)), { size: 7, rootHash: root(7) }))
      .toMatchObject({ _tag: "Refused", status: 409, knownSize: 7 })
  })

  it("answers 422 for a proof that does not verify: a fork past the cosigned size", () => {
    const forked = sha256(utf8("another tree"))
    expect(status(decide(formatAddCheckpointRequest(7, proof(7, 13), note(13, forked)), { size: 7, rootHash: root(7) }))).toBe(422)
    expect(status(decide(formatAddCheckpointRequest(7, proof(6, 13), note(13)), { size: 7, rootHash: root(7) }))).toBe(422)
    expect(status(decide(formatAddCheckpointRequest(0, proof(7, 13), note(13))))).toBe(422)
  })
})
