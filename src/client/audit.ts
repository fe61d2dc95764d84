// Auditing a name view against the whole log (docs/spec/service.md "Projections": a view is "a
// projection to check against a complete scan of the tiles"):
//   1. the service's view GET /v2/names/{name}, its checkpoint (the service adds one at a
//      published size covering the view) verified with the log key; the latest checkpoint,
//      verified too;
//   2. every entry bundle of the latest checkpoint from the tiles, each entry's leaf hash
//      checked against the level-0 hashes of the tiles, and the tiles' roots checked
//      against both checkpoints: the entries are then exactly the signed log;
//   3. every entry replayed with the domain's replayLeaf from the empty log (domain/write/replay.ts:
//      the checks and the decision the sequencer itself runs before it writes a leaf, so a
//      leaf it could never have written, a second claim of a taken name or an owner's act
//      signed by another key, is a problem, where a fold would take the log's word), into a
//      store of the audit's own (replayStore.ts: the state on disk, not in memory, whatever
//      the log's size), the name's view taken at the view's checkpoint size (else at the
//      latest checkpoint);
//   4. that view as the log implies it, by the function the service answers with (the
//      domain's name-view projection on a slice of the store), compared member by member
//      with the service's view;
//   5. the name's key events in the whole log past the size compared at: a view true at its
//      own (older) checkpoint whose keys a later rotation or key.x25519 replaced is stale,
//      which no check of the view's own leaves can show (nameLookup.ts says so).
// Every difference, later key event and problem is reported; any of them makes the audit fail.
// `aics audit log` is steps 1-3 for the whole log, then the views auditViews.ts plans (the
// owner's, the forum's, the directory, names, keys and grants; past fixed bounds a sample),
// each compared with the view the replayed log implies by the functions the service answers
// with, read from the audit's own store. A view is a function of the whole log at the time it is
// asked, so each is asked after the replay: one whose leaves all lie within the log replayed
// (its reach, auditedView.ts) must be the replayed state's; one past it (an owner's act
// after the checkpoint audited, its own signed checkpoint covering it) is asked again once
// the newer leaves are replayed, and if still past them said not compared: the audit is then
// not ok and must run again. The policies in force, a suspension's end and a grant's being
// in force depend on the time: compared at the time of the view's answer (its Date).
//
// The report is the library's (camelCase members); what `aics audit name --json` prints and
// the MCP `audit_name` tool answers is nameAuditJson's projection of it, in snake_case as
// every other answer of the CLI, the tools and the service.

import { Effect, Either } from "effect"
import { nameViewFrom } from "../app/identityViews.js"
import { equal, toHex } from "../domain/bytes.js"
import { encodeB64 } from "../domain/encoding.js"
import type { Checkpoint } from "../domain/note/checkpoint.js"
import { decodeEntryBundle } from "../domain/tlog/entryBundle.js"
import { storedHashIndex } from "../domain/tlog/storedHash.js"
import { TILE_WIDTH, tilePath } from "../domain/tlog/tile.js"
import { fetchCheckpoint } from "./checkpoint.js"
import { bulkCrypto, hasher } from "./crypto.js"
import { ClientError, protocolError, verificationError } from "./errors.js"
import { getBytes, getJson, send, withPatientReads } from "./http.js"
import { diffJson, type JsonDifference } from "./jsonDiff.js"
import { fetchNameView, viewCheckpoint } from "./nameLookup.js"
import { viewCheckpointSize } from "./governance.js"
import { answeredAt } from "./serviceClock.js"
import { foldedMembers, type AuditedView } from "./auditedView.js"
import { SAMPLE_SEED_BYTES, type Sampled } from "./auditSample.js"
import { auditedViews } from "./auditViews.js"
import { noProgress, type Progress } from "./progress.js"
import { openReplayStore, type ReplayStore } from "./replayStore.js"
import { consistencyFromTiles, tileReader, type TileReader } from "./tiles.js"
import { rootHashJson } from "./verify.js"
import type { LogClient } from "./write.js"

