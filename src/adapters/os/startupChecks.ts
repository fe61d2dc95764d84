// What a start checks before it creates anything: the ports it will listen on are free, the
// files the operator named can be read (the gate's certificate and key make a TLS context,
// the SUP asset descriptor is there), and the data folder is a folder it may write. A
// failure is a StartupProblem naming the variable to change, so the operator reads one line
// ("port 8080 on 127.0.0.1 (AICS_PORT) is in use by another process") instead of a stack
// trace after a whole data folder was made. A data folder of another origin or key is
// found by the charter check (src/app/Charter.ts), which creates nothing in a folder that
// already holds a log; startupLine.ts words its refusal.

import { constants } from "node:fs"
import { access, lstat, readFile, stat } from "node:fs/promises"
import { dirname, resolve } from "node:path"
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

/** Listens on host:port and closes again; the port it had (the system's choice for 0). */
const listenOnce = (host: string, port: number) =>
  Effect.async<number, NodeJS.ErrnoException>((resume) => {
    const server = createServer()
    server.once("error", (error: NodeJS.ErrnoException) => resume(Effect.fail(error)))
    server.listen({ host, port, exclusive: true }, () => {
      const bound = (server.address() as { port: number }).port
      server.close(() => resume(Effect.succeed(bound)))
    })
  })

const isBadHost = (error: NodeJS.ErrnoException) => error.code === "EADDRNOTAVAIL" || error.code === "ENOTFOUND" || error.code === "EAI_AGAIN"

/** Refuses a port another process holds, or a host that is not this machine's. */
const portFree = (host: string, port: number, variable: string, hostVariable = "AICS_HOST") =>
  Effect.asVoid(Effect.mapError(listenOnce(host, port), (error) => {
    const why = error.code === "EADDRINUSE" ? "is in use by another process"
      : error.code === "EACCES" ? "needs privileges this process does not have"
      : isBadHost(error) ? `cannot be listened on: ${host} (${hostVariable}) is not an address of this machine`
      : `cannot be listened on: ${reason(error)}`
    return new StartupProblem({ variable: isBadHost(error) ? hostVariable : variable, message: `port ${port} on ${host} (${variable}) ${why}` })
  }))

/** A port free on `host` now, for AICS_PORT=0: the system's choice, listened on and closed again. */
export const freePortOn = (host: string) =>
  Effect.mapError(listenOnce(host, 0), (error) =>
    new StartupProblem({ variable: "AICS_HOST", message: `no port can be listened on on ${host} (AICS_HOST): ${reason(error)}` }))

/** The service's listeners on one host each need a port of their own (0, a free one, aside). */
const portsApart = (listeners: ReadonlyArray<{ readonly variable: string; readonly host: string; readonly port: number }>) =>
  Effect.gen(function*() {
    const taken = new Map<string, string>()
    for (const { variable, host, port } of listeners) {
      if (port === 0) continue
      const other = taken.get(`${host} ${port}`)
      if (other !== undefined) {
        return yield* new StartupProblem({ variable, message: `port ${port} on ${host} is set for both ${other} and ${variable}: each listener needs a port of its own` })
      }
      taken.set(`${host} ${port}`, variable)
    }
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

/**
 * The data folder is a folder this process may write, or, when it does not exist yet, its
 * nearest existing parent is one (the start makes the rest), so a folder the start could
 * not make is named with its variable rather than failing later in a store.
 */
const dataFolder = (dataDir: string) =>
  Effect.tryPromise({
    try: async () => {
      let folder = resolve(dataDir)
      for (;;) {
        const info = await stat(folder).catch((e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? undefined : Promise.reject(e)))
        if (info !== undefined) {
          if (!info.isDirectory()) throw new Error(folder === resolve(dataDir) ? "it is not a folder" : `${folder} is not a folder`)
          await access(folder, constants.R_OK | constants.W_OK | constants.X_OK).catch((e: NodeJS.ErrnoException) =>
            Promise.reject(folder === resolve(dataDir) ? e : new Error(`it does not exist, and ${folder}, where it would be made, is not writable (${e.code ?? e.message})`)))
          return
        }
        // A symbolic link whose target is gone looks missing to stat, and cannot be made.
        if ((await lstat(folder).catch(() => undefined))?.isSymbolicLink() === true) throw new Error(`${folder} is a symbolic link to a path that does not exist`)
        const parent = dirname(folder)
        if (parent === folder) return
        folder = parent
      }
    },
    catch: (error) => new StartupProblem({ variable: "AICS_DATA_DIR", message: `cannot use the data folder ${dataDir} (AICS_DATA_DIR): ${reason(error)}` })
  })

/** Every check, in the order an operator would fix them; the first failure stops the start. */
export const startupChecks = (settings: ServiceSettings, metrics?: { readonly host: string; readonly port: number }) =>
  Effect.gen(function*() {
    yield* dataFolder(settings.dataDir)
    const gate = settings.gate
    yield* portsApart([
      { variable: "AICS_PORT", host: settings.host, port: settings.port },
      { variable: "AICS_GATE_PORT", host: settings.host, port: gate?.port ?? 0 },
      { variable: "AICS_GATE_TLS_PORT", host: settings.host, port: gate?.tlsPort ?? 0 },
      { variable: "AICS_METRICS_PORT", host: metrics?.host ?? settings.host, port: metrics?.port ?? 0 }
    ])
    if (settings.port !== 0) yield* portFree(settings.host, settings.port, "AICS_PORT")
    if (metrics !== undefined) yield* portFree(metrics.host, metrics.port, "AICS_METRICS_PORT", "AICS_METRICS_HOST")
    if (gate !== undefined && gate.port !== 0) yield* portFree(settings.host, gate.port, "AICS_GATE_PORT")
    if (gate !== undefined && gate.tlsPort !== 0) {
      yield* portFree(settings.host, gate.tlsPort, "AICS_GATE_TLS_PORT")
      yield* certificatePair(gate.tlsCert!, gate.tlsKey!)
    }
    if (settings.supAssetFile !== undefined) yield* readable(settings.supAssetFile, "AICS_SUP_ASSET_FILE", "the SUP asset descriptor")
  })
