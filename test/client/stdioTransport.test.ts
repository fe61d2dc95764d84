// `aics mcp`'s stdio transport in process, on streams of its own: an over-long line is
// refused once and the rest of it dropped up to its newline (not read as a line of its own),
// lines split across many chunks are put together, and a send waiting for 'drain' settles
// when stdout closes instead.

import { PassThrough, Writable } from "node:stream"
import { describe, expect, it } from "vitest"
import { CheckedStdioTransport } from "../../src/client/mcp/stdioTransport.js"

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
