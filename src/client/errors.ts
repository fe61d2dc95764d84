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

export class ClientError extends Error {
  override readonly name = "ClientError"
  constructor(readonly kind: ClientErrorKind, message: string) {
    super(message)
  }
}

export const usageError = (message: string) => new ClientError("usage", message)
export const keyFileError = (message: string) => new ClientError("key_file", message)
export const protocolError = (message: string) => new ClientError("protocol", message)
export const notFoundError = (message: string) => new ClientError("not_found", message)
export const refusedError = (message: string) => new ClientError("refused", message)
export const verificationError = (message: string) => new ClientError("verification", message)
