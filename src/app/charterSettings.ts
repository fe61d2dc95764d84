// The settings leaf 0 fixes (README's table; docs/operations.md "What the first start fixes
// for good"): the charter the first start writes promises every client the maximum merge
// delay (mmd_seconds, from AICS_MMD_SECONDS) and the notice period (notice_period_seconds,
// from AICS_NOTICE_PERIOD_SECONDS), and a later start keeps those promises whatever the
// variables say now. So the settings every part above the charter reads are leaf 0's: the
// publisher's window, the waits for a checkpoint, and /healthz (`tiles.mmd_seconds`, and
// `tiles_lagging` past twice it). A start on AICS_MMD_SECONDS=600 over a log that promised
// 1 s reported mmd_seconds 600 and called leaves 20 minutes late healthy.
//
// Why a warning and not a refusal: the variables set what a new log promises (as the notice
// period always did: "leaf 0 fixes it; later starts ignore this"), and nodes of one
// deployment, or a restart after an edit, would otherwise fail to start over a value that
// changes nothing. The line names the variable and leaf 0's value, so the edit is seen.

import { Effect, Layer } from "effect"
import { Charter } from "./Charter.js"
import { ServiceConfig, type ServiceSettings } from "./ServiceConfig.js"

/** The variables whose value leaf 0 fixes: the setting, and the charter's member and term. */
const FIXED_BY_LEAF_ZERO = [
  { variable: "AICS_MMD_SECONDS", member: "mmd_seconds", setting: "mmdSeconds" },
  { variable: "AICS_NOTICE_PERIOD_SECONDS", member: "notice_period_seconds", setting: "noticePeriodSeconds" }
] as const

/** ServiceConfig with leaf 0's promises in place of the variables', each difference said in one warning line. */
export const ChartedSettings: Layer.Layer<ServiceConfig, never, ServiceConfig | Charter> = Layer.effect(
  ServiceConfig,
  Effect.gen(function*() {
    const config = yield* ServiceConfig
    const { terms } = yield* Charter
    const settings: { -readonly [K in keyof ServiceSettings]: ServiceSettings[K] } = { ...config }
    for (const { variable, member, setting } of FIXED_BY_LEAF_ZERO) {
      const promised = terms[setting]
      if (config[setting] === promised) continue
      yield* Effect.logWarning(`${variable}=${config[setting]} is not leaf 0's ${member} ${promised}: leaf 0 fixes it, so this start keeps ${promised}`)
        .pipe(Effect.annotateLogs({ variable, configured: config[setting], leaf_0: promised }))
      settings[setting] = promised
    }
    return settings
  })
)
