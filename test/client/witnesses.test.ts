// The client's witness policy (src/client/witnesses.ts): --witness keys and --quorum, and a
// checkpoint accepted only with a quorum of valid cosignatures by them.

import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { utf8 } from "../../src/domain/bytes.js"
import { cosign, formatCosignerKey, makeCosignerKey, withSignatureLines } from "../../src/domain/note/cosignature.js"
import { requireCosignatures, witnessPolicy } from "../../src/client/witnesses.js"
import { harnessLog } from "../support/harnessLog.js"
import { parseVerifierKey } from "../../src/domain/note/verifierKey.js"

const log = harnessLog("client.example/log")
const logKey = parseVerifierKey(nodeCrypto.sha256, log.vkey)!
const seeds = [1, 2, 3].map((i) => nodeCrypto.sha256(utf8(`client witness ${i}`)))
const names = ["w1.example/w", "w2.example/w", "w3.example/w"]
const vkeys = seeds.map((seed, i) => formatCosignerKey(makeCosignerKey(nodeCrypto.sha256, names[i]!, nodeCrypto.ed25519.publicKey(seed))))
const cosigned = (by: ReadonlyArray<number>) =>
  withSignatureLines(log.note(4), by.map((i) => cosign(log.text(4), names[i]!, seeds[i]!, 1_800_000_000 + i, nodeCrypto)))

describe("witness policy", () => {
  it("defaults the quorum to every witness given and refuses a larger one or a bad key", () => {
    expect(witnessPolicy(vkeys, undefined)?.quorum).toBe(3)
    expect(witnessPolicy([], undefined)).toBeUndefined()
    expect(() => witnessPolicy(vkeys, 4)).toThrow("--quorum 4 is more than the 3 witnesses given")
    expect(() => witnessPolicy([], 1)).toThrow("--quorum needs --witness keys")
    expect(() => witnessPolicy([log.vkey], undefined)).toThrow("is not a witness's cosignature verifier key")
  })

  it("accepts a checkpoint cosigned by a quorum, and says how many cosigned when short", () => {
    const policy = witnessPolicy(vkeys, 2)!
    expect(requireCosignatures(cosigned([0, 2]), logKey, policy, "the checkpoint").map((c) => c.witness.name)).toEqual([names[0], names[2]])
    expect(() => requireCosignatures(cosigned([1]), logKey, policy, "the checkpoint"))
      .toThrow(`the checkpoint is cosigned by 1 of the known witnesses (${names[1]}), not the 2 required`)
    // A line by an unknown witness does not count.
    const stranger = cosign(log.text(4), "stranger.example/w", nodeCrypto.sha256(utf8("stranger")), 1, nodeCrypto)
    expect(() => requireCosignatures(withSignatureLines(cosigned([0]), [stranger]), logKey, policy, "the checkpoint")).toThrow("not the 2 required")
  })

  it("refuses a checkpoint whose cosignature by a known witness does not verify", () => {
    const policy = witnessPolicy(vkeys, 1)!
    const other = cosign(log.text(5), names[0]!, seeds[0]!, 1, nodeCrypto)
    expect(() => requireCosignatures(withSignatureLines(log.note(4), [other]), logKey, policy, "the checkpoint"))
      .toThrow(`carries an invalid cosignature by witness ${names[0]}`)
    expect(Either.isRight(Either.try(() => requireCosignatures(cosigned([0]), logKey, policy, "the checkpoint")))).toBe(true)
  })
})