/**
 * Members the name view gained after its first version (2026-12-06: whether the recovery key
 * still stands). A service of an earlier version does not give them: their absence is an
 * older service, not a view that hides something, so they are compared only when given.
 * Every other member the log implies must be there.
 */
const LATER_MEMBERS: ReadonlySet<string> = new Set(["recovery_stands", "recovery_bound_index"])

/** The name view the log replayed so far implies, or undefined when it holds no such name. */
const impliedView = (store: ReplayStore, name: string): Promise<Record<string, unknown> | undefined> =>
  store.run(Effect.map(nameViewFrom(store.views.reader.sliceFor, name), (view) => Either.getOrUndefined(view) as Record<string, unknown> | undefined))

/** A member of the view that was not compared, and why. */
export interface UncheckedMember {
  readonly member: string
  /**
   * `service_only`: the service gives a member this client does not fold (a service of a
   * later version): what it says there is not checked. `log_only`: a member of a later
   * version the service does not give (a service of an earlier version).
   */
  readonly side: "service_only" | "log_only"
}

/**
 * The view's members as compared: every member both sides have, and every member the log
 * implies but for those of LATER_MEMBERS the service does not give; the rest are unchecked.
 */
const comparable = (implied: Record<string, unknown>, server: Record<string, unknown>) => {
  const unchecked: Array<UncheckedMember> = []
  const log: Record<string, unknown> = {}
  for (const [member, value] of Object.entries(implied)) {
    if (!(member in server) && LATER_MEMBERS.has(member)) unchecked.push({ member, side: "log_only" })
    else log[member] = value
  }
  const service: Record<string, unknown> = {}
  for (const [member, value] of Object.entries(server)) {
    if (member in implied) service[member] = value
    else unchecked.push({ member, side: "service_only" })
  }
  return { log, service, unchecked }
}

export interface NameAudit {
  readonly name: string
  /** The log size the comparison is at (the view's checkpoint's, else the latest checkpoint's). */
  readonly size: number
  /** The latest checkpoint: its size and B64 root, whose every entry was fetched and folded. */
  readonly checkpointSize: number
  readonly rootHash: string
  readonly entriesFolded: number
  readonly tilesFetched: number
  readonly bundlesFetched: number
  /** Leaves the sequencer could not have written, and things that stopped the audit from being complete (an unfoldable leaf, a leaf hash off the tiles...). */
  readonly problems: ReadonlyArray<string>
  /** Leaves whose every check but one passed: that one reads a body the service no longer serves. */
  readonly uncheckedLeaves: ReadonlyArray<string>
  readonly differences: ReadonlyArray<JsonDifference>
  /** The name's key events in the log past `size` (the view is stale: its keys may not be the current ones), in log order. */
  readonly laterKeyEvents: ReadonlyArray<{ readonly index: number; readonly type: string }>
  /** Members not compared: given by one side only, as services of other versions do (comparable). */
  readonly unchecked: ReadonlyArray<UncheckedMember>
  readonly ok: boolean
}

/** The entries of bundle `index` of the log of that size from `from` on (the first bundle of a replay may start inside it). */
const fetchBundleEntries = async (client: LogClient, index: number, from: number, size: number): Promise<ReadonlyArray<Uint8Array>> => {
  const width = Math.min(TILE_WIDTH, size - index * TILE_WIDTH)
  const path = `/tiles/${tilePath({ kind: "entries", index, width })}`
  const decoded = decodeEntryBundle(await getBytes(client.service, path))
  if (decoded === undefined || decoded.length !== width) {
    throw verificationError(`${path} is not a bundle of ${width} entries`)
  }
  return from > index * TILE_WIDTH ? decoded.slice(from - index * TILE_WIDTH) : decoded
}

const checkedRoot = async (tiles: ReturnType<typeof tileReader>, checkpoint: Checkpoint, what: string): Promise<void> => {
  if (!equal(await tiles.root(checkpoint.size), checkpoint.rootHash)) {
    throw verificationError(`the tiles' root at size ${checkpoint.size} is not the root of ${what}`)
  }
}

