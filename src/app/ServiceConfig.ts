// The operator's settings, read from the environment once at start (README "Configuration").
// Every value is checked here, so a typo stops the service with a message naming the
// variable instead of surfacing later as a strange failure.

import { Config, ConfigError, Context, Effect, Either, Layer, Option, Redacted } from "effect"
import { type AdmissionLimits, BUDGET_NAMES, BUDGETS, DEFAULT_CONNECTIONS_PER_ADDRESS, DEFAULT_REFUSAL_DELAY_MS, DEFAULT_REQUESTS_IN_FLIGHT_PER_ADDRESS } from "../domain/admission/budgets.js"
import { type Cidr, LOOPBACK_PROXIES, parseCidrList } from "../domain/admission/clientAddress.js"
import { DEFAULT_NOTICE_PERIOD_SECONDS } from "../domain/charter.js"
import { isDidKey } from "../domain/identity/didKey.js"
import type { GatePorts } from "../domain/discovery/site.js"
import type { NetworkTerms } from "../domain/sup/contributions.js"
import { witnessingConfig, type WitnessingSettings } from "./witnessSettings.js"
import { parseSupNetworks, type EvmNetworkSettings } from "./supNetworks.js"

export interface ServiceSettings {
  /** Folder of the filesystem storage: keys, log, bodies, tiles. */
  readonly dataDir: string
  readonly host: string
  readonly port: number
  /** The instance domain: names are `@name.<domain>`, the log key is published at `_aics.<domain>`. */
  readonly domain: string
  /** The log's origin line (C2SP tlog-checkpoint) and the key name of the log key. */
  readonly origin: string
  /** Maximum merge delay: a durable leaf is under a published checkpoint within this time. */
  readonly mmdSeconds: number
  /** How often the background check compares the published tiles with the log. */
  readonly tileCheckSeconds: number
  /**
   * Absolute URL of this service as clients reach it, without a path: every document, page,
   * the card and /tiles name it, and pages link root-relative (`/llms.txt`).
   */
  readonly publicUrl: string
  /** RFC 9116 Contact of security.txt (a mailto: or https: URI); when absent, none is claimed. */
  readonly securityContact?: string | undefined
  /**
   * Where agents get the aics client (CLI and `aics mcp`): the http(s) URL of the repository of
   * this service's source, named by /skill.md and /llms.txt (AICS_CLIENT_SOURCE); when absent,
   * they say to ask the operator.
   */
  readonly clientSource?: string | undefined
  /** Tile prefixes of mirrors, listed after the canonical one at /tiles. */
  readonly tileMirrors: ReadonlyArray<string>
  /** `@authority` values signed requests may name (lower case host[:port], default port left out). */
  readonly authorities: ReadonlyArray<string>
  /** PostgreSQL for the log, bodies, nonces and read cursors; the filesystem when absent. */
  readonly databaseUrl: Redacted.Redacted<string> | undefined
  /** Connections of the PostgreSQL pool. */
  readonly databasePool: number
  /** Worker threads for the stateless checks of writes; 0 runs them on the event loop. */
  readonly checkWorkers: number
  /** Bytes of unexpired DM and capsule ciphertext the service keeps at most. */
  readonly ciphertextBudgetBytes: number
  /** Owner key (did:key) chosen by the operator; when absent, first start makes one. */
  readonly ownerKid: string | undefined
  /** A JSON file served byte for byte as the SUP asset descriptor; the built-in one when absent. */
  readonly supAssetFile?: string | undefined
  /** The notice period a new log's charter (leaf 0) announces; a later start keeps leaf 0's. */
  readonly noticePeriodSeconds: number
  /** Contributions of SUP (docs/protocol.md section 13). */
  readonly contributions: ContributionSettings
  /** The text gate's TCP ports (docs/protocol.md section 17); absent: both off. */
  readonly gate?: GateSettings | undefined
  /** Witnessing, both ways (witnessSettings.ts); absent: no witnessed logs, no witnesses. */
  readonly witnessing?: WitnessingSettings | undefined
  /** Fair admission's budgets, proof of work and connection caps (docs/protocol.md "Fair admission"); absent: the defaults. */
  readonly limits?: AdmissionLimits | undefined
  /** Peers whose X-Forwarded-For / Forwarded name the client (AICS_TRUSTED_PROXIES); absent: loopback. */
  readonly trustedProxies?: ReadonlyArray<Cidr> | undefined
  /** GET /v2/entries/{index}, POST /v2/entries and GET /v2/stream answered beside HttpApi (AICS_LEAN_ROUTES, adapters/http/leanEntryRoute.ts, leanWriteRoute.ts, leanStreamRoute.ts); absent: on. */
  readonly leanRoutes?: boolean | undefined
}

