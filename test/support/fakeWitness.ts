// A witness over HTTP (C2SP tlog-witness's add-checkpoint) that decides as the real one does
// (domain/witness/addCheckpoint.ts) on a state the test sets: what it cosigned of the log,
// whether it is down (503), whether a reverse proxy in front of it answers for it (a 502
// while the witness behind restarts), and whether it holds its answers (a slow witness, or
// one that never answers: requests wait until the test releases them).

import { createServer, type Server } from "node:http"
import { Either } from "effect"
import { nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { utf8 } from "../../src/domain/bytes.js"
import { cosign, formatCosignerKey, makeCosignerKey } from "../../src/domain/note/cosignature.js"
import type { VerifierKey } from "../../src/domain/note/verifierKey.js"
import { makeTreeHasher } from "../../src/domain/tlog/hasher.js"
import { decideAddCheckpoint, parseAddCheckpointRequest, TLOG_SIZE_CONTENT_TYPE, type CosignedState } from "../../src/domain/witness/addCheckpoint.js"

const hasher = makeTreeHasher(nodeCrypto.sha256)

/** The witness's name and signing seed, and its verifier key (for AICS_WITNESSES). */
export interface WitnessIdentity {
  readonly name: string
  readonly seed: Uint8Array
  readonly vkey: string
}

export const witnessIdentity = (name: string): WitnessIdentity => {
  const seed = nodeCrypto.sha256(utf8(`fake witness ${name}`))
  return { name, seed, vkey: formatCosignerKey(makeCosignerKey(nodeCrypto.sha256, name, nodeCrypto.ed25519.publicKey(seed))) }
}

/** What the fake witness holds of the log, and how it answers. */
export interface FakeWitness {
  /** The log's key, once the first node made it; until then the witness answers 503. */
  logKey: VerifierKey | undefined
  state: CosignedState | undefined
  down: boolean
  /** Set: a reverse proxy in front of the witness answers every request with this status and a page of its own. */
  proxyAnswers?: number | undefined
  /** Set: every request waits for it before it is decided and answered (undefined: answered at once). */
  held?: Promise<void> | undefined
  /** How many requests reached it. */
  requests?: number
}

/** A held answer's release: `held` for the witness, `release` to let every waiting request go on. */
export const holdAnswers = (w: FakeWitness): (() => void) => {
  let release = () => {}
  w.held = new Promise<void>((resolve) => (release = resolve))
  return () => {
    w.held = undefined
    release()
  }
}

export const serveWitness = (w: FakeWitness, identity: WitnessIdentity, port: number) =>
  new Promise<Server>((resolve) => {
    const server = createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        w.requests = (w.requests ?? 0) + 1
        const answer = (status: number, contentType: string, body: string) => {
          response.writeHead(status, { "content-type": contentType })
          response.end(body)
        }
        const decide = () => {
          if (w.proxyAnswers !== undefined) return answer(w.proxyAnswers, "text/plain", `${w.proxyAnswers} from the proxy\n`)
          if (w.down || w.logKey === undefined) return answer(503, "text/plain", "down for maintenance\n")
          const parsed = parseAddCheckpointRequest(new Uint8Array(Buffer.concat(chunks)))
          if (Either.isLeft(parsed)) return answer(400, "text/plain", parsed.left)
          const outcome = decideAddCheckpoint(parsed.right, [{ origin: w.logKey.name, key: w.logKey }], () => w.state, hasher, nodeCrypto.ed25519)
          if (outcome._tag === "Refused") {
            return outcome.knownSize !== undefined
              ? answer(outcome.status, TLOG_SIZE_CONTENT_TYPE, `${outcome.knownSize}\n`)
              : answer(outcome.status, "text/plain", outcome.reason)
          }
          w.state = { size: outcome.checkpoint.size, rootHash: outcome.checkpoint.rootHash }
          answer(200, "text/plain; charset=utf-8", cosign(outcome.text, identity.name, identity.seed, Math.floor(Date.now() / 1000), nodeCrypto))
        }
        if (w.held === undefined) decide()
        else void w.held.then(decide)
      })
    })
    server.listen(port, "127.0.0.1", () => resolve(server))
  })

/** Closes the witness, cutting the requests it still holds. */
export const closeWitness = (server: Server | undefined) =>
  new Promise<void>((resolve) => {
    if (server === undefined) return resolve()
    server.close(() => resolve())
    server.closeAllConnections()
  })
