// HTTP to the service with the platform's fetch. Paths are resolved under the service URL
// (a URL with a path prefix keeps it); an answer other than the expected status becomes an
// error of the kind its status says (unexpectedAnswer: not_found, usage, refused, else
// protocol) that quotes the RFC 9457 problem's code and detail when there is one.

import { ClientError, protocolError, usageError } from "./errors.js"

export interface Service {
  /** The service URL, ending in "/". */
  readonly base: URL
  readonly fetch: typeof globalThis.fetch
  /** Per request, in milliseconds. */
  readonly timeoutMs: number
  /**
   * Whether an unsigned read the service answers 429 is sent again after its Retry-After
   * (send): for a batch of thousands of reads, as `aics audit` asks (withPatientReads).
   */
  readonly patientReads?: boolean
}

/** The service, its unsigned reads waiting out the address's budget rather than failing (an audit's thousands of requests). */
export const withPatientReads = (service: Service): Service => ({ ...service, patientReads: true })

export const serviceAt = (url: string, fetchImpl: typeof globalThis.fetch = globalThis.fetch): Service => {
  let base: URL
  try {
    base = new URL(url)
  } catch {
    throw usageError(`not a URL: ${JSON.stringify(url)}`)
  }
  if (base.protocol !== "http:" && base.protocol !== "https:") throw usageError(`not an http(s) URL: ${url}`)
  if (base.search !== "" || base.hash !== "") throw usageError(`the service URL takes no query or fragment: ${url}`)
  if (!base.pathname.endsWith("/")) base.pathname += "/"
  return { base, fetch: fetchImpl, timeoutMs: 30_000 }
}

/** The absolute URL of a service path such as "/checkpoint". */
export const endpoint = (service: Service, path: string): URL => new URL(path.replace(/^\/+/, ""), service.base)

/**
 * How a request fails on a kept-alive connection the service had already closed: undici's
 * "other side closed" (UND_ERR_SOCKET), a reset, a broken pipe. A process whose event loop
 * was held past the service's keep-alive (65 s: a long computation between two requests)
 * takes such a connection from its pool before it has seen the close.
 */
const STALE_CONNECTION = new Set(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE"])

/**
 * Whether a request may be sent again after a stale connection failed it: a GET or HEAD,
 * which changes nothing, and unsigned, since a signed one's nonce may have reached the
 * service and would be refused as a replay the second time.
 */
const mayResend = (init: RequestInit): boolean =>
  ((init.method ?? "GET") === "GET" || init.method === "HEAD") && !new Headers(init.headers).has("signature")

/** Retry-After in delta-seconds (RFC 9110 10.2.3), as the service sends it; undefined for a date or none. */
export const retryAfterSeconds = (header: string | null): number | undefined =>
  header !== null && /^\d{1,9}$/.test(header.trim()) ? Number(header.trim()) : undefined

/** The longest Retry-After a patient read waits at once, and in all (then the 429 is the answer). */
const PATIENT_WAIT_S = 60
const PATIENT_WAIT_TOTAL_S = 600

/**
 * A request to the service. An unsigned read answered 429 (the address's requests budget
 * spent, app/Admission.ts) is sent again once its Retry-After has passed when the service
 * has patientReads, for as long as each wait is at most PATIENT_WAIT_S and all of them
 * (a second at least each) PATIENT_WAIT_TOTAL_S: a batch of reads (an audit of a log of 100,000 entries asks some
 * 3,000, past the 1,200 a minute a service allows an address by default) goes at the pace
 * the service sets rather than failing after minutes of work. Anything else is answered as it comes.
 */
export const send = async (service: Service, path: string, init: RequestInit = {}): Promise<Response> => {
  let waited = 0
  for (;;) {
    const response = await sendOnce(service, path, init)
    const wait = service.patientReads === true && response.status === 429 && mayResend(init)
      ? retryAfterSeconds(response.headers.get("retry-after"))
      : undefined
    if (wait === undefined || wait > PATIENT_WAIT_S) return response
    // At least a second each time: a service answering "Retry-After: 0" to every try must not
    // hold the client in a loop of requests that never ends.
    const seconds = Math.max(1, wait)
    if (waited + seconds > PATIENT_WAIT_TOTAL_S) return response
    await response.body?.cancel()
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000))
    waited += seconds
  }
}

const sendOnce = async (service: Service, path: string, init: RequestInit): Promise<Response> => {
  const url = endpoint(service, path)
  const attempt = () => service.fetch(url, { ...init, redirect: "error", signal: AbortSignal.timeout(service.timeoutMs) })
  try {
    return await attempt()
  } catch (error) {
    if (!(mayResend(init) && codesOf(error).some((code) => STALE_CONNECTION.has(code)))) throw unreachable(init.method ?? "GET", url, error)
  }
  // Once more, on a new connection: the pool has dropped the one that failed.
  try {
    return await attempt()
  } catch (error) {
    throw unreachable(init.method ?? "GET", url, error)
  }
}

/**
 * A request that got no answer. `failure` is what happened without the hint the message adds;
 * `mayHaveArrived` is false only when the request cannot have reached the service (the
 * connection was never made: refused, no such host, a TLS certificate refused), so a write's
 * caller knows whether the log may hold it (write.ts asks the log then).
 */
