// Who the client is, for fair admission (docs/protocol.md "Fair admission"): the socket's peer,
// or, only when that peer is a configured trusted proxy (AICS_TRUSTED_PROXIES, a CIDR
// list), the address the proxies recorded: X-Forwarded-For read from the right, skipping
// trusted proxies, or else RFC 7239 Forwarded's `for=` the same way. An address a client
// writes into those headers itself is never believed: only the part appended by proxies we
// trust is read.
//
// The budgets' subject is the address grouped: an IPv4 address is itself, an IPv6 address
// its /64 (one host usually holds a whole /64, so per-address budgets on single IPv6
// addresses would be free to multiply). IPv4 mapped into IPv6 (`::ffff:1.2.3.4`) is IPv4.

export interface Cidr {
  readonly bytes: Uint8Array
  readonly prefix: number
}

const parseIpv4 = (text: string): Uint8Array | undefined => {
  const parts = text.split(".")
  if (parts.length !== 4) return undefined
  const bytes = new Uint8Array(4)
  for (let i = 0; i < 4; i++) {
    const part = parts[i]!
    if (!/^\d{1,3}$/.test(part) || (part.length > 1 && part.startsWith("0"))) return undefined
    const n = Number(part)
    if (n > 255) return undefined
    bytes[i] = n
  }
  return bytes
}

const parseIpv6 = (text: string): Uint8Array | undefined => {
  if (text.includes("%") || !/^[0-9a-fA-F:.]+$/.test(text)) return undefined
  const halves = text.split("::")
  if (halves.length > 2) return undefined
  const groups = (half: string): Array<number> | undefined => {
    if (half === "") return []
    const out: Array<number> = []
    const parts = half.split(":")
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!
      if (i === parts.length - 1 && part.includes(".")) {
        const v4 = parseIpv4(part)
        if (v4 === undefined) return undefined
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!)
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(part)) return undefined
        out.push(parseInt(part, 16))
      }
    }
    return out
  }
  const head = groups(halves[0]!)
  const tail = halves.length === 2 ? groups(halves[1]!) : []
  if (head === undefined || tail === undefined) return undefined
  const missing = 8 - head.length - tail.length
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined
  const all = [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail]
  const bytes = new Uint8Array(16)
  all.forEach((g, i) => {
    bytes[2 * i] = g >> 8
    bytes[2 * i + 1] = g & 0xff
  })
  return bytes
}

/** 4 bytes for IPv4 (mapped IPv6 included), 16 for IPv6; undefined for anything else. */
export const parseIp = (text: string): Uint8Array | undefined => {
  const v4 = parseIpv4(text)
  if (v4 !== undefined) return v4
  const v6 = parseIpv6(text)
  if (v6 === undefined) return undefined
  const mapped = v6.slice(0, 10).every((b) => b === 0) && v6[10] === 0xff && v6[11] === 0xff
  return mapped ? v6.slice(12) : v6
}

/** `10.0.0.0/8`, `2001:db8::/32`, or a bare address (a /32 or /128). */
export const parseCidr = (text: string): Cidr | undefined => {
  const [address, prefixText, extra] = text.trim().split("/")
  if (address === undefined || extra !== undefined) return undefined
  const bytes = parseIp(address)
  if (bytes === undefined) return undefined
  const max = bytes.length * 8
  if (prefixText === undefined) return { bytes, prefix: max }
  if (!/^\d{1,3}$/.test(prefixText)) return undefined
  const prefix = Number(prefixText)
  return prefix <= max ? { bytes, prefix } : undefined
}

/** A comma list of CIDRs, or the first entry that is not one. */
export const parseCidrList = (text: string): { readonly cidrs: ReadonlyArray<Cidr> } | { readonly invalid: string } => {
  const cidrs: Array<Cidr> = []
  for (const item of text.split(",").map((s) => s.trim()).filter((s) => s !== "")) {
    const cidr = parseCidr(item)
    if (cidr === undefined) return { invalid: item }
    cidrs.push(cidr)
  }
  return { cidrs }
}

