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
// Messages: {open: {port, count, path}} -> {opened: count} once every stream answered;
// {close: true} -> {reads: Array<{times, lastIds, counts}>}, the sockets closed.

import { connect, type Socket } from "node:net"

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

const subscribe = (port: number, path: string, reads: Reads): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const socket = connect({ port, host: "127.0.0.1", noDelay: true })
    // The last bytes of the previous read: an id line may straddle two reads.
    let tail = Buffer.alloc(0)
    let answered = false
    socket.on("data", (chunk: Buffer) => {
      const now = performance.timeOrigin + performance.now()
      if (!answered) {
        answered = true
        resolve(socket)
      }
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
    })
    socket.once("error", reject)
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n\r\n`)
  })

let sockets: Array<Socket> = []
let reads: Array<Reads> = []

process.on("message", (message: { open?: { port: number; count: number; path: string }; close?: true }) => {
  if (message.open !== undefined) {
    const { port, count, path } = message.open
    void (async () => {
      reads = Array.from({ length: count }, () => ({ times: [], lastIds: [], counts: [] }))
      sockets = []
      // In small groups: a thousand connections at once overflow the server's accept backlog.
      for (let i = 0; i < count; i += 50) {
        sockets.push(...await Promise.all(reads.slice(i, i + 50).map((r) => subscribe(port, path, r))))
      }
      process.send!({ opened: sockets.length })
    })()
  }
  if (message.close !== undefined) {
    for (const socket of sockets) socket.destroy()
    process.send!({ reads })
    sockets = []
    reads = []
  }
})
