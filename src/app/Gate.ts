// The text gate as a use case (docs/spec/service.md "Text gate"; docs/protocol.md section 17): the
// sessions, and the effects of the pure session machine (src/domain/gate/session.ts)
// performed against the service: reads of the log's views (from the projection store:
// StateReader, Projection), writes through exactly the path
// of POST /v2/entries (EntryWrites.writeSelfSigned), and the secret-bound names' claims,
// logins, posts and upgrades to a key (policy-signed leaves with `as`, PolicyWrites;
// verifiers in GateSecrets).
// Every transport (POST and GET /t, the TCP ports 7701 and 7700 when open) goes through
// `exchange`, which also counts the exchange's events for the owner statistics
// (RequestStats.countGate; domain/stats/gateEvents.ts): words of a closed list only.
//
// Sessions live in this process's memory, with an idle expiry and a cap (the least
// recently used goes first). Several nodes behind one address need sticky sessions for
// POST /t continuity; TCP sessions are their connection.

import { Context, Effect, Either, Layer, Metric, Option, Schedule } from "effect"
import { fromUtf8, utf8 } from "../domain/bytes.js"
import { decodeU64, encodeB64, encodeU64 } from "../domain/encoding.js"
import { dmOpenLine } from "../domain/gate/agentVerbs.js"
import { MAX_LINE_BYTES } from "../domain/gate/command.js"
import { leafTextBody, postItemsReads } from "../domain/gate/gateReads.js"
import {
  errLine,
  exposedSecretSession,
  type GateEffect,
  type GateSession,
  identityKey,
  lastAcceptedLines,
  newSession,
  type OwnRead,
  type ReadCommand,
  sessionBytes,
  step,
  type Transport,
  transportClass,
  upgradePrepared
} from "../domain/gate/session.js"
import { payloadSignatureCheck } from "../domain/identity/possession.js"
import { type GateEvent, gateLineEvent, gateTransportOf } from "../domain/stats/gateEvents.js"
import { governanceSaid } from "../domain/governance/summary.js"
import { currentNameOf, nameRecordOf } from "../domain/identity/bindings.js"
import { type BodyStatusView, bodyStatus } from "../domain/bodyStatus.js"
import { pollDetail } from "../domain/views/agoraPolls.js"
import { postItem } from "../domain/views/agoraPosts.js"
import { BodyStore } from "../ports/BodyStore.js"
import { Clock } from "../ports/Clock.js"
import { Crypto } from "../ports/Crypto.js"
import { Entropy } from "../ports/Entropy.js"
import { GateSecrets } from "../ports/GateSecrets.js"
import { LogStore } from "../ports/LogStore.js"
import { SecretHasher } from "../ports/SecretHasher.js"
import { admissionOrOpen, type Verdict } from "./Admission.js"
import { EntryWrites, type WriteAnswer } from "./EntryWrites.js"
import { type PolicyWrite, PolicyWrites } from "./PolicyWrites.js"
import { RequestStats } from "./RequestStats.js"
import { reissuedReceipts } from "./ReissuedReceipts.js"
import { Publisher } from "./Publisher.js"
import { gateSessions, sampledOnScrape } from "./Metrics.js"
import { freezeFrom, policyFrom, subjectInvalidDetail, suspensionFrom } from "./governanceViews.js"
import { keyViewFrom } from "./identityViews.js"
import { LogReader } from "./LogReader.js"
import { LogStatus } from "./LogStatus.js"
import { gateStepSlice } from "./gateSlice.js"
import { capsuleListFrom, capsuleSlotFrom, inboxViewFrom, messageAt } from "./messagingViews.js"
import { Projection } from "./Projection.js"
import { StateReader } from "./StateReader.js"
import { gatePortsOf, ServiceConfig } from "./ServiceConfig.js"
import { WriteAnswers } from "./WriteAnswers.js"

