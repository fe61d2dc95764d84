// `aics mcp`'s stdio transport in process, on streams of its own: an over-long line is
// refused once, with the request's id when the line has one (at its start or its end), and
// the rest of it dropped up to its newline (not read as a line of its own),
// lines split across many chunks are put together, and a send waiting for 'drain' settles
// when stdout closes instead.

import { PassThrough, Writable } from "node:stream"
import { describe, expect, it } from "vitest"
import { CheckedStdioTransport, TopLevelIdScanner } from "../../src/client/mcp/stdioTransport.js"
import { pollUntil } from "../support/poll.js"

const MAX = 10 * 1024 * 1024

const wired = async () => {
  const stdin = new PassThrough()
  const stdout = new PassThrough()
  const answers: Array<any> = []
  let text = ""
  stdout.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8")
    let newline: number
    while ((newline = text.indexOf("\n")) >= 0) {
      answers.push(JSON.parse(text.slice(0, newline)))
      text = text.slice(newline + 1)
    }
  })
  const transport = new CheckedStdioTransport(stdin, stdout)
  const messages: Array<any> = []
  transport.onmessage = (message) => messages.push(message)
  await transport.start()
  return { stdin, answers, messages, transport }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20))

/** Waits (polling, up to a deadline) until `done` holds. */
const until = (done: () => boolean) => pollUntil("the transport", async () => (done() ? true : undefined), 10_000)

describe("the checked stdio transport", () => {
  it("refuses an over-long line once and drops the rest of it up to its newline", async () => {
    const { stdin, answers, messages } = await wired()
    // Past the bound in pieces; its tail (still no newline) then looks like JSON of its own.
    const piece = Buffer.alloc(1024 * 1024, 0x61)
    for (let i = 0; i <= MAX / piece.length; i++) stdin.write(piece)
    stdin.write('{"jsonrpc":"2.0","id":7,"method":"ping"}')
    stdin.write('\n{"jsonrpc":"2.0","id":8,"method":"ping"}\n')
    await settle()
    expect(answers).toEqual([{ jsonrpc: "2.0", id: null, error: { code: -32600, message: `Invalid Request: a line is at most ${MAX} bytes` } }])
    expect(messages.map((m) => m.id)).toEqual([8])
  })

  it("answers an over-long request with its id, read at the line's end as the SDK's client writes it, or at its start", async () => {
    const { stdin, answers, messages } = await wired()
    const refusal = (id: unknown) => ({ jsonrpc: "2.0", id, error: { code: -32600, message: `Invalid Request: a line is at most ${MAX} bytes` } })
    // {method, params, jsonrpc, id}: the id after 11 MiB of params, with a nested "id" and a quoted one in the text.
    const text = 'a \\"id\\":99 b '.repeat(Math.ceil((11 * 1024 * 1024) / 15))
    stdin.write(`{"method":"tools/call","params":{"name":"post","arguments":{"id":5,"text":"${text}"}},"jsonrpc":"2.0","id":41}\n`)
    await until(() => answers.length >= 1)
    expect(answers).toEqual([refusal(41)])
    // The id first, the line's start past the bound in pieces: answered at once, before its end.
    stdin.write('{"jsonrpc":"2.0","id":"call-42","method":"tools/call","params":{"text":"')
    const piece = Buffer.alloc(1024 * 1024, 0x61)
    for (let i = 0; i <= MAX / piece.length; i++) stdin.write(piece)
    await until(() => answers.length >= 2)
    expect(answers).toEqual([refusal(41), refusal("call-42")])
    // Its end answers nothing more, and the next line is a line of its own.
    stdin.write('"}}\n{"jsonrpc":"2.0","id":43,"method":"ping"}\n')
    await until(() => messages.length >= 1)
    expect(answers.length).toBe(2)
    expect(messages.map((m) => m.id)).toEqual([43])
  })

  it("finds a message's top-level id, and no other", () => {
    const idOf = (text: string, chunk = 3) => {
      const scanner = new TopLevelIdScanner()
      const bytes = Buffer.from(text)
      for (let i = 0; i < bytes.length; i += chunk) scanner.feed(bytes.subarray(i, i + chunk))
      return scanner.id
    }
    expect(idOf('{"jsonrpc":"2.0","id":7,"method":"ping"}')).toBe(7)
    expect(idOf('{ "method" : "x", "params" : {"id": 1, "a": [{"id": 2}], "s": "\\"id\\": 3"}, "id" : "é-\\u0041" }')).toBe("é-A")
    expect(idOf('{"params":{"id":1},"method":"notify"}')).toBeUndefined()
    expect(idOf('[{"id":1}]')).toBeUndefined()
    expect(idOf("not json, \"id\":1")).toBeUndefined()
    expect(idOf('{"id":-12e2}', 1)).toBe(-1200)
  })

  it("puts together a line split over many chunks, and several lines of one chunk", async () => {
    const { stdin, answers, messages } = await wired()
    const line = '{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n'
    for (const ch of line) stdin.write(ch)
    stdin.write('{"jsonrpc":"2.0","id":2,"method":"ping"}\n\nnot json\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n')
    await settle()
    expect(messages.map((m) => m.id)).toEqual([1, 2, 3])
    expect(answers.map((a) => a.error.code)).toEqual([-32700])
  })

  it("settles a send that waits for 'drain' when stdout closes", async () => {
    const stdout = new Writable({ highWaterMark: 1, write: () => undefined })
    const transport = new CheckedStdioTransport(new PassThrough(), stdout)
    const sent = transport.send({ jsonrpc: "2.0", id: 1, result: {} } as never)
    stdout.destroy()
    await expect(Promise.race([sent.then(() => "resolved", () => "rejected"), new Promise((resolve) => setTimeout(() => resolve("pending"), 500))])).resolves.toBe("rejected")
  })
})
