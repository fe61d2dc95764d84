// Auditing the log from the agent's side:
//   1. the current checkpoint, verified with the out-of-band key;
//   2. its root rebuilt from the published tiles, which must be equal: the tiles are then
//      the log the key signed;
//   3. for each receipt in the key file (its current key's and those of the keys it rotated
//      from): the receipt note still verifies, the level-0 hash
//      at its index in the tiles is its leaf hash, an inclusion proof built from the
//      tiles verifies against the checkpoint root, and the entry bundle serves, at that
//      index, entry bytes of that leaf hash (the key file's own entry). A log that promised
//      a leaf (the signed receipt) and then dropped or changed it fails here, with the
//      receipt as evidence; so does one whose bundles serve other bytes than its tiles hash.
// The other entries' contents are not read: the tiles rebuilding the root says the hash tree
// is the signed one, not that every bundle holds the entries hashed in it. `aics audit name`
// (audit.ts) reads every bundle, checks each entry against the tiles, and folds them.
//   4. the file's own completeness: a key's chain position counts its accepted entries
//      (seq 0 to seq - 1), each of which should have left a receipt here; a seq without
//      one is reported (missingReceipts; missing_receipts in the JSON), as a receipt lost (two writes that overwrote
//      each other's saves, before writes took the key file's lock) or an entry written
//      elsewhere (the text gate, another copy of the file). The log is not at fault, so
//      this does not make `ok` false.
// Entries are sequenced before they are published, so a fresh receipt may be past the
// checkpoint for up to the log's merge delay; verify waits for it a bounded time.
//
// The report is the library's (camelCase members); what `aics verify --json` prints and the
// MCP `verify` tool answers is verificationJson's projection of it, in snake_case as every
// other answer of the CLI, the tools and the service.

import { equal, toHex } from "../domain/bytes.js"
import { decodeB64, decodeU64, encodeB64 } from "../domain/encoding.js"
import type { Checkpoint } from "../domain/note/checkpoint.js"
import { inclusionProofFromHashes, inclusionProofIndexes, verifyInclusion } from "../domain/tlog/inclusion.js"
import { storedHashIndex } from "../domain/tlog/storedHash.js"
import type { AgentKey, StoredReceipt } from "./agentKey.js"
import { signedCard } from "./contribute.js"
import { fetchCheckpoint } from "./checkpoint.js"
import { hasher } from "./crypto.js"
import { ClientError, usageError, verificationError } from "./errors.js"
import { noProgress, type Progress } from "./progress.js"
import { verifyReceiptNote } from "./receipts.js"
import { tileReader, type TileReader } from "./tiles.js"
import type { LogClient } from "./write.js"

export interface ReceiptCheck {
  readonly index: number
  readonly type: string
  readonly seq: number
  /**
   * ok: in the log as promised; pending: past the checkpoint, within the merge delay the
   * signed card promises; failed: see detail (an overdue receipt among them: no checkpoint
   * covers it well after its logged time plus the merge delay, docs/protocol.md 8.2).
   */
  readonly status: "ok" | "pending" | "failed"
  readonly detail: string
}

/** The seqs of one key's chain for which the key file holds no receipt. */
export interface MissingReceipts {
  readonly kid: string
  /** Ascending. */
  readonly seqs: ReadonlyArray<number>
}

export interface LogVerification {
  readonly origin: string
  readonly size: number
  /** B64, as in the checkpoint. */
  readonly rootHash: string
  readonly tilesFetched: number
  /** Entry bundles read: those holding the receipts' entries. */
  readonly bundlesFetched: number
  readonly receipts: ReadonlyArray<ReceiptCheck>
  /** The root matched (else verifyLog throws) and every receipt is ok. */
  readonly ok: boolean
  /** Per key (the previous keys' first), the seqs of its chain the file has no receipt for; keys missing none are left out. */
  readonly missingReceipts: ReadonlyArray<MissingReceipts>
  /** How many seqs missingReceipts names in all; 0 when the file holds a receipt for every entry its chains count. */
  readonly missingReceiptCount: number
}

/**
 * The seqs below each chain position (the file's keys, the previous ones first) that no
 * receipt of that key carries.
 */
export const missingReceiptsOf = (key: AgentKey): ReadonlyArray<MissingReceipts> =>
  [...key.previous, key].flatMap(({ kid, seq, receipts }) => {
    const held = new Set(receipts.map((r) => r.seq))
    const seqs = Array.from({ length: seq }, (_, s) => s).filter((s) => !held.has(s))
    return seqs.length === 0 ? [] : [{ kid, seqs }]
  })

/** How the CLI fetches a missing receipt again. */
const CLI_FETCH_AGAIN = "aics receipt <index> fetches one again and keeps it (GET /v2/keys/<kid> lists the key's entries)"

