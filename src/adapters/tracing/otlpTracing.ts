// The OTLP exporter of the write path's traces (app/Tracing.ts; AICS_OTLP_URL): Effect's own
// tracer from @effect/opentelemetry's OtlpTracer, which needs no OpenTelemetry SDK, sending
// batches of spans as OTLP JSON over HTTP (every OTLP/HTTP collector takes JSON: Jaeger,
// Tempo, the OpenTelemetry Collector). Spans are sent every EXPORT_INTERVAL, or sooner when
// 1,000 wait; a collector that fails is retried, then left alone for a minute, and the
// service goes on either way; what is waiting at shutdown is sent before the process ends.
// Only main.ts provides it, and only when AICS_OTLP_URL is set: without it there is no
// tracer layer at all.

import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization"
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer"
import { Layer } from "effect"
import { TracingOnLive } from "../../app/Tracing.js"

const EXPORT_INTERVAL = "2 seconds"

export const OtlpTracingLive = (options: { readonly tracesUrl: string; readonly serviceVersion: string }): Layer.Layer<never> =>
  Layer.merge(
    OtlpTracer.layer({
      url: options.tracesUrl,
      resource: { serviceName: "aics", serviceVersion: options.serviceVersion },
      exportInterval: EXPORT_INTERVAL
    }).pipe(Layer.provide(OtlpSerialization.layerJson), Layer.provide(FetchHttpClient.layer)),
    TracingOnLive
  )
