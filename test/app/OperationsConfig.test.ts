// AICS_OTLP_URL, AICS_HEAP_GROWTH_PERCENT and AICS_MEMORY_TARGET_MIB (app/OperationsConfig.ts): a collector's base
// URL or its traces endpoint becomes the traces endpoint; the heap's growth is a whole
// number of per cent; anything else is refused at start with a message naming the variable.

import { ConfigProvider, Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { DEFAULT_HEAP_GROWTH_PERCENT, DEFAULT_MEMORY_TARGET_MIB, LEAST_MEMORY_TARGET_MIB, MAX_HEAP_GROWTH_PERCENT, operationsConfig, otlpTracesUrl } from "../../src/app/OperationsConfig.js"

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

describe("AICS_HEAP_GROWTH_PERCENT", () => {
  it("is 0 (not fixed: the memory target, if any, decides) unless set, and takes a growth up to 300%", () => {
    const settings = settingsWith({})
    expect(Either.isRight(settings) && settings.right.heapGrowthPercent).toBe(DEFAULT_HEAP_GROWTH_PERCENT)
    expect(DEFAULT_HEAP_GROWTH_PERCENT).toBe(0)
    const suggested = settingsWith({ AICS_HEAP_GROWTH_PERCENT: "75" })
    expect(Either.isRight(suggested) && suggested.right.heapGrowthPercent).toBe(75)
    const most = settingsWith({ AICS_HEAP_GROWTH_PERCENT: String(MAX_HEAP_GROWTH_PERCENT) })
    expect(Either.isRight(most) && most.right.heapGrowthPercent).toBe(MAX_HEAP_GROWTH_PERCENT)
  })

  it("refuses what is not a whole number from 0 to 300, naming the variable", () => {
    for (const bad of ["-1", "301", "12.5", "half"]) {
      const settings = settingsWith({ AICS_HEAP_GROWTH_PERCENT: bad })
      expect(Either.isLeft(settings), bad).toBe(true)
      if (Either.isLeft(settings)) expect(String(settings.left)).toContain("AICS_HEAP_GROWTH_PERCENT")
    }
  })
})

describe("AICS_MEMORY_TARGET_MIB", () => {
  it("is 384 MiB unless set, and takes 0 (V8's own growth) or a target from 128 MiB", () => {
    const settings = settingsWith({})
    expect(Either.isRight(settings) && settings.right.memoryTargetMiB).toBe(DEFAULT_MEMORY_TARGET_MIB)
    expect(DEFAULT_MEMORY_TARGET_MIB).toBe(384)
    for (const good of [0, LEAST_MEMORY_TARGET_MIB, 384, 2048]) {
      const set = settingsWith({ AICS_MEMORY_TARGET_MIB: String(good) })
      expect(Either.isRight(set) && set.right.memoryTargetMiB).toBe(good)
    }
  })

  it("refuses what is not 0 or a whole number of MiB from 128, naming the variable", () => {
    for (const bad of ["-1", "64", "127", "300.5", "lots"]) {
      const settings = settingsWith({ AICS_MEMORY_TARGET_MIB: bad })
      expect(Either.isLeft(settings), bad).toBe(true)
      if (Either.isLeft(settings)) expect(String(settings.left)).toContain("AICS_MEMORY_TARGET_MIB")
    }
  })
})