export interface GateSettings {
  /** Plaintext TCP port (7701 in docs/spec/service.md), key identities only; 0: off. */
  readonly port: number
  /** TLS TCP port (7700 in docs/spec/service.md); 0: off. */
  readonly tlsPort: number
  /** PEM files of the TLS certificate (chain) and its private key; required when tlsPort is set. */
  readonly tlsCert: string | undefined
  readonly tlsKey: string | undefined
}

export interface ContributionSettings {
  /** Where contributions may be sent; none: contributions are closed. */
  readonly networks: ReadonlyArray<NetworkTerms>
  /** The networks among them checked on an EVM chain over JSON-RPC (the others: the ledger). */
  readonly evm: ReadonlyArray<EvmNetworkSettings>
  /** The JSON-lines ledger of transfers an operator's watcher appends to. */
  readonly ledger: string
  /** How long an intent stays valid: its transfer must come by `expires`. */
  readonly intentSeconds: number
  /** How long after `expires` an intent may still be claimed (`claim_until`). */
  readonly claimSeconds: number
  /** Take intents and claims over plain HTTP (a local test instance only). */
  readonly allowHttp: boolean
}

/** Where the canonical tiles are served, below the public URL. */
export const TILE_PREFIX = "/tiles/"

/** The tile prefixes of /tiles and the card: the canonical one first, then the mirrors. */
export const tilePrefixes = (settings: ServiceSettings): ReadonlyArray<string> =>
  [`${settings.publicUrl}${TILE_PREFIX}`, ...settings.tileMirrors]

/** The gate's TCP ports that are open (0: off), the one source for every text that names them. */
export const gatePortsOf = (settings: ServiceSettings): GatePorts =>
  ({ tls: settings.gate?.tlsPort ?? 0, plaintext: settings.gate?.port ?? 0 })

/** Where AICS_DATABASE_URL points, without its password: what an operator needs to find the database. */
export const databaseWhere = (url: Redacted.Redacted<string>): string => {
  try {
    const parsed = new URL(Redacted.value(url))
    return `${parsed.host || parsed.searchParams.get("host") || "the default host"}${parsed.pathname}`
  } catch {
    return "an address that is not a URL"
  }
}

/**
 * How the start's refusals name the log: its data folder, or, on PostgreSQL, its database
 * (the data folder then holds only the keys).
 */
export const logLocation = (settings: Pick<ServiceSettings, "dataDir" | "databaseUrl">): string =>
  settings.databaseUrl === undefined
    ? `the log in ${settings.dataDir}`
    : `the log in the database at ${databaseWhere(settings.databaseUrl)} (AICS_DATABASE_URL)`

export class ServiceConfig extends Context.Tag("aics/ServiceConfig")<ServiceConfig, ServiceSettings>() {
  static readonly fromEnv = Layer.effect(ServiceConfig, Effect.suspend(() => settingsConfig))
  static readonly layer = (settings: ServiceSettings) => Layer.succeed(ServiceConfig, settings)
}

// A hostname or IP literal, lower case: what an origin and the domain may contain.
const DOMAIN = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/
// C2SP tlog-checkpoint: the origin is a schema-less URL, no spaces or plus signs (it is also
// the note key name), conventionally <host>/<path>.
const ORIGIN = /^[a-z0-9.-]+(?::[0-9]+)?(?:\/[A-Za-z0-9._~-]+)*$/

