// The replay store in memory, for one process. Pairs live in buckets by expiry minute, so
// forgetting expired pairs costs nothing per request: whole buckets are dropped.
//
// Across a restart the memory is lost; the writes it protects stay protected because a
// replayed envelope repeats a seq its key already used, and the sequencer refuses it. A
// signed read replayed across a restart within its window would be answered again, so the
// service's filesystem storage keeps a journal beside it (fs/FsNonceStore.ts); this one
// alone serves the tests and a process that never restarts with live signatures.

import { Effect, Layer } from "effect"
import { NonceStore } from "../../ports/NonceStore.js"

const BUCKET_SECONDS = 60

export const makeMemoryNonceStore = () => {
  const seen = new Set<string>()
  const buckets = new Map<number, Array<string>>()
  let oldestBucket = Number.POSITIVE_INFINITY

  // A bucket b holds pairs remembered until before b * 60 s: gone once the clock reaches it.
  const forgetExpired = (current: number) => {
    for (const [bucket, keys] of buckets) {
      if (bucket > current) continue
      for (const key of keys) seen.delete(key)
      buckets.delete(bucket)
    }
    oldestBucket = buckets.size === 0 ? Number.POSITIVE_INFINITY : Math.min(...buckets.keys())
  }

  return {
    remember: (keyid: string, nonce: string, until: number, now: number) =>
      Effect.sync(() => {
        const current = Math.floor(now / BUCKET_SECONDS)
        if (current >= oldestBucket) forgetExpired(current)
        // The keyid's length first: with a plain separator ("a b", "c") and ("a", "b c")
        // would be one pair, since the port takes any strings.
        const key = `${keyid.length}:${keyid} ${nonce}`
        if (seen.has(key)) return false
        seen.add(key)
        // Kept until the end of the bucket after `until`, never less than asked.
        const bucket = Math.floor(until / BUCKET_SECONDS) + 1
        const list = buckets.get(bucket)
        if (list === undefined) buckets.set(bucket, [key])
        else list.push(key)
        if (bucket < oldestBucket) oldestBucket = bucket
        return true
      })
  }
}

export const MemoryNonceStoreLive = Layer.sync(NonceStore, makeMemoryNonceStore)
