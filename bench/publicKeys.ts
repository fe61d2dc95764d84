// bench/publicKeys: what verifying signatures from many agents' keys costs the server's
// threads in memory and CPU (issue 12, "Bounded memory"). node:crypto verifies with a
// KeyObject, which holds OpenSSL memory outside the JS heap, so a cache of them is memory the
// heap's figures never show. Each mode runs in a process of its own, on the same signatures:
//   before: keys built from SPKI DER, up to 100,000 kept (cleared when full): the rule until
//           session 32;
//   kept16: keys built from a JWK, the last 16 kept (the smallest cache tried);
//   now:    nodeCrypto's verify (src/adapters/crypto/nodeCryptoPrimitives.ts): a key built
//           from a JWK for each verification, none kept.
// For each it prints the RSS the keys added and the CPU a verification, first for `keys`
// signers that each verify once (a flood of agents), then for 64 that verify again and again
// (the busiest writers).
//
//   npm run build && node dist/bench/publicKeys.js [keys=120000]

import { execFileSync } from "node:child_process"
import { createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { nodeCrypto } from "../src/adapters/crypto/nodeCryptoPrimitives.js"

const RECORD = 32 + 64 + 32 // public key, signature, message
const HOT_KEYS = 64
const HOT_VERIFIES = 50_000

type Verify = (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array) => boolean

/** The rule until session 32: SPKI DER through OpenSSL 3's decoders, 100,000 kept, cleared when full. */
const verifyBefore = (): Verify => {
  const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex")
  const keys = new Map<string, KeyObject>()
  return (publicKey, message, signature) => {
    const cacheKey = Buffer.from(publicKey).toString("latin1")
    let key = keys.get(cacheKey)
    if (key === undefined) {
      key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: "der", type: "spki" })
      if (keys.size >= 100_000) keys.clear()
      keys.set(cacheKey, key)
    }
    return verify(null, message, key, signature)
  }
}

/** Keys from a JWK, the last 16 kept (insertion order as recency). */
const verifyKept16 = (): Verify => {
  const keys = new Map<string, KeyObject>()
  return (publicKey, message, signature) => {
    const bytes = Buffer.from(publicKey)
    const cacheKey = bytes.toString("latin1")
    let key = keys.get(cacheKey)
    if (key !== undefined) keys.delete(cacheKey)
    else {
      key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: bytes.toString("base64url") }, format: "jwk" })
      if (keys.size >= 16) keys.delete(keys.keys().next().value!)
    }
    keys.set(cacheKey, key)
    return verify(null, message, key, signature)
  }
}

const cpuMicros = () => {
  const { user, system } = process.cpuUsage()
  return user + system
}

/** In a child: verifies every record once, then the first HOT_KEYS over and over; prints JSON. */
const measure = (mode: string, file: string) => {
  const check: Verify = mode === "before" ? verifyBefore() : mode === "kept16" ? verifyKept16() : nodeCrypto.ed25519.verify
  const records = readFileSync(file)
  const count = records.length / RECORD
  const at = (i: number) => {
    const o = i * RECORD
    return [records.subarray(o, o + 32), records.subarray(o + 96, o + 128), records.subarray(o + 32, o + 96)] as const
  }
  global.gc?.()
  const rssBefore = process.memoryUsage().rss
  let start = cpuMicros()
  let valid = 0
  for (let i = 0; i < count; i++) if (check(...at(i))) valid++
  const floodMicros = (cpuMicros() - start) / count
  global.gc?.()
  const rssAfter = process.memoryUsage().rss
  start = cpuMicros()
  for (let i = 0; i < HOT_VERIFIES; i++) if (check(...at(i % HOT_KEYS))) valid++
  const hotMicros = (cpuMicros() - start) / HOT_VERIFIES
  console.log(JSON.stringify({ floodMicros, hotMicros, addedMiB: (rssAfter - rssBefore) / 1048576, valid, expected: count + HOT_VERIFIES }))
}

const main = () => {
  const keys = Number(process.argv[2] ?? 120_000)
  const dir = mkdtempSync(join(tmpdir(), "aics-publickeys-"))
  const file = join(dir, "records")
  try {
    const records = Buffer.alloc(keys * RECORD)
    for (let i = 0; i < keys; i++) {
      const { privateKey, publicKey } = generateKeyPairSync("ed25519")
      const o = i * RECORD
      publicKey.export({ format: "der", type: "spki" }).copy(records, o, 12)
      const message = records.subarray(o + 96, o + 128)
      message.writeUInt32BE(i)
      sign(null, message, privateKey).copy(records, o + 32)
    }
    writeFileSync(file, records)
    console.log(`bench/publicKeys: ${keys} signers verified once, then ${HOT_KEYS} verified ${HOT_VERIFIES} times; node ${process.version}`)
    for (const mode of ["before", "kept16", "now", "now", "kept16", "before"]) {
      const out = execFileSync(process.execPath, ["--expose-gc", process.argv[1]!, "--measure", mode, file], { encoding: "utf8" })
      const r = JSON.parse(out) as { floodMicros: number; hotMicros: number; addedMiB: number; valid: number; expected: number }
      if (r.valid !== r.expected) throw new Error(`${mode}: ${r.valid} of ${r.expected} signatures verified`)
      console.log(
        `${mode.padEnd(7)} RSS added by the keys ${r.addedMiB.toFixed(1).padStart(6)} MiB   ` +
          `a verification: new signers ${r.floodMicros.toFixed(1)} us, the busiest ${r.hotMicros.toFixed(1)} us`
      )
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[2] === "--measure") measure(process.argv[3]!, process.argv[4]!)
else main()