// RFC 9421 @authority: the Host as sent, lower case, without a default port.
const AUTHORITY = /^(?:\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::[0-9]{1,5})?$/

/**
 * `<host>:<port>` and `localhost:<port>`, with the port left out when it is 80, and the
 * public URL's host (its port left out when it is its scheme's): what a client that reaches
 * the service by its public URL signs, behind a proxy too.
 */
const defaultAuthorities = (host: string, port: number, publicUrl: string): ReadonlyArray<string> => {
  const withPort = (h: string) => (port === 80 ? h : `${h}:${port}`)
  const bracketed = host.includes(":") ? `[${host.toLowerCase()}]` : host.toLowerCase()
  return [...new Set([withPort(bracketed), withPort("localhost"), new URL(publicUrl).host.toLowerCase()])]
}

const checked = <A>(config: Config.Config<A>, name: string, ok: (a: A) => boolean, rule: string) =>
  Config.mapOrFail(config, (value) =>
    ok(value) ? Either.right(value) : Either.left(ConfigError.InvalidData([name], `${name} ${rule}, got ${JSON.stringify(value)}`)))

const intBetween = (name: string, min: number, max: number, fallback: number) =>
  checked(Config.withDefault(Config.integer(name), fallback), name, (n) => n >= min && n <= max, `must be an integer from ${min} to ${max}`)