export interface LogFold {
  /** The latest checkpoint, whose every entry was fetched, checked and replayed. */
  readonly checkpoint: Checkpoint
  /** The store the entries were replayed into: the state after them. */
  readonly store: ReplayStore
  readonly folded: number
  readonly bundles: number
  readonly tilesFetched: number
  /**
   * Leaves off the tiles, leaves the sequencer could not have written (the first
   * LISTED_PROBLEMS), leaves no rule folds: the audit fails when any (foldProblems).
   */
  readonly problems: ReadonlyArray<string>
  /** Leaves a check of which reads a body the service no longer serves (replayed but for that check). */
  readonly unchecked: ReadonlyArray<string>
  /** How many leaves the sequencer could not have written. */
  readonly refused: number
}

/** Problems listed one by one; past this many, a count (a forged log may break a rule at every leaf). */
const LISTED_PROBLEMS = 100

/** A body as the service serves it by digest, or null when it does not (hidden, expired, never stored). The replay checks its hash. */
const servedBody = async (client: LogClient, digest: string): Promise<Uint8Array | null> => {
  const response = await send(client.service, `/v2/bodies/${digest}`)
  if (response.status !== 200) {
    await response.body?.cancel()
    return null
  }
  return new Uint8Array(await response.arrayBuffer())
}

/** Called once the replay has replayed exactly `size` leaves (never when it stops short of them). */
export interface AtSize {
  readonly size: number
  readonly then: () => Promise<void>
}

/**
 * Fetches every entry bundle of the checkpoint's log from the tiles, checks the tiles' root
 * against the checkpoint (and against `also`, an earlier signed checkpoint) and every entry
 * against the level-0 hashes, and replays all entries into `store` (new, empty) with the
 * domain's replayLeaf (the bodies a rule reads fetched from the service), folding each as
 * the log has it; `at` is called when the replay is at its size.
 */
export const foldLogFromTiles = async (
  client: LogClient,
  checkpoint: Checkpoint,
  store: ReplayStore,
  options: { readonly at?: AtSize; readonly also?: Checkpoint; readonly progress?: Progress } = {}
): Promise<LogFold> => {
  const tiles = tileReader(client.service)
  if (options.also !== undefined) await checkedRoot(tiles, options.also, "the name view's checkpoint")
  const start: LogFold = {
    checkpoint: { ...checkpoint, size: 0 },
    store,
    folded: 0,
    bundles: 0,
    tilesFetched: 0,
    problems: [],
    unchecked: [],
    refused: 0
  }
  return replayTail(client, tiles, start, checkpoint, options.progress ?? noProgress, options.at)
}

/**
 * The fold of a complete replay carried on to a newer checkpoint: the newer tiles must show
 * the one replayed as a prefix (consistencyFromTiles), and only the entries past it are
 * fetched and replayed.
 */
export const extendFold = async (client: LogClient, fold: LogFold, newer: Checkpoint, progress: Progress = noProgress): Promise<LogFold> => {
  const tiles = tileReader(client.service)
  const consistency = await consistencyFromTiles(tiles, fold.checkpoint, newer)
  if (consistency._tag !== "Extends") {
    throw verificationError(`the checkpoint at size ${newer.size} does not extend the one replayed (size ${fold.checkpoint.size}): ${consistency._tag === "Forks" ? "the log signed two histories" : "its tiles do not hash to its root"}`)
  }
  return replayTail(client, tiles, fold, newer, progress)
}

/**
 * Replays the entries of `checkpoint`'s log past what `fold` replayed (which stopped nowhere
 * short), a bundle at a time: the entries held are one bundle's whatever the log's size, the
 * state is the store's, and the replay gives the event loop back between bundles (a loop
 * held for the whole replay, a minute at 100,000 entries, outlived the service's
 * keep-alive, and the first request after it went out on a connection the service had
 * closed). A bundle is replayed in two runs when `at` falls inside it.
 */