export class NoAnswer extends ClientError {
  constructor(readonly failure: string, readonly mayHaveArrived: boolean) {
    super("network", `${failure} (is the service there? --server or AICS_SERVER)`)
  }
}

/** Causes (Node's and undici's codes) that leave no connection, so no request sent: anything else may have been sent. */
const NOT_CONNECTED = new Set([
  "ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EAI_NONAME", "ENETUNREACH", "EHOSTUNREACH", "EADDRNOTAVAIL", "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_INVALID_ARG", "ERR_INVALID_URL"
])

const codesOf = (error: unknown): ReadonlyArray<string> => {
  if (!(error instanceof Error)) return []
  const code: unknown = (error as { code?: unknown }).code
  const own = typeof code === "string" ? [code] : []
  // Happy eyeballs tries each address: an AggregateError of one refusal each.
  const inner = error instanceof AggregateError ? error.errors.flatMap(codesOf) : []
  return [...own, ...inner, ...codesOf(error.cause)]
}

/** Whether the request may have reached the service: false only for a connection never made. */
export const mayHaveArrived = (error: unknown): boolean => {
  const codes = codesOf(error)
  const tls = (code: string) => code.startsWith("ERR_TLS_") || code.startsWith("CERT_") || code.includes("SELF_SIGNED") || code.startsWith("UNABLE_TO_")
  // fetch refuses the ports the Fetch standard blocks before connecting, with no code.
  const blockedPort = error instanceof Error && error.cause instanceof Error && error.cause.message === "bad port"
  return !blockedPort && !codes.some((code) => NOT_CONNECTED.has(code) || tls(code))
}

/** A request that got no answer: fetch's own words ("fetch failed") and the reason under them (ECONNREFUSED, ENOTFOUND). */
export const unreachable = (method: string, url: URL, error: unknown): NoAnswer => {
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : ""
  return new NoAnswer(`${method} ${url.href} failed: ${error instanceof Error ? error.message : String(error)}${cause}`, mayHaveArrived(error))
}

/** The RFC 9457 problem of an answer: its code and detail, when its body is one. */
export const readProblem = async (response: Response): Promise<{ readonly code: string; readonly detail: string | undefined } | undefined> => {
  try {
    const problem = (await response.json()) as { code?: unknown; detail?: unknown }
    if (typeof problem.code === "string") return { code: problem.code, detail: typeof problem.detail === "string" ? problem.detail : undefined }
  } catch {
    // Not JSON: the status says what there is to say.
  }
  return undefined
}

const said = (response: Response, problem: { readonly code: string; readonly detail: string | undefined } | undefined): string =>
  problem === undefined ? `${response.status} ${response.statusText}`.trim() : `${response.status} ${problem.code}${problem.detail === undefined ? "" : `: ${problem.detail}`}`

/** "404 entry_not_found: detail" from a problem document, or the status alone. */
export const describeProblem = async (response: Response): Promise<string> => said(response, await readProblem(response))

/**
 * The error for an answer that is not the one expected, by what its status says of whom it
 * blames: `not_found` for a 404 (the thing asked for is not there: a usual answer, not a
 * fault of the service); `usage` for a 400 or 422 with a problem code (the request's
 * parameters: a channel not of a-z 0-9 -, an index beyond the tree); `refused` for a 403,
 * 409 or 429 with one (the caller may not, or not now); `protocol` for anything else. The
 * problem's code and the status go with the error.
 */
export const unexpectedAnswer = async (request: string, response: Response): Promise<ClientError> => {
  const problem = await readProblem(response)
  const message = `${request}: ${said(response, problem)}`
  const details = { code: problem?.code, status: response.status }
  if (response.status === 404) return new ClientError("not_found", message, details)
  if (problem !== undefined && (response.status === 400 || response.status === 422)) return new ClientError("usage", message, details)
  if (problem !== undefined && (response.status === 403 || response.status === 409 || response.status === 429)) return new ClientError("refused", message, details)
  return new ClientError("protocol", message, details)
}

const expectOk = async (response: Response, path: string): Promise<Response> => {
  if (response.status === 200) return response
  throw await unexpectedAnswer(`GET ${path}`, response)
}

/**
 * The bytes of a tile, a bundle or a checkpoint: what the log promised to serve (every tile
 * of a size it signed), so a 404 is the log failing its protocol, not a thing that is not there.
 */
export const getBytes = async (service: Service, path: string): Promise<Uint8Array> => {
  const response = await send(service, path)
  if (response.status !== 200) throw protocolError(`GET ${path}: ${await describeProblem(response)}`)
  return bodyBytes(service, path, response)
}

/** A 200 answer's body; a connection cut before its end is a network failure, as one that gave no answer. */
export const bodyBytes = async (service: Service, path: string, response: Response): Promise<Uint8Array> => {
  try {
    return new Uint8Array(await response.arrayBuffer())
  } catch (error) {
    throw unreachable("GET", endpoint(service, path), error)
  }
}

/** A 200 answer as parsed JSON, with its headers. */
export const getJson = async (service: Service, path: string): Promise<{ json: unknown; headers: Headers }> => {
  const response = await expectOk(await send(service, path), path)
  try {
    return { json: await response.json(), headers: response.headers }
  } catch {
    throw protocolError(`GET ${path}: the answer is not JSON`)
  }
}