/** A session unused this long is forgotten. */
export const SESSION_IDLE_MS = 15 * 60 * 1000
/** Sessions kept at most; past it the least recently used is forgotten. */
export const MAX_SESSIONS = 10_000
/** What the HTTP sessions may hold in memory together (prepared envelopes and bodies); past it the least recently used go. */
export const MAX_SESSION_BYTES = 64 * 1024 * 1024
/** HTTP sessions that hold nothing (a GET reader's `s`) kept at most, apart from the others: about 256 bytes each. */
export const MAX_READ_SESSIONS = 4096
/** scrypt computations at once, and how many may wait for one before `err busy`. */
export const HASH_PERMITS = 2
export const HASH_QUEUE_MAX = 16
/** Posts one secret-bound name may write per minute through the gate (its secret may be shared or leaked). */
export const SECRET_POSTS_PER_MINUTE = 10
/** Lines one exchange (one HTTP request) runs at most. */
export const MAX_LINES_PER_EXCHANGE = 64
/** Refusals of a prepared envelope that a fresh one (the same command again) avoids: its chain moved on, or its time ran out. */
const STALE_PREPARED: Readonly<Record<string, string>> = {
  seq_mismatch: "; send the command again to prepare it at the current seq, then sign the new text",
  prev_mismatch: "; send the command again to prepare it at the current seq, then sign the new text",
  signature_expired: "; send the command again to prepare a fresh one, then sign the new text"
}
/** Posts and names the gate's list reads print. */
const POSTS_SHOWN = 20
const DIRECTORY_SHOWN = 50
const INBOX_SHOWN = 100

export interface Exchange {
  /**
   * A budget of the client's address was spent (gate_lines before any line ran, or
   * gate_sessions for a session that would be kept): an HTTP transport answers 429
   * (docs/protocol.md "Fair admission"), a TCP connection prints the err line and stops
   * reading for the retry-after time (gateServer.ts).
   */
  readonly limited?: Extract<Verdict, { admitted: false }> | undefined
  /** The session the lines ran in (new when none or an unknown one was given). */
  readonly id: string
  readonly lines: ReadonlyArray<string>
  /** The agent said quit: a connection should close. */
  readonly close: boolean
}

