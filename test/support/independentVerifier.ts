// An independent verifier for a running AICS-1 log, written as an outside auditor would:
// from the specifications only, sharing no code with /work/main/src.
//
//   - C2SP signed-note       (https://c2sp.org/signed-note)      note format, Ed25519 key IDs
//   - C2SP tlog-checkpoint   (https://c2sp.org/tlog-checkpoint)  checkpoint note text
//   - C2SP tlog-tiles        (https://c2sp.org/tlog-tiles)       tiles, partial tiles, entry bundles
//   - RFC 9162 section 2.1   Merkle tree hashing, inclusion (2.1.3.2) and consistency (2.1.4.2)
//
// Dependencies: node built-ins, @noble/hashes, @noble/curves and the global fetch.
import { isDeepStrictEqual } from "node:util"
import { sha256 } from "@noble/hashes/sha2.js"
import { ed25519 } from "@noble/curves/ed25519.js"

// ---------------------------------------------------------------------------------------------
// Bytes and encodings

const utf8 = new TextEncoder()
const strictUtf8 = new TextDecoder("utf-8", { fatal: true })

const concat = (...parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

const equalBytes = (a: Uint8Array, b: Uint8Array): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i])

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex")

/** Standard base64 (RFC 4648 section 4, padded), as signed-note and tlog-checkpoint use; strict. */
const fromStdB64 = (s: string, what: string): Uint8Array => {
  const b = Buffer.from(s, "base64")
  if (b.toString("base64") !== s) throw new Error(`${what}: not canonical standard base64: ${JSON.stringify(s)}`)
  return new Uint8Array(b)
}

/** base64url without padding (RFC 4648 section 5), as the AICS-1 API's `U64` fields use; strict. */
const fromB64Url = (s: unknown, what: string): Uint8Array => {
  if (typeof s !== "string") throw new Error(`${what}: expected a base64url string, got ${JSON.stringify(s)}`)
  const b = Buffer.from(s, "base64url")
  if (b.toString("base64url") !== s) throw new Error(`${what}: not canonical unpadded base64url: ${JSON.stringify(s)}`)
  return new Uint8Array(b)
}

const toB64Url = (b: Uint8Array): string => Buffer.from(b).toString("base64url")

/** A 32-byte hash in an API proof: canonical standard base64, or unpadded base64url. */
const hash32 = (s: unknown, what: string): Uint8Array => {
  if (typeof s !== "string") throw new Error(`${what}: expected a base64 string, got ${JSON.stringify(s)}`)
  const b = Buffer.from(s, "base64") // node decodes both alphabets; canonical form checked below
  if (b.toString("base64") !== s && b.toString("base64url") !== s) throw new Error(`${what}: not canonical base64: ${JSON.stringify(s)}`)
  if (b.length !== 32) throw new Error(`${what}: expected 32 bytes, got ${b.length}`)
  return new Uint8Array(b)
}

// ---------------------------------------------------------------------------------------------
// RFC 9162 section 2.1.1: Merkle tree hashing

export const leafHash = (entry: Uint8Array): Uint8Array => sha256(concat(Uint8Array.of(0x00), entry))
export const nodeHash = (left: Uint8Array, right: Uint8Array): Uint8Array => sha256(concat(Uint8Array.of(0x01), left, right))
const EMPTY_ROOT = sha256(new Uint8Array(0)) // MTH({}) = SHA-256()

/** MTH of a perfect (power-of-two sized) run of hashes. */
const perfectRoot = (hashes: ReadonlyArray<Uint8Array>): Uint8Array => {
  let level = hashes.slice()
  while (level.length > 1) {
    const next: Array<Uint8Array> = []
    for (let i = 0; i < level.length; i += 2) next.push(nodeHash(level[i]!, level[i + 1]!))
    level = next
  }
  return level[0]!
}

// Arithmetic instead of 32-bit bit operations, so sizes above 2^31 stay correct.
const lsb = (x: number): boolean => x % 2 === 1
const half = (x: number): number => Math.floor(x / 2)

