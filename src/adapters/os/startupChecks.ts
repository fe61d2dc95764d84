// What a start checks before it creates anything: the ports it will listen on are free, the
// files the operator named can be read (the gate's certificate and key make a TLS context,
// the SUP asset descriptor is there), and the data folder is a folder it may write. A
// failure is a StartupProblem naming the variable to change, so the operator reads one line
// ("port 8080 on 127.0.0.1 (AICS_PORT) is in use by another process") instead of a stack
// trace after a whole data folder was made. A data folder of another origin or key is
// found by the charter check (src/app/Charter.ts), which creates nothing in a folder that
// already holds a log; startupLine.ts words its refusal.

import { constants } from "node:fs"
import { access, readFile, stat } from "node:fs/promises"
import { createServer } from "node:net"
import { createSecureContext } from "node:tls"
import { Data, Effect } from "effect"
import type { ServiceSettings } from "../../app/ServiceConfig.js"
import { secureContextOptions } from "../tcp/certificateReload.js"

/** A reason the service cannot start, with the variable that decides it. */
export class StartupProblem extends Data.TaggedError("StartupProblem")<{
  readonly variable: string
  readonly message: string
}> {}

const reason = (error: unknown): string => {
  const e = error as NodeJS.ErrnoException
  if (e?.code === "ENOENT") return "no such file or folder"
  if (e?.code === "EACCES" || e?.code === "EPERM") return "permission denied"
  if (e?.code === "EISDIR") return "it is a folder"
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!
}

/** Listens on host:port and closes again: refuses a port another process holds. */
const portFree = (host: string, port: number, variable: string) =>
  Effect.async<void, StartupProblem>((resume) => {
    const server = createServer()
    server.once("error", (error: NodeJS.ErrnoException) => {
      const why = error.code === "EADDRINUSE" ? "is in use by another process"
        : error.code === "EACCES" ? "needs privileges this process does not have"
        : error.code === "EADDRNOTAVAIL" ? "is not an address of this machine (AICS_HOST)"
        : `cannot be listened on: ${reason(error)}`
      resume(Effect.fail(new StartupProblem({ variable, message: `port ${port} on ${host} (${variable}) ${why}` })))
    })
    server.listen({ host, port, exclusive: true }, () => server.close(() => resume(Effect.void)))
  })

const readable = (path: string, variable: string, what: string) =>
  Effect.tryPromise({
    try: () => readFile(path),
    catch: (error) => new StartupProblem({ variable, message: `cannot read ${what} ${path} (${variable}): ${reason(error)}` })
  })

/** The gate's PEM pair must make a TLS context, as the gate will make one from it. */
const certificatePair = (certFile: string, keyFile: string) =>
  Effect.gen(function*() {
    const cert = yield* readable(certFile, "AICS_GATE_TLS_CERT", "the gate's TLS certificate")
    const key = yield* readable(keyFile, "AICS_GATE_TLS_KEY", "the gate's TLS key")
    yield* Effect.try({
      try: () => createSecureContext(secureContextOptions(cert, key)),
      catch: (error) => new StartupProblem({
        variable: "AICS_GATE_TLS_CERT",
        message: `${certFile} (AICS_GATE_TLS_CERT) and ${keyFile} (AICS_GATE_TLS_KEY) are not a PEM certificate and its key: ${reason(error)}`
      })
    })
  })

/** The data folder, if it exists, is a folder this process may write. */
const dataFolder = (dataDir: string) =>
  Effect.tryPromise({
    try: async () => {
      const info = await stat(dataDir).catch((e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? undefined : Promise.reject(e)))
      if (info === undefined) return
      if (!info.isDirectory()) throw new Error("it is not a folder")
      await access(dataDir, constants.R_OK | constants.W_OK | constants.X_OK)
    },
    catch: (error) => new StartupProblem({ variable: "AICS_DATA_DIR", message: `cannot use the data folder ${dataDir} (AICS_DATA_DIR): ${reason(error)}` })
  })

/** Every check, in the order an operator would fix them; the first failure stops the start. */
export const startupChecks = (settings: ServiceSettings) =>
  Effect.gen(function*() {
    yield* dataFolder(settings.dataDir)
    if (settings.port !== 0) yield* portFree(settings.host, settings.port, "AICS_PORT")
    const gate = settings.gate
    if (gate !== undefined && gate.port !== 0) yield* portFree(settings.host, gate.port, "AICS_GATE_PORT")
    if (gate !== undefined && gate.tlsPort !== 0) {
      yield* portFree(settings.host, gate.tlsPort, "AICS_GATE_TLS_PORT")
      yield* certificatePair(gate.tlsCert!, gate.tlsKey!)
    }
    if (settings.supAssetFile !== undefined) yield* readable(settings.supAssetFile, "AICS_SUP_ASSET_FILE", "the SUP asset descriptor")
  })
