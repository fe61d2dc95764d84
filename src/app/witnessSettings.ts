// The witnessing settings (README "Configuration"), both directions of C2SP tlog-witness:
//
//   AICS_WITNESS_NAME     this service's witness key name (default <domain>/witness)
//   AICS_WITNESS_LOGS     the logs this service witnesses, comma-separated:
//                         `<log vkey>` (the origin is the key's name) or `<origin> <log vkey>`
//   AICS_WITNESSES        the witnesses this log asks for cosignatures, comma-separated:
//                         `<add-checkpoint URL prefix> <witness vkey>` (type 0x04 key)
//   AICS_WITNESS_QUORUM   cosignatures a checkpoint needs to count as witnessed (default:
//                         every configured witness); /healthz says when it is short
//
// Verifier keys are checked here for shape; their key IDs are checked against the keys
// when the witness and the collector start (they need SHA-256, the Crypto port).

import { Config, ConfigError, Effect, Either } from "effect"

export interface WitnessedLogSetting {
  readonly origin: string
  readonly vkey: string
}

export interface WitnessSetting {
  /** The witness's submission prefix: add-checkpoint is POSTed to `<url>/add-checkpoint`. */
  readonly url: string
  /** The witness's cosignature verifier key, `<name>+<key ID>+<B64(0x04 || key)>`. */
  readonly vkey: string
}

export interface WitnessingSettings {
  readonly name: string
  readonly logs: ReadonlyArray<WitnessedLogSetting>
  readonly witnesses: ReadonlyArray<WitnessSetting>
  readonly quorum: number
}

const VKEY = /^[^\s+]+\+[0-9a-f]{8}\+[A-Za-z0-9+/]+=*$/
const NAME = /^[^\s+]+$/

const entries = (text: string) => text.split(",").map((e) => e.trim()).filter((e) => e.length > 0)

const invalid = (name: string, why: string) => ConfigError.InvalidData([name], `${name} ${why}`)

export const parseWitnessedLogs = (text: string): Either.Either<ReadonlyArray<WitnessedLogSetting>, string> => {
  const logs: Array<WitnessedLogSetting> = []
  for (const entry of entries(text)) {
    const parts = entry.split(/\s+/)
    const vkey = parts[parts.length - 1]!
    if (parts.length > 2 || !VKEY.test(vkey)) return Either.left(`has ${JSON.stringify(entry)}: not "[<origin> ]<name>+<key ID>+<key>"`)
    const origin = parts.length === 2 ? parts[0]! : vkey.slice(0, vkey.indexOf("+"))
    if (logs.some((l) => l.origin === origin)) return Either.left(`names origin ${origin} twice`)
    logs.push({ origin, vkey })
  }
  return Either.right(logs)
}

export const parseWitnesses = (text: string): Either.Either<ReadonlyArray<WitnessSetting>, string> => {
  const witnesses: Array<WitnessSetting> = []
  for (const entry of entries(text)) {
    const parts = entry.split(/\s+/)
    if (parts.length !== 2 || !VKEY.test(parts[1]!)) return Either.left(`has ${JSON.stringify(entry)}: not "<URL> <name>+<key ID>+<key>"`)
    let url: URL
    try {
      url = new URL(parts[0]!)
    } catch {
      return Either.left(`has ${JSON.stringify(parts[0])}: not a URL`)
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return Either.left(`has ${parts[0]}: not http(s)`)
    witnesses.push({ url: parts[0]!.replace(/\/+$/, ""), vkey: parts[1]! })
  }
  return Either.right(witnesses)
}

export const witnessingConfig = (domain: string) =>
  Effect.gen(function*() {
    const name = yield* Config.mapOrFail(Config.withDefault(Config.string("AICS_WITNESS_NAME"), `${domain}/witness`), (n) =>
      NAME.test(n) ? Either.right(n) : Either.left(invalid("AICS_WITNESS_NAME", "must be a key name (no spaces or '+')")))
    const logs = yield* Config.mapOrFail(Config.withDefault(Config.string("AICS_WITNESS_LOGS"), ""), (text) =>
      Either.mapLeft(parseWitnessedLogs(text), (why) => invalid("AICS_WITNESS_LOGS", why)))
    const witnesses = yield* Config.mapOrFail(Config.withDefault(Config.string("AICS_WITNESSES"), ""), (text) =>
      Either.mapLeft(parseWitnesses(text), (why) => invalid("AICS_WITNESSES", why)))
    const quorum = yield* Config.withDefault(Config.integer("AICS_WITNESS_QUORUM"), witnesses.length)
    if (quorum < 0 || quorum > witnesses.length) {
      return yield* Effect.fail(invalid("AICS_WITNESS_QUORUM", `must be from 0 to the number of AICS_WITNESSES (${witnesses.length}), got ${quorum}`))
    }
    return { name, logs, witnesses, quorum } satisfies WitnessingSettings
  })

/** No witnessing: the default of settings built by hand (tests). */
export const noWitnessing = (domain: string): WitnessingSettings => ({ name: `${domain}/witness`, logs: [], witnesses: [], quorum: 0 })
