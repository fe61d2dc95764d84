// The TLS gate's certificate, renewed without a restart. Certificates from ACME (Let's
// Encrypt and the like) live 90 days or less and are renewed in place by a job that
// rewrites the PEM files; the gate would otherwise keep serving the old one until it
// expires. So the gate rereads both files now and then and, when their bytes changed,
// swaps the server's secure context: new handshakes get the new certificate, open
// connections keep theirs.
//
// A renewal writes two files, not atomically together: between the two writes the pair
// does not match. A pair that does not make a secure context (tls.createSecureContext
// refuses a key that is not the certificate's) is left alone and tried again at the next
// look; the gate keeps serving the last good pair meanwhile and says so once per pair.

import { readFile } from "node:fs/promises"
import { createSecureContext, type SecureContextOptions, type Server } from "node:tls"
import { Duration, Effect, Schedule } from "effect"

export interface CertificateFiles {
  readonly certFile: string
  readonly keyFile: string
}

/** How often the files are reread; a renewal is in use within this. */
export const CERTIFICATE_RELOAD_INTERVAL = Duration.minutes(1)

/** The options of every secure context the gate makes: the first and each renewed one. */
export const secureContextOptions = (cert: Buffer, key: Buffer): SecureContextOptions => ({ cert, key, minVersion: "TLSv1.2" })

const readPair = (files: CertificateFiles) =>
  Effect.tryPromise(() => Promise.all([readFile(files.certFile), readFile(files.keyFile)]))

/** The PEM pair as it is on disk now (at start: a failure to read it fails the start). */
export const readCertificates = (files: CertificateFiles) =>
  Effect.map(readPair(files), ([cert, key]) => ({ cert, key }))

/**
 * Rereads the pair every `interval` and gives `server` the new one when its bytes changed
 * and it makes a secure context. Runs until its fiber is interrupted.
 */
export const reloadCertificates = (
  server: Server,
  files: CertificateFiles,
  loaded: { readonly cert: Buffer; readonly key: Buffer },
  interval: Duration.DurationInput = CERTIFICATE_RELOAD_INTERVAL
) => {
  let current = loaded
  // The last pair refused, so a half-written renewal is reported once, not every minute.
  let refused: { readonly cert: Buffer; readonly key: Buffer } | undefined
  const same = (a: { cert: Buffer; key: Buffer }, b: { cert: Buffer; key: Buffer }) => a.cert.equals(b.cert) && a.key.equals(b.key)

  const look = Effect.gen(function*() {
    const read = yield* Effect.either(readPair(files))
    if (read._tag === "Left") {
      return yield* Effect.logWarning("text gate: cannot read the certificate or key; still serving the certificate loaded before").pipe(Effect.annotateLogs({ cert: files.certFile, key: files.keyFile }))
    }
    const [cert, key] = read.right
    const pair = { cert, key }
    if (same(pair, current) || (refused !== undefined && same(pair, refused))) return
    const options = secureContextOptions(cert, key)
    const made = yield* Effect.either(Effect.try(() => createSecureContext(options)))
    if (made._tag === "Left") {
      refused = pair
      return yield* Effect.logWarning("text gate: the certificate and key on disk do not make a TLS context (a renewal half written?); still serving the one loaded before").pipe(Effect.annotateLogs({ error: String(made.left.error) }))
    }
    server.setSecureContext(options)
    current = pair
    refused = undefined
    yield* Effect.logInfo("text gate: serving the renewed certificate").pipe(Effect.annotateLogs({ cert: files.certFile }))
  })

  return Effect.repeat(look, Schedule.spaced(interval)).pipe(Effect.delay(interval), Effect.asVoid)
}
