// The chain oracle over a file an operator's watcher keeps: JSON lines, one per report of a
// transfer, appended as the watcher sees the chain:
//
//   {"network":"base","tx":"0xabc...","address":"0x...","asset":"usdc","units":"5000123","confirmed":true,"time":1767225600}
//
// `units` is a decimal string (smallest units of the asset), `time` the Unix seconds of the
// block (or of first sight while unconfirmed). A later line about the same transfer
// (network, tx, address, asset) replaces an earlier one: the watcher appends a transfer
// unconfirmed and again once it has enough confirmations (how many is the watcher's rule);
// until then a claim of it is answered "not final yet" and writes no leaf. The report of a
// transaction is domain/sup/chainReport.ts reportOfTransfers: no line, absent; a confirmed
// line, final; only unconfirmed ones, pending.
// Lines that are not such an object are skipped with a warning; a last line without its
// newline is not read until the watcher finishes it. Each lookup first reads what was
// appended since the last one (the file only grows; a shorter file is read again whole).

import { open, stat } from "node:fs/promises"
import { Effect, Layer } from "effect"
import { fromUtf8 } from "../../domain/bytes.js"
import type { ChainTransfer } from "../../domain/sup/contributions.js"
import { ChainOracle } from "../../ports/ChainOracle.js"
import { attempt } from "./fileIo.js"
import { oracleOver, TransferIndex } from "../memory/MemoryChainOracle.js"

const UNITS = /^(?:0|[1-9][0-9]{0,77})$/

/** A ledger line as a transfer, or undefined when it is not one. */
export const transferOfLine = (line: string): ChainTransfer | undefined => {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return undefined
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined
  const { network, tx, address, asset, units, confirmed, time } = value as Record<string, unknown>
  const text = (v: unknown): v is string => typeof v === "string" && v.length > 0 && v.length <= 256
  if (!text(network) || !text(tx) || !text(address) || !text(asset)) return undefined
  if (typeof units !== "string" || !UNITS.test(units) || typeof confirmed !== "boolean") return undefined
  if (typeof time !== "number" || !Number.isSafeInteger(time) || time < 0) return undefined
  return { network, tx, address, asset, units, confirmed, time }
}

export const FsChainOracleLive = (path: string) =>
  Layer.effect(ChainOracle, Effect.gen(function*() {
    const transfers = new TransferIndex()
    let offset = 0
    const lock = yield* Effect.makeSemaphore(1)
    const refresh = lock.withPermits(1)(Effect.gen(function*() {
      const read = yield* attempt("read chain ledger", path, async () => {
        const info = await stat(path).catch((e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? undefined : Promise.reject(e)))
        if (info === undefined) return { bytes: new Uint8Array(0), restart: offset > 0 }
        const restart = info.size < offset
        const from = restart ? 0 : offset
        const handle = await open(path, "r")
        try {
          const bytes = new Uint8Array(info.size - from)
          let at = 0
          while (at < bytes.length) {
            const { bytesRead } = await handle.read(bytes, at, bytes.length - at, from + at)
            if (bytesRead === 0) break
            at += bytesRead
          }
          return { bytes: bytes.subarray(0, at), restart }
        } finally {
          await handle.close()
        }
      })
      if (read.restart) {
        transfers.clear()
        offset = 0
      }
      const end = read.bytes.lastIndexOf(0x0a)
      if (end < 0) return
      const complete = read.bytes.subarray(0, end + 1)
      offset += complete.length
      let text: string
      try {
        text = fromUtf8(complete)
      } catch {
        return yield* Effect.logWarning("chain ledger: appended lines are not UTF-8; skipped").pipe(Effect.annotateLogs({ file: path }))
      }
      for (const line of text.split("\n")) {
        if (line.trim() === "") continue
        const transfer = transferOfLine(line)
        if (transfer === undefined) yield* Effect.logWarning("chain ledger: skipped a line that is not a transfer").pipe(Effect.annotateLogs({ file: path, line: line.slice(0, 200) }))
        else transfers.set(transfer)
      }
    }))
    return oracleOver(transfers, refresh)
  }))