/** RFC 9162 section 2.1.3.2: verify an inclusion proof. Returns a reason on failure, or null. */
export const inclusionFailure = (
  index: number, size: number, leaf: Uint8Array, proof: ReadonlyArray<Uint8Array>, root: Uint8Array
): string | null => {
  if (!(index >= 0 && index < size)) return `index ${index} is not below size ${size}`
  let fn = index, sn = size - 1, r = leaf
  for (const p of proof) {
    if (sn === 0) return "proof is too long"
    if (lsb(fn) || fn === sn) {
      r = nodeHash(p, r)
      while (!lsb(fn) && fn !== 0) { fn = half(fn); sn = half(sn) }
    } else {
      r = nodeHash(r, p)
    }
    fn = half(fn); sn = half(sn)
  }
  if (sn !== 0) return "proof is too short"
  return equalBytes(r, root) ? null : `computed root ${hex(r)} is not ${hex(root)}`
}

/** RFC 9162 section 2.1.4.2: verify a consistency proof. Returns a reason on failure, or null. */
export const consistencyFailure = (
  first: number, second: number, firstHash: Uint8Array, secondHash: Uint8Array, proof: ReadonlyArray<Uint8Array>
): string | null => {
  if (!(first >= 1 && first <= second)) return `sizes ${first} -> ${second} are not 1 <= first <= second`
  if (first === second) {
    if (proof.length !== 0) return "proof between equal sizes is not empty"
    return equalBytes(firstHash, secondHash) ? null : "roots of equal sizes differ"
  }
  if (proof.length === 0) return "proof is empty"
  // Step 2: when `first` is an exact power of two, first_hash is the proof's implicit first node.
  const path = 2 ** Math.round(Math.log2(first)) === first ? [firstHash, ...proof] : [...proof]
  let fn = first - 1, sn = second - 1
  while (lsb(fn)) { fn = half(fn); sn = half(sn) }
  let fr = path[0]!, sr = path[0]!
  for (const c of path.slice(1)) {
    if (sn === 0) return "proof is too long"
    if (lsb(fn) || fn === sn) {
      fr = nodeHash(c, fr); sr = nodeHash(c, sr)
      while (!lsb(fn) && fn !== 0) { fn = half(fn); sn = half(sn) }
    } else {
      sr = nodeHash(sr, c)
    }
    fn = half(fn); sn = half(sn)
  }
  if (sn !== 0) return "proof is too short"
  if (!equalBytes(fr, firstHash)) return `computed old root ${hex(fr)} is not ${hex(firstHash)}`
  if (!equalBytes(sr, secondHash)) return `computed new root ${hex(sr)} is not ${hex(secondHash)}`
  return null
}

// ---------------------------------------------------------------------------------------------
// C2SP signed-note: verifier keys and signatures

export interface VerifierKey { readonly name: string; readonly keyHash: Uint8Array; readonly publicKey: Uint8Array }

/** `<name>+<8 hex key ID>+<base64(0x01 || 32-byte Ed25519 key)>` (signed-note, "Ed25519 signatures"). */
export const parseVkey = (vkey: string): VerifierKey => {
  // The name has no '+', the hash is hex, so the first two '+' delimit (base64 may hold '+').
  const m = /^([^+]*)\+([^+]*)\+(.*)$/s.exec(vkey.trim())
  if (m === null) throw new Error(`vkey: expected <name>+<hash>+<key>, got ${JSON.stringify(vkey)}`)
  const [, name, hashHex, keyB64] = m as unknown as [string, string, string, string]
  // signed-note, "Format": key names are non-empty, with no Unicode spaces and no '+'.
  if (name === "" || /\s/u.test(name)) throw new Error(`vkey: bad key name ${JSON.stringify(name)}`)
  if (!/^[0-9a-f]{8}$/.test(hashHex)) throw new Error(`vkey: key hash ${JSON.stringify(hashHex)} is not 8 lowercase hex digits`)
  const key = fromStdB64(keyB64, "vkey key")
  if (key.length !== 33 || key[0] !== 0x01) throw new Error("vkey: key is not 0x01 (Ed25519) followed by 32 bytes")
  const keyHash = Uint8Array.from(Buffer.from(hashHex, "hex"))
  // key ID = SHA-256(key name || 0x0A || 0x01 || 32-byte Ed25519 public key)[:4]
  const expected = sha256(concat(utf8.encode(name), Uint8Array.of(0x0a), key)).slice(0, 4)
  if (!equalBytes(expected, keyHash)) throw new Error(`vkey: key hash ${hashHex} does not match the key (expected ${hex(expected)})`)
  return { name, keyHash, publicKey: key.slice(1) }
}

