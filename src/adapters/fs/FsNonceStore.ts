// The replay store on the filesystem (issue 13 item 11; docs/operations.md "Replays across
// a restart"): the memory store (MemoryNonceStore.ts), with every pair it accepts also
// appended to a journal, and the journal's unexpired pairs loaded back at start. A signed
// request replayed after a restart, within its signature's lifetime, is then refused
// `nonce_reused` as it was before (the memory store alone forgot it, and an owner-signed
// read of the notices was answered again).
//
// How durable: each pair is one line `<until> <keyid length>:<keyid> <nonce>\n` (the key
// percent-encoded) written
// with one write() to a file opened O_APPEND, before the request is answered. That
// survives the process (a crash, SIGKILL, a restart): the bytes are in the kernel's page
// cache. It is not fsynced: a power loss may drop the last pairs, and with them the
// protection of requests signed in the seconds before it; an fsync per signed request
// would cost more than every other step of a signed read. A torn last line (the process
// died inside the write) is skipped at load.
//
// The journal only grows between starts and compactions: at start, and whenever it has
// grown to twice the pairs the last compaction kept (plus COMPACT_SLACK), it is rewritten
// with only the unexpired pairs, atomically (atomicFile.ts), and reopened. Pairs live at
// most a signature's lifetime plus 300 s, so this bounds the file and the map alike.

import { closeSync, constants, openSync, writeSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { Clock } from "../../ports/Clock.js"
import { NonceStore } from "../../ports/NonceStore.js"
import { StorageError } from "../../ports/StorageError.js"
import { makeMemoryNonceStore } from "../memory/MemoryNonceStore.js"
import { replaceFile } from "./atomicFile.js"
import { isMissingFile } from "./missingFile.js"

const JOURNAL = "nonces.journal"
const COMPACT_SLACK = 100_000

interface Pair {
  readonly key: string
  readonly until: number
}

/** The pairs of a journal's text still remembered at `now`; a torn or foreign line is skipped. */
export const parseJournal = (text: string, now: number): Array<Pair> => {
  const pairs: Array<Pair> = []
  for (const line of text.split("\n")) {
    const space = line.indexOf(" ")
    if (space <= 0) continue
    const until = Number(line.slice(0, space))
    if (!Number.isSafeInteger(until) || until < now) continue
    try {
      pairs.push({ key: decodeURIComponent(line.slice(space + 1)), until })
    } catch {
      continue
    }
  }
  return pairs
}

/** One journal line; the key is percent-encoded, so no keyid or nonce can break a line. */
const lineOf = (pair: Pair) => `${pair.until} ${encodeURIComponent(pair.key)}\n`

/** The key of a pair, as the memory store forms it (the keyid's length first). */
const keyOf = (keyid: string, nonce: string) => `${keyid.length}:${keyid} ${nonce}`

/** The key back as its keyid and nonce. */
const splitKey = (key: string): readonly [string, string] | undefined => {
  const colon = key.indexOf(":")
  const length = Number(key.slice(0, colon))
  if (colon <= 0 || !Number.isSafeInteger(length)) return undefined
  const keyid = key.slice(colon + 1, colon + 1 + length)
  if (key[colon + 1 + length] !== " ") return undefined
  return [keyid, key.slice(colon + 2 + length)]
}

export const FsNonceStoreLive = (folder: string): Layer.Layer<NonceStore, StorageError, Clock> =>
  Layer.scoped(NonceStore, Effect.gen(function*() {
    const clock = yield* Clock
    const nowSeconds = Effect.map(clock.nowMillis, (ms) => Math.floor(ms / 1000))
    const path = join(folder, JOURNAL)
    const fail = (operation: string) => (cause: unknown) =>
      new StorageError({ operation, detail: `${JOURNAL}: ${cause instanceof Error ? cause.message : String(cause)}`, cause })
    const memory = makeMemoryNonceStore()
    // Live pairs, for compaction: the memory store forgets by whole minutes, this by `until`.
    const live = new Map<string, number>()

    const text = yield* Effect.tryPromise({
      try: () => readFile(path, "utf8").catch((error: unknown) => (isMissingFile(error) ? "" : Promise.reject(error))),
      catch: fail("load nonces")
    })
    const now = yield* nowSeconds
    for (const pair of parseJournal(text, now)) {
      const split = splitKey(pair.key)
      if (split === undefined) continue
      yield* memory.remember(split[0], split[1], pair.until, now)
      live.set(pair.key, Math.max(pair.until, live.get(pair.key) ?? 0))
    }

    let lines = 0
    let compactAt = COMPACT_SLACK
    let fd = -1
    const compact = Effect.flatMap(nowSeconds, (at) => Effect.tryPromise({
      try: async () => {
        for (const [key, until] of live) if (until < at) live.delete(key)
        const kept = [...live].map(([key, until]) => lineOf({ key, until })).join("")
        if (fd >= 0) closeSync(fd)
        fd = -1
        await replaceFile(path, new TextEncoder().encode(kept), 0o600)
        fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o600)
        lines = live.size
        compactAt = 2 * live.size + COMPACT_SLACK
      },
      catch: fail("compact nonces")
    }))
    // A start must not fail for want of room (a full disk still serves reads): without the
    // compaction the journal is appended to as it is, or, if it cannot even be opened,
    // each signed request fails with the storage error until there is room.
    yield* compact.pipe(Effect.catchAll((error) =>
      Effect.zipRight(
        Effect.logWarning("the nonce journal could not be compacted; appending to it as it is").pipe(Effect.annotateLogs({ error: error.detail })),
        Effect.try({
          try: () => { if (fd < 0) fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o600) },
          catch: fail("open nonces")
        }).pipe(Effect.catchAll((e) => Effect.logWarning("the nonce journal cannot be opened").pipe(Effect.annotateLogs({ error: e.detail }))))
      )))
    yield* Effect.addFinalizer(() => Effect.sync(() => { if (fd >= 0) closeSync(fd) }))

    return {
      remember: (keyid, nonce, until, at) =>
        Effect.flatMap(memory.remember(keyid, nonce, until, at), (isNew) => {
          if (!isNew) return Effect.succeed(false)
          return Effect.try({
            try: () => {
              if (fd < 0) fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o600)
              const key = keyOf(keyid, nonce)
              writeSync(fd, lineOf({ key, until }))
              live.set(key, until)
              lines++
              return lines >= compactAt
            },
            catch: fail("remember nonce")
          }).pipe(Effect.flatMap((grown) => (grown ? Effect.as(compact, true) : Effect.succeed(true))))
        })
    }
  }))