const replayTail = async (client: LogClient, tiles: TileReader, fold: LogFold, checkpoint: Checkpoint, progress: Progress, at?: AtSize): Promise<LogFold> => {
  await checkedRoot(tiles, checkpoint, "the latest checkpoint")
  const { store } = fold
  const from = fold.folded
  const problems = [...fold.problems]
  // A signature verified a leaf: the runtime's fastest Ed25519 (bulkCrypto).
  const primitives = await bulkCrypto()
  const context = { origin: checkpoint.origin, sha256: primitives.sha256, ed25519: primitives.ed25519 }
  const bodyOf = (digest: string) => servedBody(client, digest)
  let { folded, refused } = fold
  const unchecked = [...fold.unchecked]
  if (at !== undefined && folded === at.size) await at.then()
  const first = Math.floor(from / TILE_WIDTH)
  const last = Math.ceil(checkpoint.size / TILE_WIDTH)
  let bundles = 0
  replay: for (let index = first; index < last; index++) {
    progress("fetching entry bundles", index - first, last - first)
    const start = Math.max(from, index * TILE_WIDTH)
    const entries = await fetchBundleEntries(client, index, start, checkpoint.size)
    bundles++
    const leafHashes = await tiles.storedHashes(checkpoint.size, entries.map((_, i) => storedHashIndex(0, start + i)))
    entries.forEach((bytes, i) => {
      if (!equal(hasher.leafHash(bytes), leafHashes[i]!)) problems.push(`entry ${start + i} of the bundles is not the leaf the tiles hold at ${start + i}`)
    })
    const cut = at !== undefined && at.size > start && at.size < start + entries.length ? at.size - start : entries.length
    for (const run of cut === entries.length ? [entries] : [entries.slice(0, cut), entries.slice(cut)]) {
      progress("replaying entries", folded - from, checkpoint.size - from)
      for (const outcome of await store.replay(run, context, bodyOf)) {
        if (outcome.kind === "unfoldable" || outcome.kind === "needs_body") {
          problems.push(outcome.kind === "unfoldable" ? outcome.problem : `entry ${folded} cannot be replayed`)
          break replay
        }
        if (outcome.kind === "refused" && refused++ < LISTED_PROBLEMS) problems.push(outcome.problem)
        if (outcome.kind === "unchecked") unchecked.push(outcome.note)
        folded++
      }
      if (at !== undefined && folded === at.size) await at.then()
    }
  }
  return { checkpoint, store, folded, bundles: fold.bundles + bundles, tilesFetched: fold.tilesFetched + tiles.fetched(), problems, unchecked, refused }
}

/** The client, its reads waiting out the service's requests budget: an audit asks thousands (http.ts send). */
const patient = (client: LogClient): LogClient => ({ ...client, service: withPatientReads(client.service) })

/** The fold's problems as reported: the refused leaves past LISTED_PROBLEMS as a count. */
const foldProblems = (fold: LogFold): ReadonlyArray<string> =>
  fold.refused > LISTED_PROBLEMS ? [...fold.problems, `and ${fold.refused - LISTED_PROBLEMS} more entries the sequencer could not have written`] : fold.problems

export const auditName = async (impatient: LogClient, name: string, options: { readonly progress?: Progress } = {}): Promise<NameAudit> => {
  const client = patient(impatient)
  const { json, view } = await fetchNameView(client, name)
  const atView = viewCheckpoint(client, view)
  let latest = await fetchCheckpoint(client.service, client.vkey, client.witnesses)
  // The view may be at a checkpoint newer than the one just read: read it again, once.
  const wanted = Math.max(atView?.size ?? 0, view.size ?? 0)
  if (wanted > latest.size) latest = await fetchCheckpoint(client.service, client.vkey, client.witnesses)
  if (wanted > latest.size) throw protocolError(`the name view is at size ${wanted}, beyond the latest checkpoint's ${latest.size}`)
  const size = atView?.size ?? latest.size
  const store = await openReplayStore()
  try {
    // The view the log implies at `size`, taken when the replay passes it; undefined when it stops short.
    let atSize: { readonly implied: Record<string, unknown> | undefined } | undefined
    const at = { size, then: async () => void (atSize = { implied: await impliedView(store, view.name) }) }
    const fold = await foldLogFromTiles(client, latest, store, { at, ...(atView === undefined ? {} : { also: atView }), ...(options.progress === undefined ? {} : { progress: options.progress }) })
    return await nameAuditOf(fold, json, view, size, atSize)
  } finally {
    await store.close()
  }
}

