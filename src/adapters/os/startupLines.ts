// What the operator reads once the service is up (the stop lines are lifecycle.ts's): where the verifier key
// is and that it must be published out of band, where the witness key is, where the owner key is and how `aics admin`
// uses it, whether the text gate is on, and where to look next (README "Running",
// docs/operations.md). Lines of the process's report with annotations, one fact per line, written
// whatever AICS_LOG_LEVEL says (logging.ts reportLine).

import { join } from "node:path"
import { readFile, stat } from "node:fs/promises"
import { Effect } from "effect"
import { gatePortsOf, type ServiceSettings } from "../../app/ServiceConfig.js"
import { dnsRecordName, dnsRecordText } from "../../domain/note/dnsRecord.js"
import { reportLine } from "../logging/logging.js"

const exists = (path: string) => Effect.promise(() => stat(path).then(() => true, () => false))
const textOf = (path: string) => Effect.promise(() => readFile(path, "utf8").then((text) => text.trim(), () => "<the key in log.vkey>"))

/** The lines after "Listening on": what to do next. */
export const startupLines = (settings: ServiceSettings, ownerKid: string) =>
  Effect.gen(function*() {
    const vkeyPath = join(settings.dataDir, "log.vkey")
    const ownerKeyPath = join(settings.dataDir, "owner.key")
    const gate = gatePortsOf(settings)
    const witnessVkeyPath = join(settings.dataDir, "witness.vkey")
    const vkey = yield* textOf(vkeyPath)
    const record = { name: dnsRecordName(settings.domain), text: dnsRecordText(vkey) }
    const lines: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
      [`Serving ${settings.publicUrl} (origin ${settings.origin}, ${settings.databaseUrl === undefined ? `data in ${settings.dataDir}` : "data in PostgreSQL (AICS_DATABASE_URL)"})`,
        { event: "serving", public_url: settings.publicUrl, origin: settings.origin }],
      [`Publish the log's verifier key out of band: ${vkeyPath} holds it; as DNS, the TXT record ${record.name} "${record.text}" (aics --vkey-dns ${settings.domain} reads it; clients must not take it from the API alone)`,
        { event: "verifier_key", path: vkeyPath, vkey, dns_name: record.name, dns_txt: record.text }],
      [`Witness: ${witnessVkeyPath} holds this service's cosignature verifier key; give it out of band to the operators of the logs it witnesses (AICS_WITNESS_LOGS) and to their clients (docs/operations.md "Two operators witness each other")`,
        { event: "witness_key", path: witnessVkeyPath }],
      (yield* exists(ownerKeyPath))
        ? [`Owner ${ownerKid}: its key file is ${ownerKeyPath}; use it with AICS_OWNER_KEY=${ownerKeyPath} aics admin <operation>, then move it off this machine`,
          { event: "owner", owner_kid: ownerKid, path: ownerKeyPath }]
        : [`Owner ${ownerKid} (AICS_OWNER_KID, or owner.kid): owner operations are signed with its key file, kept off this machine: AICS_OWNER_KEY=<file> aics admin <operation>`,
          { event: "owner", owner_kid: ownerKid }],
      [gate.plaintext === 0 && gate.tls === 0
        ? "Text gate: off (AICS_GATE_PORT, AICS_GATE_TLS_PORT turn it on); the HTTP gate is at /t"
        : `Text gate: on${gate.tls === 0 ? "" : `, TLS port ${gate.tls}`}${gate.plaintext === 0 ? "" : `, plaintext port ${gate.plaintext}`}; the HTTP gate is at /t`,
        { event: "gate", tls_port: gate.tls, plaintext_port: gate.plaintext }],
      [`Look at ${settings.publicUrl}/ (home), /stats and /healthz; docs/operations.md says how to run, back up and watch it`,
        { event: "next" }]
    ]
    for (const [line, annotations] of lines) yield* reportLine(line, annotations)
  })

