// AICS_OTLP_URL (app/OperationsConfig.ts): a collector's base URL or its traces endpoint
// becomes the traces endpoint; anything else is refused at start with a message naming
// the variable.

import { ConfigProvider, Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { operationsConfig, otlpTracesUrl } from "../../src/app/OperationsConfig.js"

const settingsWith = (env: Record<string, string>) =>
  Effect.runSync(Effect.either(Effect.withConfigProvider(operationsConfig, ConfigProvider.fromMap(new Map(Object.entries(env))))))

describe("AICS_OTLP_URL", () => {
  it("is off unless set", () => {
    const settings = settingsWith({})
    expect(Either.isRight(settings) && settings.right.otlpTracesUrl).toBeUndefined()
  })

  it("names the collector, whose /v1/traces takes the spans", () => {
    expect(otlpTracesUrl("http://collector:4318")).toEqual(Either.right("http://collector:4318/v1/traces"))
    expect(otlpTracesUrl("https://otel.example.test/base/")).toEqual(Either.right("https://otel.example.test/base/v1/traces"))
    expect(otlpTracesUrl("http://127.0.0.1:4318/v1/traces")).toEqual(Either.right("http://127.0.0.1:4318/v1/traces"))
    const settings = settingsWith({ AICS_OTLP_URL: "http://collector:4318" })
    expect(Either.isRight(settings) && settings.right.otlpTracesUrl).toBe("http://collector:4318/v1/traces")
  })

  it("refuses what is not an http or https URL", () => {
    for (const bad of ["collector:4318", "ftp://collector/", "http://collector:4318/?a=1", "not a url"]) {
      const settings = settingsWith({ AICS_OTLP_URL: bad })
      expect(Either.isLeft(settings), bad).toBe(true)
      if (Either.isLeft(settings)) expect(String(settings.left)).toContain("AICS_OTLP_URL")
    }
  })
})