export interface Checkpoint { readonly origin: string; readonly size: number; readonly root: Uint8Array }

/**
 * Verifies a signed note (C2SP signed-note) carrying a checkpoint (C2SP tlog-checkpoint)
 * against one Ed25519 verifier key, and returns the checkpoint.
 */
export const verifyCheckpoint = (noteBytes: Uint8Array, vkey: string): Checkpoint => {
  const key = parseVkey(vkey)
  let note: string
  try { note = strictUtf8.decode(noteBytes) } catch { throw new Error("checkpoint: note is not valid UTF-8") }
  // signed-note "Format": valid UTF-8, no ASCII control characters other than newline.
  if (/[\u0000-\u0009\u000b-\u001f]/.test(note)) throw new Error("checkpoint: note contains a control character")
  // The text ends in a newline; the last blank line separates it from the signature lines.
  const split = note.lastIndexOf("\n\n")
  if (split < 0) throw new Error("checkpoint: note has no blank line before its signatures")
  const text = note.slice(0, split + 1)
  const sigBlock = note.slice(split + 2)
  if (!sigBlock.endsWith("\n")) throw new Error("checkpoint: signature block does not end in a newline")
  const sigLines = sigBlock.slice(0, -1).split("\n")
  if (sigLines.length > 100) throw new Error(`checkpoint: too many signature lines (${sigLines.length})`)
  let verified = false
  for (const line of sigLines) {
    // "— <key name> base64(32-bit key ID || signature)"
    const m = /^\u2014 (\S+) (\S+)$/u.exec(line)
    if (m === null) throw new Error(`checkpoint: malformed signature line ${JSON.stringify(line)}`)
    const sig = fromStdB64(m[2]!, "checkpoint signature")
    if (sig.length < 5) throw new Error("checkpoint: signature shorter than a key ID")
    // Signatures by unknown keys (name or key ID differing) are ignored.
    if (m[1] !== key.name || !equalBytes(sig.subarray(0, 4), key.keyHash)) continue
    // A signature by the known key must verify (RFC 8032, strict encodings).
    const ok = sig.length === 68 && ed25519.verify(sig.subarray(4), utf8.encode(text), key.publicKey, { zip215: false })
    if (!ok) throw new Error(`checkpoint: bad signature by ${key.name}+${hex(key.keyHash)}`)
    verified = true
  }
  if (!verified) throw new Error(`checkpoint: no signature by ${key.name}+${hex(key.keyHash)}`)
  // tlog-checkpoint "Note text": at least three non-empty lines: origin, size, root hash, extensions.
  const lines = text.slice(0, -1).split("\n")
  if (lines.length < 3 || lines.some((l) => l === "")) throw new Error("checkpoint: text is not at least three non-empty lines")
  const [origin, sizeText, rootText] = lines as [string, string, string]
  if (!/^(0|[1-9][0-9]*)$/.test(sizeText) || !Number.isSafeInteger(Number(sizeText))) {
    throw new Error(`checkpoint: bad tree size ${JSON.stringify(sizeText)}`)
  }
  const root = fromStdB64(rootText, "checkpoint root")
  if (root.length !== 32) throw new Error(`checkpoint: root hash is ${root.length} bytes, not 32`)
  return { origin, size: Number(sizeText), root }
}

// ---------------------------------------------------------------------------------------------
// C2SP tlog-tiles

const HEIGHT = 8
const WIDTH = 2 ** HEIGHT // 256 hashes to a full tile