/** The name audit of a replay: the view taken at `size` (undefined when the replay stopped short of it) against the service's. */
const nameAuditOf = async (
  fold: LogFold,
  json: unknown,
  view: { readonly name: string; readonly size?: number | undefined },
  size: number,
  atSize: { readonly implied: Record<string, unknown> | undefined } | undefined
): Promise<NameAudit> => {
  const latest = fold.checkpoint
  const problems = [...foldProblems(fold)]
  if (view.size !== undefined && view.size > size) problems.push(`the view covers size ${view.size}, beyond the checkpoint ${size} it is compared at`)

  let differences: ReadonlyArray<JsonDifference> = []
  let unchecked: ReadonlyArray<UncheckedMember> = []
  const events = (await impliedView(fold.store, view.name))?.["events"]
  const laterKeyEvents = (Array.isArray(events) ? (events as ReadonlyArray<{ index: number; type: string }>) : [])
    .filter((e) => e.index >= size)
    .map((e) => ({ index: e.index, type: e.type }))
  if (atSize === undefined) {
    problems.push(`the log could not be folded up to size ${size}`)
  } else {
    const implied = atSize.implied
    if (implied === undefined) problems.push(`the log up to size ${size} holds no name ${view.name}`)
    else {
      const server = foldedMembers(json as Record<string, unknown>)
      const compared = comparable(implied, server)
      differences = diffJson(compared.log, compared.service)
      unchecked = compared.unchecked
    }
  }
  return {
    name: view.name,
    size,
    checkpointSize: latest.size,
    rootHash: encodeB64(latest.rootHash),
    entriesFolded: fold.folded,
    tilesFetched: fold.tilesFetched,
    bundlesFetched: fold.bundles,
    problems,
    uncheckedLeaves: fold.unchecked,
    differences,
    laterKeyEvents,
    unchecked,
    ok: problems.length === 0 && differences.length === 0 && laterKeyEvents.length === 0
  }
}

/** One of the views compared, as the service answered it, against the one the replayed log implies. */
export interface ViewAudit {
  /** The view's path and query (/v2/governance/..., /v2/agora/...). */
  readonly view: string
  /** `agrees`, `differs` (differences listed), or `ahead`: the view names leaves past the log replayed, not compared. */
  readonly outcome: "agrees" | "differs" | "ahead"
  readonly differences: ReadonlyArray<JsonDifference>
}

/** The whole log replayed: `aics audit log`. */
export interface LogAudit {
  readonly checkpointSize: number
  readonly rootHash: string
  readonly entriesReplayed: number
  readonly tilesFetched: number
  readonly bundlesFetched: number
  readonly problems: ReadonlyArray<string>
  readonly uncheckedLeaves: ReadonlyArray<string>
  /** The views compared with the replayed log (auditViews.ts): the owner's, the forum's, the identity views. */
  readonly views: ReadonlyArray<ViewAudit>
  /**
   * How many of the log's names, keys and channels the views compared: all of them within
   * the bounds of auditIdentityViews.ts and auditViews.ts, a sample past them.
   */
  readonly sampled: { readonly names: Sampled; readonly keys: Sampled; readonly channels: Sampled }
  /** The seed the sample was drawn from (hex): `--sample-seed` draws the same sample again. */
  readonly sampleSeed: string
  /** How many leaves the sequencer could not have written (problems lists the first LISTED_PROBLEMS). */
  readonly leavesRefused: number
  readonly ok: boolean
}

/** The served view, or the 404 a view the log implies was answered with instead (the service says there is none). */
const askView = async (client: LogClient, path: string): Promise<{ json: Record<string, unknown>; at: number } | { missing: string }> => {
  let answer: Awaited<ReturnType<typeof getJson>>
  try {
    answer = await getJson(client.service, path)
  } catch (error) {
    if (error instanceof ClientError && error.status === 404) return { missing: error.message }
    throw error
  }
  const { json, headers } = answer
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw protocolError(`GET ${path}: the answer is not a JSON object`)
  return { json: json as Record<string, unknown>, at: answeredAt(headers) ?? Date.now() }
}

