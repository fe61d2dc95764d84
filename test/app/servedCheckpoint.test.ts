// The checkpoint `/`, /checkpoint and /tiles/checkpoint serve (app/servedCheckpoint.ts):
// the publisher's latest from memory, the sink's only before this process published.

import { Effect, Option } from "effect"
import { describe, expect, it } from "vitest"
import { CosignatureCollector } from "../../src/app/CosignatureCollector.js"
import { Publisher } from "../../src/app/Publisher.js"
import { publishedCheckpoint } from "../../src/app/servedCheckpoint.js"
import { TileSink } from "../../src/ports/TileSink.js"

const note = (text: string) => new TextEncoder().encode(text)

const served = (latest: Uint8Array | undefined, onSink: Uint8Array | undefined, lines: ReadonlyArray<string> = []) => {
  let sinkReads = 0
  const publisher = { latest: Effect.succeed(latest === undefined ? undefined : { size: 1, rootHash: new Uint8Array(32), note: latest }) }
  const sink = { readCheckpoint: Effect.sync(() => { sinkReads++; return Option.fromNullable(onSink) }) }
  const result = Effect.runSync(publishedCheckpoint.pipe(
    Effect.provideService(Publisher, publisher as unknown as Publisher["Type"]),
    Effect.provideService(TileSink, sink as unknown as TileSink["Type"]),
    Effect.provideService(CosignatureCollector, { linesAt: (size) => Effect.succeed(size === 1 ? lines : []), status: Effect.die("unused"), report: Effect.die("unused") })
  ))
  return { result: Option.getOrUndefined(result), sinkReads }
}

describe("publishedCheckpoint", () => {
  it("is the publisher's latest, without reading the sink", () => {
    const { result, sinkReads } = served(note("memory"), note("file"))
    expect(new TextDecoder().decode(result)).toBe("memory")
    expect(sinkReads).toBe(0)
  })

  it("carries the cosignature lines collected for the checkpoint's size after the log's signature", () => {
    const { result } = served(note("text\n\n— log sig\n"), undefined, ["— w1 a\n", "— w2 b\n"])
    expect(new TextDecoder().decode(result)).toBe("text\n\n— log sig\n— w1 a\n— w2 b\n")
  })

  it("is the sink's before the first publication of this process, and None when there is none", () => {
    expect(new TextDecoder().decode(served(undefined, note("earlier run")).result)).toBe("earlier run")
    expect(served(undefined, undefined).result).toBeUndefined()
  })
})
