// The subscriber side of bench/stream, in a process of its own (forked with an IPC channel)
// so the 1,000 streams' reading costs the writer's process nothing and the shared 2 cores
// as little as can be: raw sockets, Buffers never turned into strings, no JSON parsed.
//
// For each socket it keeps one record per read that completed at least one leaf event:
// when (epoch ms, comparable across processes), the highest leaf id completed, and how
// many ids completed. A leaf's arrival at a subscriber is the time of the first read whose
// highest id reaches it: exact when the stream carries every leaf of the run (the bench
// writes posts only and subscribes with type=post), which the counts let the parent check.
//
// The id line of an event is "\nid: <index>\n" (domain/stream/logEvents.ts); `data` is
// JSON on one line, so the pattern appears nowhere else. Native Buffer.indexOf finds it;
// a line split across two reads is found in the few bytes around the boundary.
//
// With `gzip`, each stream asks for gzip (Accept-Encoding) and is read as a client must: the
// head skipped, the chunks (RFC 9112 7.1) taken apart, the body inflated by zlib's gunzip
// stream; the id lines are then found in what it gives, timed when it gives it.
//
// With `sample` n above 1, only every n-th stream is read that way; the others take their
// bytes and count them, as a client on another machine takes them from its kernel: what
// decoding costs (inflating is most of this process's CPU with gzip) is the clients', which
// on this machine would otherwise compete with the server for its two cores.
//
// Messages: {open: {port, count, path, gzip, sample}} -> {opened: count} once every stream
// answered; {close: true} -> {reads: Array<{times, lastIds, counts}> (the decoded streams'),
// bytes: every stream's bytes received}, the sockets closed.

import { connect, type Socket } from "node:net"
import { constants, createGunzip, type Gunzip } from "node:zlib"

const ID = Buffer.from("\nid: ")
/** Longest id line after "\n": "id: " + 15 digits + "\n". */
const MAX_LINE = ID.length + 16

interface Reads {
  times: Array<number>
  lastIds: Array<number>
  counts: Array<number>
}

/** Where the id line whose digits start at `at` ends (its "\n"), or -1 if not within `buf`. */
const lineEnd = (buf: Buffer, at: number): number => {
  const end = buf.indexOf(10, at)
  return end > at ? end : -1
}

/** The decimal digits of buf[from, to). */
const digits = (buf: Buffer, from: number, to: number): number => {
  let n = 0
  for (let i = from; i < to; i++) n = n * 10 + (buf[i]! - 48)
  return n
}

/** Counts the leaf events each read completes into `reads` (an id line may straddle two reads). */
const eventCounter = (reads: Reads) => {
  // The last bytes of the previous read.
  let tail = Buffer.alloc(0)
  return (chunk: Buffer) => {
    const now = performance.timeOrigin + performance.now()
    let count = 0
    let last = -1
    if (tail.length > 0) {
      // Lines that start in the tail (the previous read's end) and end in this read.
      const junction = Buffer.concat([tail, chunk.subarray(0, MAX_LINE)])
      for (let at = junction.indexOf(ID); at >= 0 && at < tail.length; at = junction.indexOf(ID, at + 1)) {
        const end = lineEnd(junction, at + ID.length)
        if (end >= tail.length) {
          count++
          last = digits(junction, at + ID.length, end)
        }
      }
    }
    for (let at = chunk.indexOf(ID); at >= 0; at = chunk.indexOf(ID, at + ID.length)) {
      const end = lineEnd(chunk, at + ID.length)
      if (end < 0) break
      count++
      last = digits(chunk, at + ID.length, end)
    }
    tail = Buffer.from(chunk.subarray(Math.max(0, chunk.length - MAX_LINE)))
    if (count > 0) {
      reads.times.push(now)
      reads.lastIds.push(last)
      reads.counts.push(count)
    }
  }
}

/** Takes an HTTP/1.1 response apart as it arrives: the head skipped, each chunk's data handed to `data`. */
const chunkedBody = (data: (bytes: Buffer) => void) => {
  let pending: Buffer = Buffer.alloc(0)
  let inHead = true
  /** Bytes of the current chunk's data still to come, then its CRLF; -1 while a size line is awaited. */
  let left = -1
  return (read: Buffer) => {
    pending = pending.length === 0 ? read : Buffer.concat([pending, read])
    for (;;) {
      if (inHead) {
        const end = pending.indexOf("\r\n\r\n")
        if (end < 0) return
        pending = pending.subarray(end + 4)
        inHead = false
      }
      if (left < 0) {
        const end = pending.indexOf("\r\n")
        if (end < 0) return
        left = parseInt(pending.subarray(0, end).toString("latin1"), 16)
        pending = pending.subarray(end + 2)
      }
      if (left > 0) {
        const take = Math.min(left, pending.length)
        if (take === 0) return
        data(pending.subarray(0, take))
        pending = pending.subarray(take)
        left -= take
        if (left > 0) return
      }
      if (pending.length < 2) return
      pending = pending.subarray(2)
      left = -1
    }
  }
}

let bytesReceived = 0

/** Opens a stream; with `reads`, decodes it and counts its events there, else only takes its bytes. */
const subscribe = (port: number, path: string, gzip: boolean, reads: Reads | undefined): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const socket = connect({ port, host: "127.0.0.1", noDelay: true })
    const count = reads === undefined ? () => {} : eventCounter(reads)
    let gunzip: Gunzip | undefined
    if (gzip && reads !== undefined) {
      gunzip = createGunzip({ flush: constants.Z_SYNC_FLUSH })
      gunzip.on("data", count)
      socket.once("close", () => gunzip!.destroy())
    }
    const body = gunzip === undefined ? count : chunkedBody((bytes) => gunzip!.write(bytes))
    let answered = false
    socket.on("data", (chunk: Buffer) => {
      bytesReceived += chunk.length
      if (!answered) {
        answered = true
        resolve(socket)
      }
      body(chunk)
    })
    socket.once("error", reject)
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n${gzip ? "Accept-Encoding: gzip\r\n" : ""}\r\n`)
  })

let sockets: Array<Socket> = []
let reads: Array<Reads> = []

process.on("message", (message: { open?: { port: number; count: number; path: string; gzip: boolean; sample: number }; close?: true }) => {
  if (message.open !== undefined) {
    const { port, count, path, gzip, sample } = message.open
    void (async () => {
      const decoded = Array.from({ length: count }, (_, i): Reads | undefined => (i % sample === 0 ? { times: [], lastIds: [], counts: [] } : undefined))
      reads = decoded.filter((r) => r !== undefined)
      bytesReceived = 0
      sockets = []
      // In small groups: a thousand connections at once overflow the server's accept backlog.
      for (let i = 0; i < count; i += 50) {
        sockets.push(...await Promise.all(decoded.slice(i, i + 50).map((r) => subscribe(port, path, gzip, r))))
      }
      process.send!({ opened: sockets.length })
    })()
  }
  if (message.close !== undefined) {
    for (const socket of sockets) socket.destroy()
    process.send!({ reads, bytes: bytesReceived })
    sockets = []
    reads = []
  }
})
