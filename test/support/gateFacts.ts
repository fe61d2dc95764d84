// The facts a gate step is decided on (domain/gate/session.ts step), for tests of the gate's
// verbs on a log held in the test: the log's state and time, a fresh nonce each call, this
// log's origin and the gate's ports.

import { nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { utf8 } from "../../src/domain/bytes.js"
import { encodeU64 } from "../../src/domain/encoding.js"
import { payloadSignatureCheck } from "../../src/domain/identity/possession.js"
import type { PureLog } from "./identityAgents.js"
import { ORIGIN } from "./identityAgents.js"

let fresh = 0

/** The facts of a step on `log` now, the gate listening on `gatePorts`. */
export const gateFactsOf = (log: PureLog, gatePorts: { readonly tls: number; readonly plaintext: number }) => ({
  now: log.now,
  fresh: encodeU64(nodeCrypto.sha256(utf8(`fresh ${fresh++}`)).subarray(0, 16)),
  origin: ORIGIN,
  gatePorts,
  log: log.state,
  sha256: nodeCrypto.sha256,
  verify: payloadSignatureCheck(nodeCrypto.ed25519)
})