/** AICS_PUBLIC_URL: an absolute http(s) URL naming only scheme, host and port ("/" allowed). */
const rootUrl = (text: string) => {
  if (!absoluteUrl(text)) return false
  const url = new URL(text)
  return url.pathname === "/" && url.search === "" && url.hash === "" && url.username === "" && url.password === "" &&
    !/[?#]/.test(text)
}

/** AICS_SECURITY_CONTACT (RFC 9116 section 2.5.3): `mailto:` with an address, or an `https:` URL. */
export const securityContactUri = (text: string): boolean => {
  try {
    const url = new URL(text)
    if (url.protocol === "mailto:") return /^[^@\s]+@[^@\s]+$/.test(decodeURIComponent(url.pathname))
    return url.protocol === "https:" && url.hostname !== ""
  } catch {
    return false
  }
}

/**
 * AICS_CLIENT_SOURCE: an http(s) URL with a host (what `git clone` takes), without a user name
 * or password, which every agent reading /skill.md would see.
 */
export const clientSourceUrl = (text: string): boolean => {
  try {
    const url = new URL(text)
    return (url.protocol === "https:" || url.protocol === "http:") && url.hostname !== "" && url.username === "" && url.password === "" &&
      !/\s/.test(text)
  } catch {
    return false
  }
}

/** Why AICS_CLIENT_SOURCE is refused; a value with credentials is not repeated (it holds a secret). */
const clientSourceProblem = (text: string): string => {
  const rule = "AICS_CLIENT_SOURCE must be the http(s) URL of the repository holding the aics client's source (git clone takes it), with no user name or password"
  let credentials = false
  try {
    const url = new URL(text)
    credentials = url.username !== "" || url.password !== ""
  } catch {
    // Not a URL: said with the value.
  }
  return credentials ? `${rule}: it names a user name or password, which every agent reading /skill.md would see` : `${rule}, got ${JSON.stringify(text)}`
}

/** A warning for a public URL no client can reach: a wildcard listening address as its host. */
export const publicUrlWarning = (publicUrl: string): string | undefined => {
  const host = new URL(publicUrl).hostname
  return host === "0.0.0.0" || host === "[::]" || host === "::"
    ? `AICS_PUBLIC_URL is ${publicUrl}: ${host} is where the service listens, not an address clients reach; every document, page, the card and /tiles will name it. Set AICS_PUBLIC_URL to the URL clients use.`
    : undefined
}

/** True when `text` parses as a URL of one of `schemes` ("https:"). */
const urlOf = (schemes: ReadonlyArray<string>) => (text: string): boolean => {
  try {
    return schemes.includes(new URL(text).protocol)
  } catch {
    return false
  }
}

const absoluteUrl = urlOf(["http:", "https:"])
const postgresUrl = urlOf(["postgres:", "postgresql:"])

/** AICS_RATE_LIMITS, each budget's AICS_LIMIT_*, AICS_CLAIM_POW_BITS, AICS_CONNECTIONS_PER_ADDRESS, AICS_REQUESTS_IN_FLIGHT_PER_ADDRESS, AICS_LIMIT_NODES. */
const limitsConfig = Effect.gen(function*() {
  const enabled = yield* checked(Config.withDefault(Config.string("AICS_RATE_LIMITS"), "on"), "AICS_RATE_LIMITS", (v) => v === "on" || v === "off", "must be on or off")
  const capacities: Record<string, number> = {}
  for (const name of BUDGET_NAMES) capacities[name] = yield* intBetween(BUDGETS[name].env, 0, 1_000_000_000, BUDGETS[name].defaultCapacity)
  return {
    enabled: enabled === "on",
    capacities: capacities as AdmissionLimits["capacities"],
    claimWorkBits: yield* intBetween("AICS_CLAIM_POW_BITS", 0, 40, 0),
    connectionsPerAddress: yield* intBetween("AICS_CONNECTIONS_PER_ADDRESS", 1, 1024, DEFAULT_CONNECTIONS_PER_ADDRESS),
    requestsInFlightPerAddress: yield* intBetween("AICS_REQUESTS_IN_FLIGHT_PER_ADDRESS", 1, 1024, DEFAULT_REQUESTS_IN_FLIGHT_PER_ADDRESS),
    nodes: yield* intBetween("AICS_LIMIT_NODES", 1, 1024, 1),
    refusalDelayMs: yield* intBetween("AICS_LIMIT_REFUSAL_DELAY_MS", 0, 10_000, DEFAULT_REFUSAL_DELAY_MS)
  } satisfies AdmissionLimits
})

const trustedProxiesConfig = Config.mapOrFail(Config.option(Config.string("AICS_TRUSTED_PROXIES")), (text) => {
  if (Option.isNone(text)) return Either.right(LOOPBACK_PROXIES)
  const parsed = parseCidrList(text.value)
  return "invalid" in parsed
    ? Either.left(ConfigError.InvalidData(["AICS_TRUSTED_PROXIES"], `AICS_TRUSTED_PROXIES must be a comma list of CIDRs (10.0.0.0/8, 2001:db8::/32) or addresses, got ${JSON.stringify(parsed.invalid)}`))
    : Either.right(parsed.cidrs)
})

const settingsConfig = Effect.gen(function*() {
  const dataDir = yield* Config.withDefault(Config.nonEmptyString("AICS_DATA_DIR"), "./data")
  const host = yield* Config.withDefault(Config.nonEmptyString("AICS_HOST"), "127.0.0.1")
  // Port 0 asks the system for a free port: main.ts chooses it before these settings are read again.
  const port = yield* intBetween("AICS_PORT", 0, 65535, 8080)
  const domain = yield* checked(Config.withDefault(Config.string("AICS_DOMAIN"), "localhost"), "AICS_DOMAIN",
    (d) => DOMAIN.test(d), "must be a lower-case host name")
  const origin = yield* checked(Config.withDefault(Config.string("AICS_ORIGIN"), `${domain}/aics`), "AICS_ORIGIN",
    (o) => ORIGIN.test(o), "must look like <host>/<path> (no scheme, spaces or '+')")
  const mmdSeconds = yield* intBetween("AICS_MMD_SECONDS", 1, 3600, 1)
  const tileCheckSeconds = yield* intBetween("AICS_TILE_CHECK_SECONDS", 1, 86400, 30)
  const publicUrl = yield* checked(
    Config.withDefault(Config.string("AICS_PUBLIC_URL"), `http://${host.includes(":") ? `[${host}]` : host}:${port}`),
    "AICS_PUBLIC_URL", rootUrl,
    "must be an absolute http(s) URL with no user name or password, path, query or fragment (pages link root-relative, so the service is served at the root of its host)")
  const warning = publicUrlWarning(publicUrl)
  if (warning !== undefined) yield* Effect.logWarning(warning)
  const securityContact = yield* Config.mapOrFail(Config.option(Config.string("AICS_SECURITY_CONTACT")), (contact) =>
    Option.isNone(contact) || securityContactUri(contact.value)
      ? Either.right(contact)
      : Either.left(ConfigError.InvalidData(["AICS_SECURITY_CONTACT"], `AICS_SECURITY_CONTACT must be a mailto: address or an https: URL, got ${JSON.stringify(contact.value)}`)))
  const clientSource = yield* Config.mapOrFail(Config.option(Config.string("AICS_CLIENT_SOURCE")), (source) =>
    Option.isNone(source) || clientSourceUrl(source.value)
      ? Either.right(source)
      : Either.left(ConfigError.InvalidData(["AICS_CLIENT_SOURCE"], clientSourceProblem(source.value))))
  const tileMirrors = yield* checked(
    Config.map(Config.withDefault(Config.string("AICS_TILE_MIRRORS"), ""),
      (s) => s.split(",").map((m) => m.trim()).filter((m) => m.length > 0)),
    "AICS_TILE_MIRRORS", (ms) => ms.every(absoluteUrl), "must be a comma list of absolute http(s) URLs")
  const authorities = yield* checked(
    Config.map(Config.withDefault(Config.string("AICS_AUTHORITY"), ""), (s) => s.split(",").map((a) => a.trim()).filter((a) => a.length > 0)),
    "AICS_AUTHORITY", (as) => as.every((a) => AUTHORITY.test(a)), "must be a comma list of lower-case host[:port]")
  // Checked here so that a mistyped value names its variable, not the pool's "Failed to connect";
  // the value itself is never printed (it may hold a password).
  const databaseUrl = yield* Config.mapOrFail(Config.option(Config.redacted("AICS_DATABASE_URL")), (url) =>
    Option.isNone(url) || postgresUrl(Redacted.value(url.value))
      ? Either.right(url)
      : Either.left(ConfigError.InvalidData(["AICS_DATABASE_URL"], "AICS_DATABASE_URL must be a postgres:// (or postgresql://) URL: postgres://user:password@host:5432/database")))
  const databasePool = yield* intBetween("AICS_DATABASE_POOL", 1, 100, 10)
  const checkWorkers = yield* intBetween("AICS_CHECK_WORKERS", 0, 16, 1)
  const ciphertextBudgetBytes = yield* intBetween("AICS_CIPHERTEXT_BUDGET_BYTES", 0, Number.MAX_SAFE_INTEGER, 10 * 1024 ** 3)
  // Checked with the settings, so a mistyped kid is refused before the start makes any key.
  // The value as given in the refusal, not the Option that holds it.
  const ownerKid = yield* Config.mapOrFail(Config.option(Config.nonEmptyString("AICS_OWNER_KID")), (kid) =>
    Option.isNone(kid) || isDidKey(kid.value)
      ? Either.right(kid)
      : Either.left(ConfigError.InvalidData(["AICS_OWNER_KID"], `AICS_OWNER_KID must be the did:key of an Ed25519 key (did:key:z6Mk...), got ${JSON.stringify(kid.value)}`)))
  const supAssetFile = yield* Config.option(Config.nonEmptyString("AICS_SUP_ASSET_FILE"))
  const noticePeriodSeconds = yield* intBetween("AICS_NOTICE_PERIOD_SECONDS", 1, 10 * 365 * 86_400, DEFAULT_NOTICE_PERIOD_SECONDS)
  const networks = yield* Config.mapOrFail(Config.withDefault(Config.string("AICS_SUP_NETWORKS"), ""), (text) =>
    Either.mapLeft(parseSupNetworks(text), (why) => ConfigError.InvalidData(["AICS_SUP_NETWORKS"], `AICS_SUP_NETWORKS ${why}`)))
  const contributions: ContributionSettings = {
    networks: networks.terms,
    evm: networks.evm,
    ledger: yield* Config.withDefault(Config.nonEmptyString("AICS_SUP_LEDGER"), `${dataDir.replace(/\/+$/, "")}/chain/transfers.jsonl`),
    intentSeconds: yield* intBetween("AICS_SUP_INTENT_SECONDS", 1, 7 * 86_400, 3600),
    claimSeconds: yield* intBetween("AICS_SUP_CLAIM_SECONDS", 0, 365 * 86_400, 7 * 86_400),
    allowHttp: yield* Config.withDefault(Config.boolean("AICS_SUP_ALLOW_HTTP"), false)
  }
  // Documented (docs/protocol.md 13.1, /contribute's `transport`), but likely not meant.
  if (networks.terms.length > 0 && !contributions.allowHttp && !publicUrl.startsWith("https://")) {
    yield* Effect.logWarning(`AICS_SUP_NETWORKS opens contributions, but AICS_PUBLIC_URL ${publicUrl} is not https and AICS_SUP_ALLOW_HTTP is not set: every intent and claim will answer 403 https_required`)
  }
  const gate: GateSettings = {
    port: yield* intBetween("AICS_GATE_PORT", 0, 65535, 0),
    tlsPort: yield* intBetween("AICS_GATE_TLS_PORT", 0, 65535, 0),
    tlsCert: Option.getOrUndefined(yield* Config.option(Config.nonEmptyString("AICS_GATE_TLS_CERT"))),
    tlsKey: Option.getOrUndefined(yield* Config.option(Config.nonEmptyString("AICS_GATE_TLS_KEY")))
  }
  if (gate.tlsPort !== 0 && (gate.tlsCert === undefined || gate.tlsKey === undefined)) {
    return yield* Effect.fail(ConfigError.InvalidData(["AICS_GATE_TLS_PORT"], "AICS_GATE_TLS_PORT needs AICS_GATE_TLS_CERT and AICS_GATE_TLS_KEY (PEM files)"))
  }
  if (gate.tlsPort === 0 && (gate.tlsCert !== undefined || gate.tlsKey !== undefined)) {
    yield* Effect.logWarning("AICS_GATE_TLS_CERT or AICS_GATE_TLS_KEY is set but AICS_GATE_TLS_PORT is not: the text gate has no TLS listener (set AICS_GATE_TLS_PORT to open one)")
  }
  const limits = yield* limitsConfig
  // The budgets are divided among the nodes (Admission.ts): on the data folder there is only ever one.
  if (limits.nodes > 1 && Option.isNone(databaseUrl)) {
    return yield* Effect.fail(ConfigError.InvalidData(["AICS_LIMIT_NODES"],
      `AICS_LIMIT_NODES is ${limits.nodes}, but without AICS_DATABASE_URL the service is one process on its data folder: each budget would be ${limits.nodes} times too small (leave it unset)`))
  }
  const witnessing = yield* witnessingConfig(domain)
  const leanRoutes = yield* checked(Config.withDefault(Config.string("AICS_LEAN_ROUTES"), "on"), "AICS_LEAN_ROUTES", (v) => v === "on" || v === "off", "must be on or off")
  return {
    leanRoutes: leanRoutes === "on",
    gate,
    witnessing,
    dataDir, host, port, domain, origin, mmdSeconds, tileCheckSeconds,
    publicUrl: publicUrl.replace(/\/+$/, ""),
    securityContact: Option.getOrUndefined(securityContact),
    clientSource: Option.getOrUndefined(clientSource),
    tileMirrors,
    authorities: authorities.length > 0 ? authorities : defaultAuthorities(host, port, publicUrl),
    databaseUrl: Option.getOrUndefined(databaseUrl),
    databasePool,
    checkWorkers,
    ciphertextBudgetBytes,
    ownerKid: ownerKid._tag === "Some" ? ownerKid.value : undefined,
    noticePeriodSeconds,
    supAssetFile: Option.getOrUndefined(supAssetFile),
    contributions,
    limits,
    trustedProxies: yield* trustedProxiesConfig
  } satisfies ServiceSettings
})