/** `<N>` as zero-padded 3-digit path elements, all but the last prefixed with `x`. */
export const tileIndexPath = (n: number): string => {
  let digits = String(n)
  digits = digits.padStart(Math.ceil(digits.length / 3) * 3, "0")
  const groups = digits.match(/.{3}/g)!
  return groups.map((g, i) => (i < groups.length - 1 ? `x${g}` : g)).join("/")
}

/** `tile/<L>/<N>[.p/<W>]`, or `tile/entries/<N>[.p/<W>]` for level "entries". */
export const tilePath = (level: number | "entries", n: number, width: number): string =>
  `tile/${level}/${tileIndexPath(n)}${width === WIDTH ? "" : `.p/${width}`}`

/**
 * The hashes a tiled log of one size publishes: `level[L]` holds, concatenated, the
 * floor(size / 256^L) Merkle Tree Hashes of the perfect subtrees of 256^L leaves.
 */
export class TileHashes {
  constructor(readonly size: number, readonly levels: ReadonlyArray<Uint8Array>) {}

  private stored(level: number, i: number): Uint8Array {
    return this.levels[level]!.subarray(i * 32, i * 32 + 32)
  }

  leafHash(i: number): Uint8Array {
    if (!(i >= 0 && i < this.size)) throw new Error(`leaf ${i} is outside size ${this.size}`)
    return this.stored(0, i)
  }

  /** Hash of the perfect subtree of height h (2^h leaves) with index k at that height. */
  subtree(h: number, k: number): Uint8Array {
    // A tile at level L stores the hashes at tree height 8L; heights between come from hashing.
    const level = Math.floor(h / HEIGHT), span = 2 ** (h % HEIGHT)
    const hashes: Array<Uint8Array> = []
    for (let i = k * span; i < (k + 1) * span; i++) hashes.push(this.stored(level, i))
    return perfectRoot(hashes)
  }

  /** MTH of the first m leaves (RFC 9162 2.1.1), read out of the tiles. */
  rootAt(m: number): Uint8Array {
    if (!(Number.isSafeInteger(m) && m >= 0 && m <= this.size)) throw new Error(`size ${m} is outside 0..${this.size}`)
    if (m === 0) return EMPTY_ROOT
    // MTH splits at the largest power of two below n, so the tree of size m is its perfect
    // subtrees for the binary digits of m, largest first, combined right to left.
    const parts: Array<Uint8Array> = []
    let start = 0
    for (let h = Math.floor(Math.log2(m)) + 1; h >= 0; h--) {
      if (start + 2 ** h <= m) {
        parts.push(this.subtree(h, start / 2 ** h))
        start += 2 ** h
      }
    }
    let acc = parts.pop()!
    while (parts.length > 0) acc = nodeHash(parts.pop()!, acc)
    return acc
  }
}

const fetchBytes = async (url: string): Promise<Uint8Array> => {
  const res = await fetch(url)
  if (res.status !== 200) throw new Error(`GET ${url}: HTTP ${res.status}`)
  return new Uint8Array(await res.arrayBuffer())
}

