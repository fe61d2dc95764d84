// A DNS server on 127.0.0.1 (UDP) that answers TXT questions from a table, for the tests of
// `aics --vkey-dns` against a real resolver (node:dns's, c-ares): RFC 1035 section 4 wire
// format, one question a query, NXDOMAIN for a name it does not hold, an empty answer for
// another type.

import { createSocket } from "node:dgram"

const TXT = 16

/** The question's name (lower case, no final dot) and type, and where the question ends. */
const questionOf = (query: Buffer): { name: string; type: number; end: number } => {
  const labels: Array<string> = []
  let at = 12
  while (query[at]! !== 0) {
    const length = query[at]!
    labels.push(query.subarray(at + 1, at + 1 + length).toString("latin1"))
    at += 1 + length
  }
  return { name: labels.join(".").toLowerCase(), type: query.readUInt16BE(at + 1), end: at + 5 }
}

/** The TXT record data: each string as a length byte and at most 255 bytes. */
const txtData = (strings: ReadonlyArray<string>): Buffer =>
  Buffer.concat(strings.map((text) => {
    const bytes = Buffer.from(text, "utf8")
    return Buffer.concat([Buffer.from([bytes.length]), bytes])
  }))

const answer = (query: Buffer, records: ReadonlyMap<string, ReadonlyArray<ReadonlyArray<string>>>): Buffer => {
  const { name, type, end } = questionOf(query)
  const held = records.get(name)
  const found = held !== undefined && type === TXT ? held : []
  const header = Buffer.alloc(12)
  query.copy(header, 0, 0, 2) // the query's id
  header.writeUInt16BE(held === undefined ? 0x8183 : 0x8180, 2) // a response, recursion available; NXDOMAIN or no error
  header.writeUInt16BE(1, 4)
  header.writeUInt16BE(found.length, 6)
  const answers = found.map((strings) => {
    const data = txtData(strings)
    const fixed = Buffer.alloc(12)
    fixed.writeUInt16BE(0xc00c, 0) // the name: a pointer to the question's
    fixed.writeUInt16BE(TXT, 2)
    fixed.writeUInt16BE(1, 4) // class IN
    fixed.writeUInt32BE(60, 6)
    fixed.writeUInt16BE(data.length, 10)
    return Buffer.concat([fixed, data])
  })
  return Buffer.concat([header, query.subarray(12, end), ...answers])
}

export interface DnsServer {
  /** `127.0.0.1:<port>`, for Resolver.setServers. */
  readonly address: string
  readonly close: () => Promise<void>
}

/** Serves `records` (owner name, without the final dot, to its TXT records' strings). */
export const startDnsServer = async (records: ReadonlyMap<string, ReadonlyArray<ReadonlyArray<string>>>): Promise<DnsServer> => {
  const socket = createSocket("udp4")
  socket.on("message", (query, peer) => {
    try {
      socket.send(answer(query, records), peer.port, peer.address)
    } catch {
      // A query this server cannot read gets no answer; the resolver times out, as with any server.
    }
  })
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", () => resolve()))
  return {
    address: `127.0.0.1:${socket.address().port}`,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve()))
  }
}
