// Opt-in OTLP traces of the write path (issue 13 item 8; AICS_OTLP_URL; app/Tracing.ts): the
// real service sends its spans to a collector, here a tiny OTLP/HTTP JSON one in the test.
// One write's trace holds the HTTP request, the stateless checks, the wait for the
// sequencer and the batch that took it (decide, then the durable append), each a child of
// the one before; the publisher's round is a trace of its own. Without AICS_OTLP_URL the
// collector hears nothing.

import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { pollUntil } from "../../support/poll.js"
import { OutsideAgent, type Log } from "../../support/outsideAgent.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

const ORIGIN = "localhost/aics"

interface OtlpValue {
  readonly stringValue?: string
  readonly intValue?: number | string
  readonly boolValue?: boolean
}

interface OtlpSpan {
  readonly name: string
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly attributes: ReadonlyArray<{ readonly key: string; readonly value: OtlpValue }>
}

interface Collector {
  readonly url: string
  readonly spans: Array<OtlpSpan>
  readonly requests: Array<{ readonly path: string; readonly contentType: string }>
  readonly close: () => Promise<void>
}

/** An OTLP/HTTP collector that keeps every span it is sent (JSON only, as the service sends). */
const startCollector = async (): Promise<Collector> => {
  const spans: Array<OtlpSpan> = []
  const requests: Array<{ path: string; contentType: string }> = []
  const server: Server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      requests.push({ path: request.url ?? "", contentType: request.headers["content-type"] ?? "" })
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<OtlpSpan> }> }>
      }
      for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans)
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve()))
  }
}

const attribute = (span: OtlpSpan, key: string): string | number | boolean | undefined => {
  const value = span.attributes.find((a) => a.key === key)?.value
  if (value === undefined) return undefined
  return value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : value.boolValue)
}

const servers: Array<RunningServer> = []
const collectors: Array<Collector> = []

afterAll(async () => {
  for (const server of servers) await server.stop()
  for (const server of servers) await removeDir(server.dataDir)
  for (const collector of collectors) await collector.close()
})

const start = async (env: Record<string, string>) => {
  const server = await startServer({ dataDir: await tempDataDir(), env })
  servers.push(server)
  const log: Log = { baseUrl: server.baseUrl, origin: ORIGIN, vkey: (await readFile(join(server.dataDir, "log.vkey"), "utf8")).trim() }
  return { server, agent: OutsideAgent.random(log) }
}

describe("traces of the write path (AICS_OTLP_URL)", () => {
  it("sends the write's spans, each a child of the one before, and the publisher's", async () => {
    const collector = await startCollector()
    collectors.push(collector)
    const { server, agent } = await start({ AICS_OTLP_URL: collector.url })
    const claimed = await agent.claim(`traced${Date.now() % 100000}`)
    expect(claimed.status).toBe(202)
    const index = claimed.json.entry.index as number

    const named = (name: string) => collector.spans.filter((span) => span.name === name)
    // The write's request span is the one whose trace holds the submit of this index.
    const submit = await pollUntil("the spans of the write", async () =>
      collector.spans.find((span) => span.name === "aics.sequencer.submit" && attribute(span, "aics.entry.index") === index))
    const trace = await pollUntil("the whole trace of the write", async () => {
      const spans = collector.spans.filter((span) => span.traceId === submit.traceId)
      return ["POST /v2/entries", "aics.write.checks", "aics.sequencer.batch", "aics.sequencer.decide", "aics.sequencer.append"]
          .every((name) => spans.some((span) => span.name === name))
        ? spans
        : undefined
    })
    const one = (name: string) => {
      const found = trace.filter((span) => span.name === name)
      expect(found, name).toHaveLength(1)
      return found[0]!
    }
    const request = one("POST /v2/entries")
    const checks = one("aics.write.checks")
    const batch = one("aics.sequencer.batch")
    const decide = one("aics.sequencer.decide")
    const append = one("aics.sequencer.append")

    expect(request.parentSpanId ?? "").toBe("")
    expect(checks.parentSpanId).toBe(request.spanId)
    expect(submit.parentSpanId).toBe(request.spanId)
    expect(batch.parentSpanId).toBe(submit.spanId)
    expect(decide.parentSpanId).toBe(batch.spanId)
    expect(append.parentSpanId).toBe(batch.spanId)

    expect(attribute(request, "http.response.status_code")).toBe(202)
    expect(attribute(request, "aics.outcome")).toBe("accepted")
    expect(attribute(checks, "aics.check.result")).toBe("passed")
    expect(attribute(checks, "aics.entry.type")).toBe("claim")
    expect(attribute(submit, "aics.outcome")).toBe("accepted")
    expect(attribute(batch, "aics.batch.size")).toBe(1)
    expect(attribute(batch, "aics.batch.outcome")).toBe("committed")
    expect(attribute(decide, "aics.decide.accepted")).toBe(1)
    expect(attribute(decide, "aics.entry.types")).toBe("claim")
    expect(attribute(append, "aics.append.leaves")).toBe(1)

    // The publisher's round that covers the write, a trace of its own.
    const published = await pollUntil("the publisher's span", async () =>
      named("aics.publish").find((span) => Number(attribute(span, "aics.tree.size")) > index))
    expect(published.parentSpanId ?? "").toBe("")
    expect(Number(attribute(published, "aics.publish.tiles"))).toBeGreaterThan(0)

    // A refused write is traced with its refusal.
    const replay = agent.prepare(agent.envelope("post", { channel: "general", body_hash: "", size: 0 }), null)
    await agent.submit(replay)
    expect((await agent.submit(replay)).status).toBe(409)
    await pollUntil("the refused write's span", async () =>
      collector.spans.find((span) => span.name === "POST /v2/entries" && attribute(span, "aics.outcome") === "nonce_reused"))
    expect(collector.requests.every((r) => r.path === "/v1/traces" && r.contentType.startsWith("application/json"))).toBe(true)
    await server.stop()
  })

  it("sends nothing without AICS_OTLP_URL", async () => {
    const collector = await startCollector()
    collectors.push(collector)
    const { server, agent } = await start({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url })
    expect((await agent.claim(`untraced${Date.now() % 100000}`)).status).toBe(202)
    await server.stop()
    expect(collector.requests).toHaveLength(0)
  })
})