/** Runs tasks with bounded concurrency, in order of the inputs. */
const mapLimit = async <A, B>(items: ReadonlyArray<A>, limit: number, f: (a: A) => Promise<B>): Promise<Array<B>> => {
  const out = new Array<B>(items.length)
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++
      out[i] = await f(items[i]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return out
}

/** Parses an entry bundle: big-endian uint16 length-prefixed entries, exactly `count` of them. */
export const parseEntryBundle = (bytes: Uint8Array, count: number, what: string): Array<Uint8Array> => {
  const entries: Array<Uint8Array> = []
  let at = 0
  while (at < bytes.length) {
    if (at + 2 > bytes.length) throw new Error(`${what}: truncated length prefix at byte ${at}`)
    const len = (bytes[at]! << 8) | bytes[at + 1]!
    if (at + 2 + len > bytes.length) throw new Error(`${what}: entry ${entries.length} overruns the bundle`)
    entries.push(bytes.subarray(at + 2, at + 2 + len))
    at += 2 + len
  }
  if (entries.length !== count) throw new Error(`${what}: holds ${entries.length} entries, expected ${count}`)
  return entries
}

export interface PublishedTile { readonly level: number | "entries"; readonly n: number; readonly width: number; readonly path: string }

/**
 * Every tile and entry bundle a log of `size` publishes (tlog-tiles "Partial Tiles"): level L
 * holds floor(size / 256^L) hashes, the last (that mod 256) of them in one partial tile; empty
 * tiles are not served. Entry bundles mirror the level-0 tiles.
 */
export const publishedTiles = (size: number): Array<PublishedTile> => {
  const tiles: Array<PublishedTile> = []
  for (let level = 0; Math.floor(size / WIDTH ** level) > 0; level++) {
    const count = Math.floor(size / WIDTH ** level)
    for (let n = 0; n * WIDTH < count; n++) {
      const width = Math.min(WIDTH, count - n * WIDTH)
      tiles.push({ level, n, width, path: tilePath(level, n, width) })
      if (level === 0) tiles.push({ level: "entries", n, width, path: tilePath("entries", n, width) })
    }
  }
  return tiles
}

/** Fetches and checks every tile and entry bundle a log of `size` publishes under `prefix`. */
export const loadTiles = async (prefix: string, size: number): Promise<TileHashes> => {
  const levels: Array<Uint8Array> = []
  for (let level = 0; Math.floor(size / WIDTH ** level) > 0; level++) levels.push(new Uint8Array(Math.floor(size / WIDTH ** level) * 32))
  const bundles = new Map<number, Array<Uint8Array>>()
  await mapLimit(publishedTiles(size), 16, async ({ level, n, width, path }) => {
    const bytes = await fetchBytes(`${prefix}/${path}`)
    if (level === "entries") {
      bundles.set(n, parseEntryBundle(bytes, width, path))
    } else {
      if (bytes.length !== width * 32) throw new Error(`${path}: ${bytes.length} bytes, expected ${width * 32}`)
      levels[level]!.set(bytes, n * WIDTH * 32)
    }
  })
  // Every entry in a bundle hashes to the corresponding level-0 tile hash.
  for (const [n, entries] of bundles) {
    entries.forEach((entry, i) => {
      const at = (n * WIDTH + i) * 32
      if (!equalBytes(leafHash(entry), levels[0]!.subarray(at, at + 32))) {
        throw new Error(`${tilePath("entries", n, entries.length)}: entry ${n * WIDTH + i} does not hash to ${tilePath(0, n, entries.length)} hash ${i}`)
      }
    })
  }
  // At level L >= 1 each hash is the MTH of the 256 hashes of the full tile below it.
  for (let level = 1; level < levels.length; level++) {
    const below = levels[level - 1]!, here = levels[level]!
    for (let j = 0; j < here.length / 32; j++) {
      const hashes = Array.from({ length: WIDTH }, (_, i) => below.subarray((j * WIDTH + i) * 32, (j * WIDTH + i + 1) * 32))
      if (!equalBytes(perfectRoot(hashes), here.subarray(j * 32, j * 32 + 32))) {
        const n = Math.floor(j / WIDTH), width = Math.min(WIDTH, here.length / 32 - n * WIDTH)
        throw new Error(`${tilePath(level, n, width)}: hash ${j % WIDTH} is not the root of ${tilePath(level - 1, j, WIDTH)}`)
      }
    }
  }
  return new TileHashes(size, levels)
}

export interface VerifiedLog { readonly size: number; readonly root: Uint8Array; readonly tiles?: TileHashes }

/**
 * Verifies the running log from its tiles: the checkpoint signature, every tile and entry
 * bundle, and the root rebuilt from the tiles against the checkpoint's root.
 */
export const verifyLogFromTiles = async (baseUrl: string, vkey: string): Promise<VerifiedLog & { readonly tiles: TileHashes }> => {
  // /tiles/checkpoint and /checkpoint must serve the same note (retried twice, in case the log moved between the two fetches).
  let note: Uint8Array = new Uint8Array(0)
  for (let attempt = 0; ; attempt++) {
    note = await fetchBytes(`${baseUrl}/tiles/checkpoint`)
    const other = await fetchBytes(`${baseUrl}/checkpoint`)
    if (equalBytes(note, other)) break
    if (attempt === 2) throw new Error(`${baseUrl}/checkpoint differs from ${baseUrl}/tiles/checkpoint`)
  }
  const { size, root } = verifyCheckpoint(note, vkey)
  const tiles = await loadTiles(`${baseUrl}/tiles`, size)
  const rebuilt = tiles.rootAt(size)
  if (!equalBytes(rebuilt, root)) throw new Error(`tiles: root rebuilt from the tiles ${hex(rebuilt)} is not the checkpoint root ${hex(root)} (size ${size})`)
  return { size, root, tiles }
}

// ---------------------------------------------------------------------------------------------
// The AICS-1 API's proofs, checked against the tiles

const getJson = async (url: string): Promise<Record<string, unknown>> => {
  const res = await fetch(url)
  const text = await res.text()
  if (res.status !== 200) throw new Error(`GET ${url}: HTTP ${res.status}: ${text.slice(0, 300)}`)
  const value: unknown = JSON.parse(text)
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(`GET ${url}: not a JSON object`)
  return value as Record<string, unknown>
}

const hashList = (v: unknown, what: string): Array<Uint8Array> => {
  if (!Array.isArray(v)) throw new Error(`${what}: expected an array of hashes`)
  return v.map((h, i) => hash32(h, `${what}[${i}]`))
}

const expectEqual = (actual: unknown, expected: unknown, what: string): void => {
  if (actual !== expected) throw new Error(`${what}: got ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`)
}

/** About `count` indexes spread over 0..size-1, both ends included. */
const spread = (size: number, count: number): Array<number> =>
  [...new Set(Array.from({ length: count }, (_, k) => Math.round((k * (size - 1)) / (count - 1))))]

/**
 * Checks the API's inclusion, entry, consistency and index answers against a log verified
 * from its tiles (pass the value `verifyLogFromTiles` returned, tiles included).
 */
export const checkApiProofs = async (baseUrl: string, vkey: string, verified: VerifiedLog): Promise<void> => {
  const N = verified.size
  const tiles = verified.tiles ?? (await loadTiles(`${baseUrl}/tiles`, N))
  if (tiles.size !== N || !equalBytes(tiles.rootAt(N), verified.root)) throw new Error("the tiles do not match the verified size and root")
  if (N === 0) return

  // A checkpoint note in an API answer: signed by the log and consistent with the verified tree.
  const noteChecks = new Map<string, Promise<Checkpoint>>()
  const checkNote = (encoded: unknown, what: string): Promise<Checkpoint> => {
    const key = String(encoded)
    let p = noteChecks.get(key)
    if (p === undefined) {
      p = (async () => {
        const cp = verifyCheckpoint(fromB64Url(encoded, `${what}: checkpoint_note`), vkey)
        if (cp.size <= N) {
          if (!equalBytes(cp.root, tiles.rootAt(cp.size))) throw new Error(`${what}: checkpoint of size ${cp.size} has a root the tiles do not give`)
        } else {
          const url = `${baseUrl}/v2/tlog/consistency?from=${N}&to=${cp.size}`
          const failure = consistencyFailure(N, cp.size, verified.root, cp.root, hashList((await getJson(url)).hashes, url))
          if (failure !== null) throw new Error(`${what}: newer checkpoint ${cp.size} is not consistent with ${N}: ${failure}`)
        }
        return cp
      })()
      noteChecks.set(key, p)
    }
    return p
  }

  const indexes = N <= 300 ? Array.from({ length: N }, (_, i) => i) : spread(N, 200)
  await mapLimit(indexes, 8, async (i) => {
    const leaf = tiles.leafHash(i)

    const inclusionUrl = `${baseUrl}/v2/tlog/inclusion?index=${i}&size=${N}`
    const inc = await getJson(inclusionUrl)
    expectEqual(inc.index, i, `${inclusionUrl}: index`)
    expectEqual(inc.size, N, `${inclusionUrl}: size`)
    const incFailure = inclusionFailure(i, N, leaf, hashList(inc.hashes, inclusionUrl), verified.root)
    if (incFailure !== null) throw new Error(`${inclusionUrl}: inclusion proof fails: ${incFailure}`)

    const proofUrl = `${baseUrl}/v2/tlog/proof/${i}`
    const pr = await getJson(proofUrl)
    expectEqual(pr.index, i, `${proofUrl}: index`)
    const entry = fromB64Url(pr.entry_bytes, `${proofUrl}: entry_bytes`)
    if (!equalBytes(leafHash(entry), leaf)) throw new Error(`${proofUrl}: entry_bytes do not hash to the level-0 tile hash of leaf ${i}`)
    if (!equalBytes(fromB64Url(pr.leaf_hash, `${proofUrl}: leaf_hash`), leaf)) throw new Error(`${proofUrl}: leaf_hash is not the tile's leaf hash`)
    const prCp = await checkNote(pr.checkpoint_note, proofUrl)
    const ip = pr.inclusion_proof as Record<string, unknown> | null
    if (typeof ip !== "object" || ip === null) throw new Error(`${proofUrl}: inclusion_proof is not an object`)
    expectEqual(ip.index, i, `${proofUrl}: inclusion_proof.index`)
    expectEqual(ip.size, prCp.size, `${proofUrl}: inclusion_proof.size`)
    const prFailure = inclusionFailure(i, prCp.size, leaf, hashList(ip.hashes, proofUrl), prCp.root)
    if (prFailure !== null) throw new Error(`${proofUrl}: inclusion proof fails against its checkpoint: ${prFailure}`)

    const entryUrl = `${baseUrl}/v2/entries/${i}`
    const en = await getJson(entryUrl)
    expectEqual(en.index, i, `${entryUrl}: index`)
    const entryBytes = fromB64Url(en.entry_bytes, `${entryUrl}: entry_bytes`)
    if (!equalBytes(leafHash(entryBytes), leaf)) throw new Error(`${entryUrl}: entry_bytes do not hash to the level-0 tile hash of leaf ${i}`)
    const enCp = await checkNote(en.checkpoint_note, entryUrl)
    const enFailure = inclusionFailure(i, enCp.size, leaf, hashList(en.inclusion_proof, entryUrl), enCp.root)
    if (enFailure !== null) throw new Error(`${entryUrl}: inclusion proof fails against its checkpoint: ${enFailure}`)
    let parsed: Record<string, unknown>
    try { parsed = JSON.parse(strictUtf8.decode(entryBytes)) as Record<string, unknown> } catch { throw new Error(`${entryUrl}: entry_bytes are not UTF-8 JSON`) }
    if (!isDeepStrictEqual(parsed.envelope, en.envelope)) throw new Error(`${entryUrl}: envelope differs from the one in entry_bytes`)
    expectEqual(parsed.index, i, `${entryUrl}: index inside entry_bytes`)
  })

  // Consistency from sizes m (1, N, tile boundaries, a spread) to N, against roots from the tiles.
  const froms = [...new Set([1, N, 255, 256, 257, 65536, 65537, ...spread(N, 30).map((m) => m + 1)])].filter((m) => m >= 1 && m <= N)
  await mapLimit(froms, 8, async (m) => {
    const url = `${baseUrl}/v2/tlog/consistency?from=${m}&to=${N}`
    const c = await getJson(url)
    expectEqual(c.from, m, `${url}: from`)
    expectEqual(c.to, N, `${url}: to`)
    const failure = consistencyFailure(m, N, tiles.rootAt(m), verified.root, hashList(c.hashes, url))
    if (failure !== null) throw new Error(`${url}: consistency proof fails: ${failure}`)
  })

  // Leaf-hash lookups answer the leaf's index (or, for a duplicate entry, an earlier equal leaf).
  for (const i of [...new Set([0, N - 1, ...spread(N, 5)])]) {
    const url = `${baseUrl}/v2/tlog/index/${toB64Url(tiles.leafHash(i))}`
    const { index } = await getJson(url)
    const sameLeaf = typeof index === "number" && Number.isInteger(index) && index >= 0 && index <= i && equalBytes(tiles.leafHash(index), tiles.leafHash(i))
    if (index !== i && !sameLeaf) throw new Error(`${url}: index ${JSON.stringify(index)}, expected ${i}`)
  }
}