/**
 * Compares the view with the one `fold` implies at the time of its answer (its Date): that
 * time and the rest of its second (a Date has whole seconds). A view naming leaves at or
 * past the size replayed is not compared.
 */
const auditView = async (client: LogClient, view: AuditedView, fold: LogFold): Promise<ViewAudit> => {
  const answer = await askView(client, view.path)
  const impliedAt = (at: number) => fold.store.run(view.implied(fold.store.views, at))
  if ("missing" in answer) {
    const implied = await impliedAt(Date.now())
    return implied === undefined
      ? { view: view.path, outcome: "agrees", differences: [] }
      : { view: view.path, outcome: "differs", differences: [{ path: "", log: implied, server: answer.missing }] }
  }
  const { json, at } = answer
  const served = (view.folded ?? foldedMembers)(json)
  const viewSize = view.reach?.(json) ?? (typeof served["size"] === "number" ? served["size"] : 0)
  // The view's own checkpoint, signed by the log key, must cover what it says: a view that
  // claims to be ahead must show a signed checkpoint that is. One without a checkpoint
  // (unsigned) that claims it is only asked again, and fails the audit if it stays ahead.
  if (view.unsigned !== true) viewCheckpointSize(client, view.path, json, viewSize)
  if (viewSize > fold.checkpoint.size) return { view: view.path, outcome: "ahead", differences: [] }
  const differences = diffJson(await impliedAt(at), served)
  if (differences.length === 0 || diffJson(await impliedAt(at + 999), served).length === 0) return { view: view.path, outcome: "agrees", differences: [] }
  return { view: view.path, outcome: "differs", differences }
}

/** Whether a view is asked again after newer leaves are replayed: it is past the log replayed, or differs in what a newer leaf may change unseen. */
const askAgain = (view: AuditedView, audit: ViewAudit): boolean =>
  audit.outcome === "ahead" || (audit.outcome === "differs" && view.reachPartial === true)

/** How many times the audit replays the log's newer leaves for views past what it replayed (a busy log moves on). */
const CATCH_UP_ROUNDS = 3

/**
 * How long the audit waits for a newer checkpoint when a view differs only in what a leaf
 * logged since may change unseen (a directory page): such a leaf is in a checkpoint within
 * the service's publishing interval (about a second), and until it is, the difference can be
 * the audit's lag as well as the service's lie.
 */
const NEWER_CHECKPOINT_WAIT_MS = 5_000
const NEWER_CHECKPOINT_POLL_MS = 500

/** A checkpoint larger than `size`, or undefined: at once, or after waiting for one when `wait`. */
const newerCheckpoint = async (client: LogClient, size: number, wait: boolean): Promise<Checkpoint | undefined> => {
  const deadline = Date.now() + (wait ? NEWER_CHECKPOINT_WAIT_MS : 0)
  for (;;) {
    const newer = await fetchCheckpoint(client.service, client.vkey, client.witnesses)
    if (newer.size > size) return newer
    if (Date.now() >= deadline) return undefined
    await new Promise((resolve) => setTimeout(resolve, NEWER_CHECKPOINT_POLL_MS))
  }
}

/**
 * Replays every leaf of the latest checkpoint's log as the sequencer had to decide it
 * (steps 1-3 above), then compares the views with it. A view past the log replayed (a vote,
 * a tombstone, an owner's act since) is asked again once the leaves of a newer checkpoint
 * are replayed too, a few times: a log that keeps moving leaves such views not compared.
 */
export const auditLog = async (
  impatient: LogClient,
  options: { readonly progress?: Progress; readonly sampleSeed?: Uint8Array } = {}
): Promise<LogAudit> => {
  const client = patient(impatient)
  const progress = options.progress ?? noProgress
  // The sample is this audit's own draw: a service that could foresee it (from the
  // checkpoint, say) could answer the sampled views truly and lie in the others.
  const sampleSeed = options.sampleSeed ?? globalThis.crypto.getRandomValues(new Uint8Array(SAMPLE_SEED_BYTES))
  const latest = await fetchCheckpoint(client.service, client.vkey, client.witnesses)
  const store = await openReplayStore()
  try {
    return await auditFold(client, await foldLogFromTiles(client, latest, store, { progress }), sampleSeed, progress)
  } finally {
    await store.close()
  }
}