export class Gate extends Context.Tag("aics/Gate")<Gate, {
  /**
   * Runs the lines, in order, in the session `id`. Without an id, or with one this process
   * does not know (expired, or another node's), a new session starts and the reply begins
   * with `session <id>`.
   */
  readonly exchange: (id: string | undefined, lines: ReadonlyArray<string>, transport: Transport, client?: string) => Effect.Effect<Exchange>
  /** Forgets a TCP session (a closed connection). */
  readonly end: (id: string) => Effect.Effect<void>
}>() {
  static readonly layer = Layer.scoped(Gate, Effect.gen(function*() {
    const config = yield* ServiceConfig
    const clock = yield* Clock
    const crypto = yield* Crypto
    const entropy = yield* Entropy
    const reader = yield* StateReader
    const projection = yield* Projection
    const logReader = yield* LogReader
    const logStatus = yield* LogStatus
    const publisher = yield* Publisher
    const logStore = yield* LogStore
    const bodies = yield* BodyStore
    const writes = yield* EntryWrites
    const policyWrites = yield* PolicyWrites
    const answers = yield* WriteAnswers
    const receiptOf = yield* reissuedReceipts
    const secrets = yield* GateSecrets
    const hasher = yield* SecretHasher
    const stats = yield* RequestStats
    const admission = yield* admissionOrOpen
    const verify = payloadSignatureCheck(crypto.ed25519)
    const gatePorts = gatePortsOf(config)
    const fresh = Effect.map(entropy.randomBytes(16), encodeU64)
    /** A verifier no secret matches, for a login whose name holds none (equal cost either way). */
    const decoy = yield* hasher.hash(yield* fresh)

    // Map order is recency order: a touched session is moved to the end. HTTP sessions share
    // one cap; a TCP session is its connection's (bounded by the connection cap) and no HTTP
    // request can name it.
    type Kept = { session: GateSession; touched: number; bytes: number }
    const httpSessions = new Map<string, Kept>()
    /** HTTP sessions that hold nothing yet (reads only), apart: see keep. */
    const readSessions = new Map<string, Kept>()
    const tcpSessions = new Map<string, Kept>()
    // The HTTP sessions that hold no proven identity, in the same recency order: past a cap
    // they go first, so anonymous sessions (cheap to open) never evict one that proved a key
    // or logged in (issue 13 item 12).
    const anonymousHttp = new Set<string>()
    let httpBytes = 0
    const mapFor = (transport: Transport) => transport.method === "tcp" ? tcpSessions : httpSessions
    const lock = yield* Effect.makeSemaphore(1)

    const forget = (sessions: Map<string, Kept>, id: string) => {
      const kept = sessions.get(id)
      if (kept === undefined) return
      sessions.delete(id)
      if (sessions === httpSessions) {
        httpBytes -= kept.bytes
        anonymousHttp.delete(id)
      }
    }

    const take = (id: string | undefined, transport: Transport, now: number) =>
      Effect.gen(function*() {
        const sessions = mapFor(transport)
        for (const kept of transport.method === "tcp" ? [sessions] : [sessions, readSessions]) {
          for (const [key, entry] of kept) {
            if (now - entry.touched < SESSION_IDLE_MS) break
            forget(kept, key)
          }
        }
        const found = id === undefined ? undefined : sessions.get(id) ?? (transport.method === "tcp" ? undefined : readSessions.get(id))
        if (found !== undefined && exposedSecretSession(found.session, transport)) {
          // The id travelled where anyone could read it: it must not speak for the name again.
          forget(sessions, found.session.id)
          return { session: newSession(yield* fresh, transportClass(transport)), opened: true, exposed: true }
        }
        if (found !== undefined) return { session: found.session, opened: false, exposed: false }
        return { session: newSession(yield* fresh, transportClass(transport)), opened: true, exposed: false }
      })

    const keep = (session: GateSession, previousId: string, transport: Transport, now: number) =>
      Effect.sync(() => {
        const sessions = mapFor(transport)
        forget(sessions, previousId)
        forget(sessions, session.id)
        forget(readSessions, previousId)
        forget(readSessions, session.id)
        const bytes = sessionBytes(session)
        if (sessions === httpSessions && empty(session)) {
          // A session that holds nothing is kept apart, under its own cap: cheap GETs keep their
          // `s` (as help says) without ever crowding out a session that holds an identity.
          readSessions.set(session.id, { session, touched: now, bytes })
          while (readSessions.size > MAX_READ_SESSIONS) forget(readSessions, readSessions.keys().next().value!)
          return
        }
        sessions.set(session.id, { session, touched: now, bytes })
        if (sessions === httpSessions) {
          httpBytes += bytes
          if (session.identity === null) anonymousHttp.add(session.id)
          while (sessions.size > MAX_SESSIONS || httpBytes > MAX_SESSION_BYTES) {
            forget(sessions, anonymousHttp.size > 0 ? anonymousHttp.values().next().value! : sessions.keys().next().value!)
          }
        }
      })

    /** Whether a session holds nothing a later request could need (no identity, challenge or prepared envelope). */
    const empty = (session: GateSession) => session.identity === null && session.challenge === null && session.pending === null

    // scrypt is slow on purpose: a few at once, a short queue, and `err busy` past it.
    const hashPermits = yield* Effect.makeSemaphore(HASH_PERMITS)
    let hashWaiting = 0
    const BUSY = errLine("busy", "too many secrets are being checked; try again in a moment")
    const throttled = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A | "busy", E> =>
      Effect.suspend((): Effect.Effect<A | "busy", E> => {
        if (hashWaiting >= HASH_QUEUE_MAX) return Effect.succeed("busy" as const)
        hashWaiting++
        return hashPermits.withPermits(1)(effect).pipe(Effect.ensuring(Effect.sync(() => void hashWaiting--)))
      })

    /** A name's record, if claimed. */
    const nameRecord = (name: string) => Effect.map(reader.slice([{ area: "names", key: name }]), (slice) => nameRecordOf(slice, name))

    /** Whether the secret matches the name's verifier; scrypt runs even for a name without one. */
    const secretMatches = (name: string, secret: string) =>
      Effect.gen(function*() {
        const record = yield* nameRecord(name)
        const verifier = record?.tier === "secret" ? yield* secrets.get(name, record.claimIndex) : undefined
        // Hash even when there is nothing to compare with, so a wrong name costs what a wrong secret does.
        const matches = yield* throttled(hasher.verify(secret, verifier ?? decoy))
        return matches === "busy" ? "busy" as const : verifier !== undefined && matches
      })

    /** A storage failure: its details go to the log, the client gets a generic line. */
    const storageLine = (error: { readonly message: string }) =>
      Effect.as(Effect.logWarning("text gate: storage failed").pipe(Effect.annotateLogs({ error: error.message })), errLine("storage_unavailable", "the service could not reach its storage; try again later"))

    const json = (value: unknown) => JSON.stringify(value)

    /**
     * The receipt and the ok/err line of a write. A refusal of an envelope the gate prepared
     * whose chain moved on (or whose time ran out) says how to get a fresh one: the agent
     * never chose seq, prev or expires, so "send the command again" is the whole remedy.
     */
    const writeLines = (answer: WriteAnswer, prepared = false): ReadonlyArray<string> => {
      const entry = answer.body.entry
      const code = String(entry["refused"])
      const again = prepared && Object.hasOwn(STALE_PREPARED, code) ? STALE_PREPARED[code]! : ""
      return [
        `receipt ${json(answer.body)}`,
        answer.status < 300
          ? `ok accepted ${String(entry["index"])} ${String(entry["type"])}`
          : errLine(code, `${String(entry["detail"])}${again}`)
      ]
    }

    /**
     * A text body as the gate's reads show it (posts, poll, entry): the text while the body is
     * available and the service holds it, else null (its status says why).
     */
    const bodyText = (hash: string, status: BodyStatusView) =>
      status.state !== "available"
        ? Effect.succeed(null)
        : Effect.map(bodies.get(decodeU64(hash)!), Option.match({ onNone: () => null, onSome: fromUtf8 }))

    const read = (command: ReadCommand): Effect.Effect<ReadonlyArray<string>> =>
      Effect.gen(function*() {
        const now = yield* clock.nowMillis
        switch (command.verb) {
          case "checkpoint": {
            const latest = yield* publisher.latest
            if (latest === undefined) return [errLine("no_checkpoint", "nothing has been published yet")]
            return [json({ tree_size: latest.size, root_hash: encodeB64(latest.rootHash), checkpoint: fromUtf8(latest.note) }), `ok checkpoint ${latest.size}`]
          }
          case "entry": {
            const size = (yield* reader.resident).counters.size
            if (command.index >= size) return [errLine("entry_not_found", `the log has ${size} leaves`)]
            const [entry] = yield* logStore.readEntries(command.index, command.index + 1)
            const leaf = fromUtf8(entry!)
            // The leaf line stays the exact bytes (they hash to the leaf); a text body follows on its own line.
            const named = leafTextBody(leaf)
            if (named === undefined) return [leaf, `ok entry ${command.index}`]
            const status = bodyStatus(yield* reader.slice([]), named.entry, now)
            return [leaf, json({ body_hash: named.hash, body: status, text: yield* bodyText(named.hash, status) }), `ok entry ${command.index}`]
          }
          case "receipt": {
            // The accepted answer of the write that appended the leaf, again: the receipt
            // line a write prints (17.1), the same JSON GET /v2/entries/{index}/receipt answers.
            const found = yield* receiptOf(command.index)
            if (found._tag === "NotInLog") return [errLine("entry_not_found", `the log has ${found.size} leaves`)]
            return [`receipt ${json(found.body)}`, `ok receipt ${command.index} ${found.body.entry.type}`]
          }
          case "proof": {
            // As GET /v2/tlog/inclusion answers (its bounds, its {index, size, hashes} in B64);
            // without a size, against the latest published checkpoint.
            const committed = (yield* logStatus.current).size
            const size = command.size ?? (yield* publisher.latest)?.size
            if (size === undefined) return [errLine("no_checkpoint", "nothing has been published yet; give a size: proof <index> <size>")]
            if (size > committed) return [errLine("size_out_of_range", `size must be at most the tree size ${committed}`)]
            if (command.index >= size) return [errLine("index_out_of_range", `index must be below size ${size}`)]
            const hashes = yield* logReader.inclusionProof(command.index, size)
            return [json({ index: command.index, size, hashes: hashes.map(encodeB64) }), `ok proof ${command.index} ${size}`]
          }
          case "name": {
            const view = yield* projection.name(command.name)
            return Either.isLeft(view) ? [errLine(view.left, `${command.name} is not a claimed name here`)] : [json(view.right), `ok name ${view.right.name}`]
          }
          case "key": {
            const view = yield* keyViewFrom(reader, command.kid, { from: 0, limit: 100 })
            if (Either.isLeft(view)) return [errLine("key_not_found", "no envelope of this key is in the log, and no claim names it as a recovery key")]
            const { head_index: index, seq } = view.right
            // Its last accepted envelope, as whoami says it: what an agent asks after a dropped sig.
            return [json(view.right), ...lastAcceptedLines(index === null || seq === null ? undefined : { index, seq }), "ok key"]
          }
          case "posts": {
            const page = yield* reader.list(command.channel === undefined ? "postOrder" : "channelPosts", command.channel ?? "", { limit: POSTS_SHOWN })
            const indexes = page.elements.map((element) => element.value as number)
            const slice = yield* reader.sliceFor(postItemsReads(indexes))
            const lines = yield* Effect.forEach(indexes.map((index) => postItem(slice, index, now)!), (post) =>
              Effect.map(bodyText(post.body_hash, post.body), (text) => json({ ...post, text })))
            return [...lines, `ok posts ${lines.length}`]
          }
          case "directory": {
            const view = yield* projection.directory({ q: command.q, limit: DIRECTORY_SHOWN })
            return [json(view), "ok directory"]
          }
          case "governance": {
            // The views of GET /v2/governance/freeze, /policy and /suspensions/{subject}, in one
            // object as the MCP governance tool gives them; reads carry no checkpoint_note (17.2).
            const suspension = command.subject === undefined ? undefined : yield* suspensionFrom(reader, command.subject, now)
            if (suspension !== undefined && Either.isLeft(suspension)) return [errLine(suspension.left, subjectInvalidDetail(command.subject!))]
            const freeze = yield* freezeFrom(reader)
            const policy = yield* policyFrom(reader, now)
            const subject = suspension?.right
            return [json({ freeze, policy, ...(subject === undefined ? {} : { suspension: subject }) }), `# ${governanceSaid(freeze, policy, subject)}`, "ok governance"]
          }
          case "poll": {
            const slice = yield* reader.slice([{ area: "polls", key: String(command.index) }])
            const detail = pollDetail(slice, command.index, now)
            if (detail === undefined) return [errLine("poll_not_found", `leaf ${command.index} is not a poll`)]
            // The question is the poll's body: shown as a post's text is, with its status.
            const status = bodyStatus(slice, { index: command.index, type: "poll", logged: detail.poll.logged }, now)
            return [json({ ...detail.poll, body: status, text: yield* bodyText(detail.poll.body_hash, status) }), `ok poll ${command.index}`]
          }
        }
      }).pipe(Effect.catchTag("StorageError", (e) => Effect.map(storageLine(e), (line) => [line])))

    /** The sealed body (U64) of a DM or capsule write, when the service still holds it. */
    const sealedBody = (ctHash: string) => Effect.map(bodies.get(decodeU64(ctHash)!), Option.map(encodeU64))

    /** What belongs to the session's proved key: its inbox, one message with its sealed body, its capsules. */
    const ownRead = (read: OwnRead): Effect.Effect<ReadonlyArray<string>> =>
      Effect.gen(function*() {
        const now = yield* clock.nowMillis
        /** What `nameOf` answers for these keys: their bindings. */
        const namesOf = (kids: ReadonlyArray<string>) =>
          Effect.map(reader.slice([...new Set(kids)].map((kid) => ({ area: "keyNames" as const, key: kid }))), (slice) =>
            (kid: string) => currentNameOf(slice, kid) ?? null)
        switch (read.kind) {
          case "inbox": {
            const view = yield* inboxViewFrom(reader, read.kid, { from: read.from, limit: INBOX_SHOWN }, now)
            const nameOf = yield* namesOf(view.messages.map((m) => m.from))
            const lines = view.messages.map((m) =>
              json({ index: m.index, logged: m.logged, from: m.from, from_name: nameOf(m.from), size: m.size, body: m.body.state }))
            return [...lines, `expect inbox <index> for a message's sealed body`, ...(view.next_from === null ? [] : [`expect inbox from=${view.next_from} for the next messages`]), `ok inbox ${lines.length}`]
          }
          case "message": {
            const message = yield* messageAt(reader, read.kid, read.index)
            if (message === undefined) return [errLine("message_not_found", `leaf ${read.index} is no message to this key`)]
            const [entry] = yield* logStore.readEntries(read.index, read.index + 1)
            const ct = yield* sealedBody(message.ctHash)
            const nameOf = yield* namesOf([message.from])
            return [
              fromUtf8(entry!),
              json({ from: message.from, from_name: nameOf(message.from) }),
              dmOpenLine(message.from, read.kid, config.origin),
              ...Option.match(ct, {
                onNone: () => [errLine("body_unavailable", "the sealed body is no longer held (expired or deleted)")],
                onSome: (u64) => [`ct ${u64}`, `ok message ${read.index}`]
              })
            ]
          }
          case "capsules": {
            const view = yield* capsuleListFrom(reader, read.kid, now)
            return [...view.capsules.map((c) => json(c)), `ok capsules ${view.capsules.length}`]
          }
          case "capsule": {
            const view = yield* capsuleSlotFrom(reader, read.slot, now)
            if (Either.isLeft(view)) return ["ok capsule empty"]
            const ct = yield* sealedBody(view.right.ct_hash)
            return [json(view.right), ...Option.match(ct, { onNone: () => [], onSome: (u64) => [`ct ${u64}`] }), `ok capsule ${view.right.index}`]
          }
        }
      }).pipe(Effect.catchTag("StorageError", (e) => Effect.map(storageLine(e), (line) => [line])))

    /** A policy leaf's answer: the receipt of the leaf, or the refusal receipt of the request, as for a key's submission. */
    const policyAnswer = (written: PolicyWrite) =>
      written.outcome._tag === "Refused"
        ? answers.refused(written.request, written.outcome.refusal, written.outcome.at)
        : answers.accepted(written.envelope, written.outcome, 201)

    /**
     * The verifier of a durable claim, retried with backoff: the put is idempotent (the pair
     * keeps its first verifier), so an attempt that stored it but failed to say so is found.
     */
    const storeVerifier = (name: string, claimIndex: number, verifier: string) =>
      secrets.put(name, claimIndex, verifier).pipe(
        Effect.flatMap((stored) => stored ? Effect.succeed(true) : Effect.map(secrets.get(name, claimIndex), (kept) => kept === verifier)),
        Effect.retry(Schedule.intersect(Schedule.exponential("100 millis"), Schedule.recurs(4))),
        Effect.catchTag("StorageError", (e) => Effect.as(Effect.logError("text gate: a claimed name's verifier was not stored").pipe(Effect.annotateLogs({ name, claim: claimIndex, error: e.message })), false))
      )

    /** A secret-bound claim: the policy leaf first, its verifier once the leaf is durable. */
    const secretClaim = (session: GateSession, name: string, secret: string) =>
      Effect.gen(function*() {
        const verifier = yield* throttled(hasher.hash(secret))
        if (verifier === "busy") return { session, lines: [BUSY] }
        const written = yield* policyWrites.write("claim", { name, as: name }, yield* clock.nowMillis)
        const answer = yield* policyAnswer(written)
        if (written.outcome._tag === "Refused") return { session, lines: writeLines(answer) }
        if (!(yield* storeVerifier(name, written.outcome.index, verifier))) {
          return { session, lines: [...writeLines(answer).slice(0, 1), errLine("secret_not_stored", `${name} is claimed at ${written.outcome.index}, but its secret could not be stored`)] }
        }
        const [receipt, ok] = writeLines(answer)
        return { session: { ...session, identity: { tier: "secret" as const, name }, challenge: null, pending: null }, lines: [receipt!, "expect post <channel> <text>", ok!] }
      }).pipe(Effect.catchTag("StorageError", (e) => Effect.map(storageLine(e), (line) => ({ session, lines: [line] }))))

    const login = (session: GateSession, name: string, secret: string) =>
      Effect.gen(function*() {
        const matches = yield* secretMatches(name, secret)
        if (matches === "busy") return { session, lines: [BUSY] }
        if (!matches) return { session, lines: [errLine("login_failed", "no secret-bound name with that secret")] }
        return {
          session: { ...session, identity: { tier: "secret" as const, name }, challenge: null, pending: null },
          lines: ["expect post <channel> <text>  |  upgrade <your did:key> <secret>", `ok secret ${name}`]
        }
      }).pipe(Effect.catchTag("StorageError", (e) => Effect.map(storageLine(e), (line) => ({ session, lines: [line] }))))

    /** An upgrade asks for the secret again: a session alone does not move a name for good. */
    const prepareUpgrade = (session: GateSession, effect: Extract<GateEffect, { _tag: "PrepareUpgrade" }>) =>
      Effect.gen(function*() {
        const matches = yield* secretMatches(effect.name, effect.secret)
        if (matches === "busy") return { session, lines: [BUSY] }
        if (!matches) return { session, lines: [errLine("login_failed", "that is not the secret of this name")] }
        const prepared = upgradePrepared(session, effect)
        return { session: prepared.session, lines: prepared.lines }
      }).pipe(Effect.catchTag("StorageError", (e) => Effect.map(storageLine(e), (line) => ({ session, lines: [line] }))))

    // The minute's posts per secret-bound name (Unix ms of each), for SECRET_POSTS_PER_MINUTE.
    const recentPosts = new Map<string, Array<number>>()
    const postAllowed = (name: string, now: number): boolean => {
      const recent = (recentPosts.get(name) ?? []).filter((at) => now - at < 60_000)
      if (recent.length >= SECRET_POSTS_PER_MINUTE) {
        recentPosts.set(name, recent)
        return false
      }
      recent.push(now)
      recentPosts.set(name, recent)
      // Forget names that have not posted this minute, so the map stays as small as the traffic.
      if (recentPosts.size > MAX_SESSIONS) {
        for (const [key, times] of recentPosts) if (times.every((at) => now - at >= 60_000)) recentPosts.delete(key)
      }
      return true
    }

    /** An accepted write's reply says what may follow, before its ok line. */
    const withNext = (lines: ReadonlyArray<string>, accepted: boolean, next: string): ReadonlyArray<string> =>
      accepted ? [...lines.slice(0, -1), next, ...lines.slice(-1)] : lines

    const secretPost = (name: string, channel: string, text: string) =>
      Effect.gen(function*() {
        const now = yield* clock.nowMillis
        if (!postAllowed(name, now)) return [errLine("rate_limited", `a secret-bound name posts at most ${SECRET_POSTS_PER_MINUTE} times a minute through the gate`)]
        const body = utf8(text)
        const payload = { channel, body_hash: encodeU64(crypto.sha256(body)), size: body.length, as: name }
        const answer = yield* policyAnswer(yield* policyWrites.write("post", payload, now, body))
        return withNext(writeLines(answer), answer.status < 300, "expect post <channel> <text>")
      }).pipe(Effect.catchTag("StorageError", (e) => Effect.map(storageLine(e), (line) => [line])))

    /** The upgrade of a secret-bound name: a policy-signed key.rotate with `as`, to the key that signed new_sig. */
    const upgrade = (session: GateSession, effect: Extract<GateEffect, { _tag: "Upgrade" }>) =>
      Effect.gen(function*() {
        const payload = { name: effect.name, new_kid: effect.newKid, new_sig: effect.newSig, as: effect.name }
        const read = yield* Effect.either(nameRecord(effect.name))
        if (Either.isLeft(read)) return { session, lines: [yield* storageLine(read.left)] }
        const before = read.right
        const written = yield* policyWrites.write("key.rotate", payload, yield* clock.nowMillis)
        const answer = yield* policyAnswer(written)
        if (written.outcome._tag === "Refused") return { session, lines: writeLines(answer) }
        // The name is a key's now: its verifier has no use left, and is no longer kept.
        if (before?.tier === "secret") {
          yield* secrets.remove(effect.name, before.claimIndex).pipe(
            Effect.catchTag("StorageError", (e) => Effect.logWarning("text gate: a verifier was not removed after its upgrade").pipe(Effect.annotateLogs({ name: effect.name, error: e.message })))
          )
        }
        const [receipt, ok] = writeLines(answer)
        // new_sig proved the key: the session now speaks for it, and the secret no longer logs in.
        return {
          session: { ...session, identity: { tier: "key" as const, kid: effect.newKid } },
          lines: [receipt!, "expect a signed key.x25519 line to receive DMs  |  post <channel> <text>", ok!]
        }
      }).pipe(Effect.catchTag("StorageError", (e) => Effect.map(storageLine(e), (line) => ({ session, lines: [line] }))))

    const perform = (session: GateSession, effect: GateEffect, client: string | undefined): Effect.Effect<{ session: GateSession; lines: ReadonlyArray<string> }> => {
      switch (effect._tag) {
        case "None":
        case "Close":
          return Effect.succeed({ session, lines: [] })
        case "Read":
          return Effect.map(read(effect.read), (lines) => ({ session, lines }))
        case "OwnRead":
          return Effect.map(ownRead(effect.read), (lines) => ({ session, lines }))
        case "Submit":
          return Effect.map(writes.writeSelfSigned(effect.request, client), (answer) => ({
            session,
            lines: withNext(writeLines(answer, effect.prepared), answer.status < 300, "expect post <channel> <text>  |  a signed {\"envelope\",\"body\"} line")
          }))
        case "SecretClaim":
          // A secret-bound name is a new identity too: the address's claims budget.
          return client === undefined ? secretClaim(session, effect.name, effect.secret) : Effect.flatMap(admission.take("claims", client), (verdict) =>
            verdict.admitted ? secretClaim(session, effect.name, effect.secret) : Effect.succeed({ session, lines: [errLine("rate_limited", verdict.detail)] }))
        case "Login":
          return login(session, effect.name, effect.secret)
        case "PrepareUpgrade":
          return prepareUpgrade(session, effect)
        case "SecretPost":
          return Effect.map(secretPost(effect.name, effect.channel, effect.text), (lines) => ({ session, lines }))
        case "Upgrade":
          return upgrade(session, effect)
      }
    }

    /** Effects that run scrypt: one per exchange, so one request cannot queue many. */
    const SECRET_EFFECTS: ReadonlySet<GateEffect["_tag"]> = new Set(["SecretClaim", "Login", "PrepareUpgrade"])

    const exchange = (id: string | undefined, lines: ReadonlyArray<string>, transport: Transport, client?: string) =>
      Effect.gen(function*() {
        const start = yield* clock.nowMillis
        const taken = yield* lock.withPermits(1)(take(id, transport, start))
        let session = taken.session
        const out: Array<string> = taken.opened ? [`session ${session.id}`] : []
        // The owner statistics' events of this exchange (words of a closed list, nothing of the lines).
        const events: Array<GateEvent> = taken.opened ? ["session"] : []
        const counted = <A>(result: A) => Effect.as(stats.countGate(gateTransportOf(transport), events), result)
        let close = false
        if (taken.exposed) {
          out.push(errLine("session_revoked", "this session spoke for a secret-bound name and its id travelled without TLS; it has ended: log in again over TLS"))
          events.push("refused")
          return yield* counted({ id: session.id, lines: out, close })
        }
        if (taken.opened && id !== undefined && id !== "") out.push(`# that session is unknown or expired; this is a new one`)
        // An HTTP body's blank lines (a trailing newline, a spacer) are no commands; a TCP line
        // arrives alone and is answered even when empty, one reply per line sent (17.1).
        const commands = transport.method === "tcp" ? lines : lines.filter((line) => line.trim() !== "")
        if (commands.length > MAX_LINES_PER_EXCHANGE) {
          out.push(errLine("too_many_lines", `at most ${MAX_LINES_PER_EXCHANGE} commands per request; none of these ran`))
          events.push("refused")
        } else {
          let secretsChecked = 0
          let ran = 0
          for (const line of commands) {
            if (client !== undefined) {
              const verdict = yield* admission.take("gate_lines", client)
              if (!verdict.admitted) {
                out.push(errLine("rate_limited", verdict.detail))
                events.push("refused")
                if (ran === 0) return yield* counted({ id: taken.opened ? "" : session.id, lines: out, close: taken.opened, limited: verdict })
                break
              }
            }
            ran++
            if (utf8(line).length > MAX_LINE_BYTES) {
              out.push(errLine("line_too_long", `a line is at most ${MAX_LINE_BYTES} bytes`))
              events.push("invalid", "refused")
              continue
            }
            const replyStart = out.length
            events.push(gateLineEvent(line))
            const now = yield* clock.nowMillis
            const log = yield* Effect.either(gateStepSlice(reader, session, line, now))
            if (Either.isLeft(log)) {
              out.push(yield* storageLine(log.left))
              events.push("refused")
              continue
            }
            const facts = {
              now,
              fresh: yield* fresh,
              origin: config.origin,
              gatePorts,
              log: log.right,
              sha256: crypto.sha256,
              verify,
              claimWorkBits: admission.limits.claimWorkBits,
              domain: config.domain,
              publicUrl: config.publicUrl
            }
            const stepped = step(session, line, transport, facts)
            if (SECRET_EFFECTS.has(stepped.effect._tag) && secretsChecked++ > 0) {
              out.push(...stepped.lines, errLine("busy", "one secret command per request"))
              events.push("refused")
              continue
            }
            const performed = yield* perform(stepped.session, stepped.effect, client)
            if (identityKey(performed.session.identity) !== identityKey(session.identity)) {
              // Whoever knew the id before the session gained an identity must not share it:
              // the reply starts with the new id.
              session = { ...performed.session, id: yield* fresh }
              out.push(`session ${session.id}`)
            } else {
              session = performed.session
            }
            out.push(...stepped.lines, ...performed.lines)
            if (out.length > replyStart && out[out.length - 1]!.startsWith("err ")) events.push("refused")
            if (stepped.effect._tag === "Close") {
              close = true
              break
            }
          }
        }
        // A session kept costs the address a gate_sessions token (a TCP connection opens one
        // with its greeting); past the budget it is not kept, so it holds nothing. An HTTP
        // session that holds nothing (reads only) costs none: it is kept apart under its own
        // cap (keep), so cheap GETs keep their `s` without crowding out any other session.
        const readsOnly = transport.method !== "tcp" && empty(session)
        if (taken.opened && client !== undefined && !readsOnly) {
          const verdict = yield* admission.take("gate_sessions", client)
          if (!verdict.admitted) {
            events.push("refused")
            // The replies of what ran, without the id of a session that is not kept.
            const replies = out.filter((line) => !line.startsWith("session "))
            return yield* counted({ id: "", lines: [...replies, errLine("rate_limited", `${verdict.detail}; this session is not kept`)], close: true, limited: verdict })
          }
        }
        yield* lock.withPermits(1)(keep(session, taken.session.id, transport, yield* clock.nowMillis))
        return yield* counted({ id: session.id, lines: out, close })
      })

    const end = (id: string) => lock.withPermits(1)(Effect.sync(() => forget(tcpSessions, id)))

    // Open sessions by transport, for /metrics (Metrics.ts).
    yield* sampledOnScrape(Effect.suspend(() => Effect.zipRight(
      Metric.set(gateSessions.of(["transport", "http"]), httpSessions.size),
      Metric.set(gateSessions.of(["transport", "tcp"]), tcpSessions.size)
    )))
    return { exchange, end }
  }))
}