export const inCidr = (bytes: Uint8Array, cidr: Cidr): boolean => {
  if (bytes.length !== cidr.bytes.length) return false
  const whole = cidr.prefix >> 3
  for (let i = 0; i < whole; i++) if (bytes[i] !== cidr.bytes[i]) return false
  const rest = cidr.prefix & 7
  if (rest === 0) return true
  const mask = (0xff << (8 - rest)) & 0xff
  return (bytes[whole]! & mask) === (cidr.bytes[whole]! & mask)
}

export const isTrusted = (address: string, trusted: ReadonlyArray<Cidr>): boolean => {
  const bytes = parseIp(address)
  return bytes !== undefined && trusted.some((cidr) => inCidr(bytes, cidr))
}

/** Loopback, the proxies trusted when AICS_TRUSTED_PROXIES is not set (a proxy on this machine). */
export const LOOPBACK_PROXIES: ReadonlyArray<Cidr> = [parseCidr("127.0.0.0/8")!, parseCidr("::1/128")!]

/** An address as text: IPv4 dotted, IPv6 in RFC 5952 form (lower case, longest zero run as ::). */
export const formatIp = (bytes: Uint8Array): string => {
  if (bytes.length === 4) return bytes.join(".")
  const groups = Array.from({ length: 8 }, (_, i) => (bytes[2 * i]! << 8) | bytes[2 * i + 1]!)
  let bestStart = -1
  let bestLength = 1
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++
      continue
    }
    let j = i
    while (j < 8 && groups[j] === 0) j++
    if (j - i > bestLength) [bestStart, bestLength] = [i, j - i]
    i = j
  }
  const hex = groups.map((g) => g.toString(16))
  if (bestStart < 0) return hex.join(":")
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLength).join(":")}`
}

/** The budgets' subject: an IPv4 address, or an IPv6 address's /64 (`2001:db8:1:2::/64`). */
export const addressGroup = (address: string): string => {
  const bytes = parseIp(address)
  if (bytes === undefined) return address
  if (bytes.length === 4) return formatIp(bytes)
  const prefix = new Uint8Array(16)
  prefix.set(bytes.subarray(0, 8))
  return `${formatIp(prefix)}/64`
}

/** An element of X-Forwarded-For or Forwarded `for=`, without port, brackets or quotes. */
const hostOf = (element: string): string | undefined => {
  let text = element.trim().replace(/^"(.*)"$/, "$1")
  const bracketed = text.match(/^\[([^\]]+)\](?::\d+)?$/)
  if (bracketed !== null) text = bracketed[1]!
  else if (/^\d{1,3}(?:\.\d{1,3}){3}:\d+$/.test(text)) text = text.slice(0, text.lastIndexOf(":"))
  const bytes = parseIp(text)
  return bytes === undefined ? undefined : formatIp(bytes)
}

/** The `for=` values of a Forwarded header (RFC 7239), in order; "unknown" and obfuscated ones as undefined. */
const forwardedFors = (header: string): Array<string | undefined> =>
  header.split(",").map((element) => {
    const pair = element.split(";").map((p) => p.trim()).find((p) => p.toLowerCase().startsWith("for="))
    return pair === undefined ? undefined : hostOf(pair.slice(4))
  })

/**
 * The client's address: the peer, unless the peer is a trusted proxy; then the right-most
 * forwarded address that is not itself a trusted proxy (X-Forwarded-For first, Forwarded
 * if there is none). A forwarded value that is not an address stops the walk at the last
 * trusted hop, which is then the answer: never a value the client could have written.
 */
export const clientAddressOf = (
  peer: string | undefined,
  headers: { readonly forwardedFor?: string | undefined; readonly forwarded?: string | undefined },
  trusted: ReadonlyArray<Cidr>
): string => {
  const socketBytes = peer === undefined ? undefined : parseIp(peer)
  if (socketBytes === undefined) return peer ?? "unknown"
  let current = formatIp(socketBytes)
  if (!isTrusted(current, trusted)) return current
  const chain = headers.forwardedFor !== undefined && headers.forwardedFor.trim() !== ""
    ? headers.forwardedFor.split(",").map(hostOf)
    : headers.forwarded !== undefined ? forwardedFors(headers.forwarded) : []
  for (let i = chain.length - 1; i >= 0; i--) {
    const hop = chain[i]
    if (hop === undefined) return current
    current = hop
    if (!isTrusted(hop, trusted)) return hop
  }
  return current
}
