// What every aics command shares: its Outcome, the environment, the key file path, the log
// client (service URL and out-of-band verifier key) and how a write's result is shown.

import { usageError } from "./errors.js"
import { serviceAt } from "./http.js"
import { countArgument, type Invocation } from "./cliArgs.js"
import { witnessPolicy } from "./witnesses.js"
import { loadVkey } from "./vkey.js"
import type { VerifierKey } from "../domain/note/verifierKey.js"
import type { LogClient, WriteResult } from "./write.js"

export interface Outcome {
  readonly lines: ReadonlyArray<string>
  readonly json: unknown
  /** Set for a refusal or a failed verification: the stderr line, and exit status 1 (or `exit`). */
  readonly failure?: string
  /** The exit status with `failure`, when not 1 (aics monitor's older checkpoint, MONITOR_OLDER_EXIT). */
  readonly exit?: number
}

export type Env = Readonly<Record<string, string | undefined>>

const DEFAULT_SERVER = "http://127.0.0.1:8080"
const DEFAULT_KEY = "./aics-key.json"

export const keyPathOf = (inv: Invocation, env: Env): string => inv.options.key ?? env["AICS_KEY"] ?? DEFAULT_KEY

/** The log's verifier key from --vkey, --vkey-file, --vkey-dns or AICS_LOG_VKEY (vkey.ts); a usage error without one. */
export const logVkeyOf = (inv: Invocation, env: Env): Promise<VerifierKey> => {
  if ([inv.options.vkey, inv.options["vkey-file"], inv.options["vkey-dns"]].filter((v) => v !== undefined).length > 1) {
    return Promise.reject(usageError("give the verifier key once: --vkey, --vkey-file or --vkey-dns"))
  }
  return loadVkey({
    vkey: inv.options.vkey,
    vkeyFile: inv.options["vkey-file"],
    vkeyDns: inv.options["vkey-dns"],
    dnsServer: env["AICS_DNS_SERVER"],
    env: env["AICS_LOG_VKEY"]
  })
}

/** The log client but for its verifier key: the service and the witnesses to require. */
export const logClientWithoutVkey = (inv: Invocation, env: Env): Omit<LogClient, "vkey"> => {
  const quorum = inv.options.quorum === undefined ? undefined : countArgument(inv.options.quorum, "--quorum")
  const witnesses = witnessPolicy(inv.options.witness ?? [], quorum)
  return { service: serviceAt(inv.options.server ?? env["AICS_SERVER"] ?? DEFAULT_SERVER), ...(witnesses === undefined ? {} : { witnesses }) }
}

export const logClient = async (inv: Invocation, env: Env): Promise<LogClient> => {
  const vkey = await logVkeyOf(inv, env)
  return { ...logClientWithoutVkey(inv, env), vkey }
}

/** The line saying what a checkpoint was checked for beyond the log's signature: the witnesses' cosignatures, when given. */
export const witnessedLines = (client: LogClient): ReadonlyArray<string> =>
  client.witnesses === undefined ? [] : [`cosigned by at least ${client.witnesses.quorum} of the ${client.witnesses.keys.length} witnesses given`]

/**
 * A write's outcome: accepted lines (and `extra` in the JSON), or the refusal as the stderr
 * line and, with --json, as every failure is: `{"error": {kind: "refused", message, exit, ...}}`
 * with the log-signed refusal's code, status, detail, envelope hash and seq.
 */
export const written = (result: WriteResult, what: (index: number) => string, extra: Record<string, unknown> = {}): Outcome => {
  if (result._tag === "Refused") {
    const failure = `refused ${result.status} ${result.code}: ${result.detail}`
    return {
      lines: [],
      json: {
        error: {
          kind: "refused", message: failure, exit: 1,
          code: result.code, status: result.status, detail: result.detail, envelope_hash: result.envelopeHash, seq: result.envelope.seq,
          // The log-signed refusal note (U64): the evidence of what the log refused, and when (docs/protocol.md 8.2).
          receipt_note: result.receiptNote, ...extra
        }
      },
      failure
    }
  }
  const { receipt, key } = result
  return {
    lines: [
      `${what(receipt.index)} (seq ${receipt.seq}, receipt verified)`,
      // The answer was lost and the entry found in the log: said, so no one sends it again.
      ...(result.answerLost === undefined ? [] : [`the answer was lost and recovered from the log: ${result.answerLost}`])
    ],
    json: { ...receipt, kid: key.kid, location: result.location, next_seq: key.seq, prev: key.prev, ...(result.answerLost === undefined ? {} : { answer_lost: result.answerLost }), ...extra }
  }
}
