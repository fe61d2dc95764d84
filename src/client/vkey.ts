// The log's verifier key. It must reach the agent out of band (the operator publishes it
// in the DNS TXT record `_aics.<domain>`, domain/note/dnsRecord.ts): a key fetched from the
// API it is meant to check would let a hostile server vouch for itself. So it comes only
// from --vkey, --vkey-file, --vkey-dns or AICS_LOG_VKEY, never from the service.

import { Resolver } from "node:dns/promises"
import { readFile } from "node:fs/promises"
import { dnsRecordName, logVkeyOfTxtRecords } from "../domain/note/dnsRecord.js"
import { parseVerifierKey, type VerifierKey } from "../domain/note/verifierKey.js"
import { crypto } from "./crypto.js"
import { ClientError, usageError } from "./errors.js"

export interface VkeySources {
  readonly vkey?: string | undefined
  readonly vkeyFile?: string | undefined
  /** An instance domain whose `_aics.<domain>` TXT record names the key. */
  readonly vkeyDns?: string | undefined
  /** The DNS server to ask (an IP address, optionally with a port: AICS_DNS_SERVER), else the system's. */
  readonly dnsServer?: string | undefined
  readonly env?: string | undefined
}

/**
 * The key text of the `_aics.<domain>` TXT record. Plain DNS is only as trustworthy as the
 * path to the resolver (a validating resolver, AICS_DNS_SERVER, makes it DNSSEC's); it is
 * still another channel than the service's own answers, which is the point.
 */
const vkeyFromDns = async (domain: string, server: string | undefined): Promise<string> => {
  const name = dnsRecordName(domain)
  const resolver = new Resolver({ timeout: 5_000, tries: 2 })
  if (server !== undefined) {
    try {
      resolver.setServers([server])
    } catch {
      // node:dns takes addresses only: a resolver is not found by name.
      throw usageError(`AICS_DNS_SERVER must be an IP address, optionally with a port (127.0.0.1:5353, [::1]:53), got ${JSON.stringify(server)}`)
    }
  }
  let records: Array<Array<string>>
  try {
    records = await resolver.resolveTxt(name)
  } catch (error) {
    const code = (error as { code?: unknown }).code
    if (code === "ENOTFOUND" || code === "ENODATA") throw usageError(`no TXT record at ${name}: is ${domain} the service's instance domain? (or pass --vkey)`)
    throw new ClientError("network", `DNS TXT ${name}: ${error instanceof Error ? error.message : String(error)}`)
  }
  const reading = logVkeyOfTxtRecords(records)
  if (reading._tag === "Missing") throw usageError(`DNS TXT ${name}: ${reading.reason}`)
  return reading.logVkey
}

/** The verifier key text from the first source given (flag, then file, then DNS, then environment), or undefined. */
export const vkeyText = async (sources: VkeySources): Promise<string | undefined> => {
  if (sources.vkey !== undefined) return sources.vkey.trim()
  if (sources.vkeyFile !== undefined) {
    try {
      return (await readFile(sources.vkeyFile, "utf8")).trim()
    } catch (error) {
      throw usageError(`cannot read --vkey-file ${sources.vkeyFile}: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  if (sources.vkeyDns !== undefined) return vkeyFromDns(sources.vkeyDns, sources.dnsServer)
  const env = sources.env?.trim()
  return env === undefined || env === "" ? undefined : env
}

/** Parses the verifier key, or fails with a usage error naming what is wrong. */
export const loadVkey = async (sources: VkeySources): Promise<VerifierKey> => {
  const text = await vkeyText(sources)
  if (text === undefined) {
    throw usageError("the log's verifier key is needed: pass --vkey, --vkey-file, --vkey-dns <domain> or set AICS_LOG_VKEY (get it out of band, never from the API)")
  }
  const key = parseVerifierKey(crypto.sha256, text)
  if (key === undefined) throw usageError(`not an Ed25519 signed-note verifier key: ${JSON.stringify(text)}`)
  return key
}