/** The views compared with a complete replay, the newer leaves replayed for those past it (auditLog). */
const auditFold = async (client: LogClient, replayed: LogFold, sampleSeed: Uint8Array, progress: Progress): Promise<LogAudit> => {
  let fold = replayed
  const complete = () => fold.folded === fold.checkpoint.size
  const audited = new Map<string, ViewAudit>()
  const planned = complete() ? await fold.store.run(auditedViews(fold.store.views, fold.folded, sampleSeed)) : undefined
  let pending = planned?.views ?? []
  for (let round = 0; pending.length > 0; round++) {
    for (const [i, view] of pending.entries()) {
      progress("comparing views", i, pending.length)
      audited.set(view.path, await auditView(client, view, fold))
    }
    pending = pending.filter((view) => askAgain(view, audited.get(view.path)!))
    if (pending.length === 0 || round === CATCH_UP_ROUNDS) break
    const newer = await newerCheckpoint(client, fold.checkpoint.size, pending.some((view) => audited.get(view.path)!.outcome === "differs"))
    if (newer === undefined) break
    fold = await extendFold(client, fold, newer, progress)
    if (!complete()) break
  }
  const views = [...audited.values()]
  const none = { compared: 0, total: 0 }
  return {
    checkpointSize: fold.checkpoint.size,
    rootHash: encodeB64(fold.checkpoint.rootHash),
    entriesReplayed: fold.folded,
    tilesFetched: fold.tilesFetched,
    bundlesFetched: fold.bundles,
    problems: foldProblems(fold),
    uncheckedLeaves: fold.unchecked,
    views,
    sampled: planned?.sampled ?? { names: none, keys: none, channels: none },
    sampleSeed: toHex(sampleSeed),
    leavesRefused: fold.refused,
    ok: fold.problems.length === 0 && fold.folded === fold.checkpoint.size && views.every((v) => v.outcome === "agrees")
  }
}

const sampledJson = (sampled: Sampled) => ({ compared: sampled.compared, total: sampled.total })

/** `aics audit log --json`, in snake_case as nameAuditJson. */
export const logAuditJson = (audit: LogAudit) => ({
  checkpoint_size: audit.checkpointSize,
  ...rootHashJson(audit.rootHash),
  entries_replayed: audit.entriesReplayed,
  leaves_refused: audit.leavesRefused,
  tiles_fetched: audit.tilesFetched,
  bundles_fetched: audit.bundlesFetched,
  problems: audit.problems,
  unchecked_leaves: audit.uncheckedLeaves,
  views: audit.views.map((v) => ({ view: v.view, outcome: v.outcome, differences: v.differences.map((d) => ({ path: d.path, log: d.log, server: d.server })) })),
  sampled: { names: sampledJson(audit.sampled.names), keys: sampledJson(audit.sampled.keys), channels: sampledJson(audit.sampled.channels) },
  sample_seed: audit.sampleSeed,
  ok: audit.ok
})

/**
 * The audit as `aics audit name --json` prints it and the MCP `audit_name` tool answers it:
 * the members in snake_case (as verificationJson, verify.ts), the latest checkpoint's root
 * as rootHashJson (verify.ts) gives it.
 */
export const nameAuditJson = (audit: NameAudit) => ({
  name: audit.name,
  size: audit.size,
  checkpoint_size: audit.checkpointSize,
  ...rootHashJson(audit.rootHash),
  entries_folded: audit.entriesFolded,
  tiles_fetched: audit.tilesFetched,
  bundles_fetched: audit.bundlesFetched,
  problems: audit.problems,
  unchecked_leaves: audit.uncheckedLeaves,
  differences: audit.differences.map((d) => ({ path: d.path, log: d.log, server: d.server })),
  later_key_events: audit.laterKeyEvents.map((e) => ({ index: e.index, type: e.type })),
  unchecked: audit.unchecked.map((u) => ({ member: u.member, side: u.side })),
  ok: audit.ok
})
