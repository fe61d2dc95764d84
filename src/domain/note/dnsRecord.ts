// The log key published in DNS (docs/spec/service.md "Fundamentals" 5: the log key is obtained
// out of band, "DNS TXT record `_aics.<domain>`"; docs/operations.md "Publishing the log key").
// The record, at `_aics.<instance domain>`, is one TXT record of space-separated members:
//
//   v=aics1 log=<log verifier key>
//
// `v=aics1` marks it (other TXT records at that name are ignored, as SPF's `v=spf1` does);
// `log` is the C2SP signed-note verifier key of the log (docs/spec/profile.md section 2).
// Members other than these two are ignored, for later versions to add. A record's strings
// are joined with nothing between them (RFC 7208 section 3.3), since one string holds at
// most 255 bytes.

export const DNS_RECORD_PREFIX = "_aics"
const VERSION = "v=aics1"

/** The owner name of the record for an instance domain. */
export const dnsRecordName = (domain: string): string => `${DNS_RECORD_PREFIX}.${domain.replace(/\.$/, "")}`

/** The record's text for a log's verifier key, as the operator publishes it. */
export const dnsRecordText = (logVkey: string): string => `${VERSION} log=${logVkey}`

/** What the TXT records at the name say: the log's verifier key text, or why there is none. */
export type DnsRecordReading =
  | { readonly _tag: "Found"; readonly logVkey: string }
  | { readonly _tag: "Missing"; readonly reason: string }

/** Reads the TXT records of `_aics.<domain>` (each a list of strings, as resolvers give them). */
export const logVkeyOfTxtRecords = (records: ReadonlyArray<ReadonlyArray<string>>): DnsRecordReading => {
  const ours = records.map((strings) => strings.join("").trim().split(/ +/)).filter((members) => members[0] === VERSION)
  if (ours.length === 0) return { _tag: "Missing", reason: `no TXT record starting "${VERSION}"` }
  const keys = new Set(ours.map((members) => members.find((m) => m.startsWith("log="))?.slice("log=".length)))
  if (keys.has(undefined) || keys.has("")) return { _tag: "Missing", reason: `a "${VERSION}" record has no log=<verifier key>` }
  // Two records naming different keys leave the reader unable to tell which the operator meant.
  if (keys.size > 1) return { _tag: "Missing", reason: `the "${VERSION}" records name ${keys.size} different log keys` }
  return { _tag: "Found", logVkey: [...keys][0]! }
}
