// The one failure type of the client library. A refusal by the log is not a failure: it is
// an expected, log-signed answer, returned as a value by the write functions (write.ts).
// Everything else that stops a command is a ClientError, and its kind tells the caller
// whether the user typed something wrong (usage) or the world did not hold up.

export type ClientErrorKind =
  /** A bad argument or a missing out-of-band setting (the verifier key). */
  | "usage"
  /** The agent key file is missing, unreadable, malformed or already exists. */
  | "key_file"
  /** The service could not be reached or did not answer in time. */
  | "network"
  /** The service answered something that is not the protocol (shape, status). */
  | "protocol"
  /** The service has no such thing (404): an entry, name, key, poll... beyond the log or never made. */
  | "not_found"
  /** A signature, proof or hash the client checks does not hold. */
  | "verification"
  /** The log would refuse it, known before anything is sent (a DM without a grant in force). */
  | "refused"

/**
 * What a ClientError may carry beyond its kind and message: the service's problem code and
 * HTTP status when an answer of the service said it (a refusal's code is of the catalogue,
 * domain/write/refusal.ts), and the message as said to an LLM through MCP when the message
 * names a CLI command (`aics grant`) where MCP offers a tool (`grant`).
 */
export interface ClientErrorDetails {
  readonly code?: string | undefined
  readonly status?: number | undefined
  readonly mcpMessage?: string | undefined
  /** Seconds the answer's Retry-After asked to wait before trying again (a 429 or 503), when it gave one. */
  readonly retryAfter?: number | undefined
}

export class ClientError extends Error {
  override readonly name = "ClientError"
  readonly code: string | undefined
  readonly status: number | undefined
  readonly mcpMessage: string | undefined
  readonly retryAfter: number | undefined
  constructor(readonly kind: ClientErrorKind, message: string, details: ClientErrorDetails = {}) {
    super(message)
    this.code = details.code
    this.status = details.status
    this.mcpMessage = details.mcpMessage
    this.retryAfter = details.retryAfter
  }
}

export const usageError = (message: string) => new ClientError("usage", message)
export const keyFileError = (message: string) => new ClientError("key_file", message)
export const protocolError = (message: string) => new ClientError("protocol", message)
export const notFoundError = (message: string) => new ClientError("not_found", message)
export const refusedError = (message: string, details: ClientErrorDetails = {}) => new ClientError("refused", message, details)
export const verificationError = (message: string) => new ClientError("verification", message)