/**
 * One line on the receipts the file lacks, or null when it lacks none: what verify says
 * beside the receipts it checked (the CLI and the MCP tool alike), ending with how to fetch
 * them again: `fetchAgain`, in the caller's words (the MCP tool names its receipt tool),
 * else the CLI's command.
 */
export const missingReceiptsLine = (missing: ReadonlyArray<MissingReceipts>, fetchAgain: string = CLI_FETCH_AGAIN): string | null => {
  const count = missing.reduce((n, m) => n + m.seqs.length, 0)
  if (count === 0) return null
  const which = missing.map((m) => `seq ${seqRuns(m.seqs)} of ${m.kid}`).join("; ")
  return `${count} receipt${count === 1 ? "" : "s"} missing from the key file (${which}): ` +
    "the chain counts these entries but the file keeps no receipt of them (lost, or written elsewhere: the text gate, another copy of the file); " +
    fetchAgain
}

/** "3, 5-7, 9": seqs (ascending) as runs, for a line of text. */
export const seqRuns = (seqs: ReadonlyArray<number>): string => {
  const runs: Array<[number, number]> = []
  for (const s of seqs) {
    const last = runs[runs.length - 1]
    if (last !== undefined && last[1] + 1 === s) last[1] = s
    else runs.push([s, s])
  }
  return runs.map(([from, to]) => (from === to ? String(from) : `${from}-${to}`)).join(", ")
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * The checkpoint (verified, and cosigned when the client names witnesses), re-fetched every
 * 250 ms until it covers leaf `index` (its size is past it) or `waitMs` has passed: then the
 * last one fetched, which the caller checks for coverage. An index below 0 (no receipt) is
 * covered by any checkpoint: one fetch. What verify waits with, and the MCP whoami tool.
 */
export const checkpointCovering = async (client: LogClient, index: number, waitMs: number): Promise<Checkpoint> => {
  const deadline = Date.now() + waitMs
  for (;;) {
    const checkpoint = await fetchCheckpoint(client.service, client.vkey, client.witnesses)
    if (checkpoint.size > index || Date.now() >= deadline) return checkpoint
    await sleep(Math.min(250, Math.max(0, deadline - Date.now())))
  }
}

const checkReceipt = async (
  client: LogClient,
  tiles: TileReader,
  checkpoint: Checkpoint,
  r: StoredReceipt
): Promise<ReceiptCheck> => {
  const result = (status: ReceiptCheck["status"], detail: string): ReceiptCheck => ({ index: r.index, type: r.type, seq: r.seq, status, detail })
  const leafHash = decodeU64(r.leaf_hash)!
  try {
    verifyReceiptNote(r.receipt_note, client.vkey, { index: r.index, leafHash, logged: r.logged })
  } catch (error) {
    return result("failed", error instanceof Error ? error.message : String(error))
  }
  if (r.index >= checkpoint.size) return result("pending", `not yet under the checkpoint of size ${checkpoint.size}`)
  const [inTiles] = await tiles.storedHashes(checkpoint.size, [storedHashIndex(0, r.index)])
  if (!equal(inTiles!, leafHash)) return result("failed", `the tiles hold another leaf at index ${r.index}`)
  const proof = inclusionProofFromHashes(
    hasher,
    r.index,
    checkpoint.size,
    await tiles.storedHashes(checkpoint.size, inclusionProofIndexes(r.index, checkpoint.size))
  )
  if (!verifyInclusion(hasher, r.index, checkpoint.size, leafHash, proof, checkpoint.rootHash)) {
    return result("failed", `no inclusion in the checkpoint of size ${checkpoint.size}`)
  }
  // A bundle that is missing or does not parse fails this receipt, with the receipt as
  // evidence, rather than the whole verification.
  let entry: Uint8Array
  try {
    entry = await tiles.entry(checkpoint.size, r.index)
  } catch (error) {
    return result("failed", `the entry bundle holding index ${r.index} could not be read: ${error instanceof Error ? error.message : String(error)}`)
  }
  if (!equal(hasher.leafHash(entry), leafHash)) {
    return result("failed", `the entry bundle serves other bytes at index ${r.index} than the receipt's leaf, which the hash tiles hold`)
  }
  return result("ok", `included in the checkpoint of size ${checkpoint.size}, its entry bundle holds the leaf`)
}

/**
 * Slack beyond the merge delay before a receipt no checkpoint covers counts as overdue: the
 * two clocks (the log's `logged`, this machine's now) may disagree by this much.
 */
export const OVERDUE_SLACK_MS = 60_000

/**
 * The checks with every pending receipt older than the signed card's merge delay (and the
 * slack) failed as overdue: the log promised a checkpoint covering it within mmd_seconds of
 * its logged time, and the receipt note is the evidence that it did not keep the promise
 * (it went back, or withholds the leaf). The card is asked only when a receipt is pending.
 */
const overdueAmong = async (
  client: LogClient,
  checks: ReadonlyArray<ReceiptCheck>,
  receipts: ReadonlyArray<StoredReceipt>,
  size: number,
  now: number
): Promise<ReadonlyArray<ReceiptCheck>> => {
  if (!checks.some((c) => c.status === "pending")) return checks
  const mmd = (await signedCard(client))["mmd_seconds"]
  if (typeof mmd !== "number" || !Number.isSafeInteger(mmd) || mmd < 0) throw verificationError("the signed card states no mmd_seconds")
  const loggedAt = new Map(receipts.map((r) => [r.index, r.logged]))
  return checks.map((c) => {
    const logged = loggedAt.get(c.index)
    if (c.status !== "pending" || logged === undefined || now <= logged + mmd * 1000 + OVERDUE_SLACK_MS) return c
    return {
      ...c,
      status: "failed" as const,
      detail: `overdue: logged at ${new Date(logged).toISOString()}, and the log's checkpoint of size ${size} is still below index ${c.index}, ` +
        `though the log promised one covering it within ${mmd} s (its signed card): the log went back or withholds the leaf; the receipt note is the evidence`
    }
  })
}

/** Verifies the log's tiles against its checkpoint and, with a key, every receipt the key holds. */
export const verifyLog = async (
  client: LogClient,
  key: AgentKey | null,
  options: { readonly waitMs?: number; readonly progress?: Progress; readonly now?: () => number } = {}
): Promise<LogVerification> => {
  const progress = options.progress ?? noProgress
  // Receipts of the keys the file rotated from too: their entries stay in the log.
  const receipts = key === null ? [] : [...key.previous.flatMap((p) => p.receipts), ...key.receipts]
  if (key !== null && key.origin !== null && key.origin !== client.vkey.name) {
    throw usageError(`the key file's receipts are from log ${key.origin}, the verifier key is ${client.vkey.name}'s`)
  }
  const last = Math.max(-1, ...receipts.map((r) => r.index))
  const checkpoint = await checkpointCovering(client, last, options.waitMs ?? 10_000)
  const tiles = tileReader(client.service)
  const root = await tiles.root(checkpoint.size)
  if (!equal(root, checkpoint.rootHash)) {
    throw verificationError(`the tiles' root at size ${checkpoint.size} is not the signed checkpoint's root`)
  }
  const checks: Array<ReceiptCheck> = []
  for (const [done, r] of receipts.entries()) {
    progress("checking receipts", done, receipts.length)
    try {
      checks.push(await checkReceipt(client, tiles, checkpoint, r))
    } catch (error) {
      // A tile that cannot be fetched or has the wrong length fails this receipt only.
      if (!(error instanceof ClientError)) throw error
      checks.push({ index: r.index, type: r.type, seq: r.seq, status: "failed", detail: error.message })
    }
  }
  const overdue = await overdueAmong(client, checks, receipts, checkpoint.size, (options.now ?? Date.now)())
  const missing = key === null ? [] : missingReceiptsOf(key)
  return {
    origin: checkpoint.origin,
    size: checkpoint.size,
    rootHash: encodeB64(checkpoint.rootHash),
    tilesFetched: tiles.fetched(),
    bundlesFetched: tiles.bundlesFetched(),
    receipts: overdue,
    ok: overdue.every((c) => c.status === "ok"),
    missingReceipts: missing,
    missingReceiptCount: missing.reduce((count, m) => count + m.seqs.length, 0)
  }
}

/**
 * A checkpoint's root in the JSON the CLI and the tools answer, as the service's
 * /v2/tlog/checkpoint and its stream give it: `root_hash` in B64 (docs/spec/profile.md
 * section 1: checkpoint roots are B64, as the signed note and RFC 9162 have them, where other
 * hashes are U64) and `root_hash_hex`.
 */
export const rootHashJson = (root: Uint8Array | string) => {
  const bytes = typeof root === "string" ? decodeB64Root(root) : root
  return { root_hash: encodeB64(bytes), root_hash_hex: toHex(bytes) }
}

/**
 * The report as `aics verify --json` prints it and the MCP `verify` tool answers it: the
 * members in snake_case, as every other answer of the CLI, the tools and the service; the
 * root as rootHashJson gives it.
 */
export const verificationJson = (report: LogVerification) => ({
  origin: report.origin,
  size: report.size,
  ...rootHashJson(report.rootHash),
  tiles_fetched: report.tilesFetched,
  bundles_fetched: report.bundlesFetched,
  receipts: report.receipts.map((r) => ({ index: r.index, type: r.type, seq: r.seq, status: r.status, detail: r.detail })),
  ok: report.ok,
  missing_receipts: report.missingReceipts.map((m) => ({ kid: m.kid, seqs: m.seqs })),
  missing_receipt_count: report.missingReceiptCount
})

/** The bytes of a root the report holds in B64 (encodeB64 made it: it decodes). */
export const decodeB64Root = (b64: string): Uint8Array => {
  const bytes = decodeB64(b64)
  if (bytes === undefined) throw new TypeError(`not B64: ${b64}`)
  return bytes
}
