// The caller's address as /ip answers it (docs/protocol.md section 15.2). The socket's peer,
// unless that peer is this machine (a reverse proxy on the same host, the usual set-up
// behind TLS): then the address that proxy appended last to X-Forwarded-For, which is the
// one hop it saw itself. An address a remote client writes into X-Forwarded-For is never
// believed, and nothing here is stored.
//
// The forwarded element is believed only when it is an IP address by node:net's own test
// (not "looks like hex and colons": `cafe`, `1.2.3` and `::::` are not addresses), and has
// no IPv6 zone id: `fe80::1%eth0` names an interface of the proxy's machine, nothing the
// caller could use, and the zone is free text. Otherwise the answer is the socket's peer.
// Only a peer on this machine counts as the proxy (docs/operations.md "Behind a proxy").

import { isIP } from "node:net"

const LOOPBACK = /^(?:127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1)$/

/** `::ffff:1.2.3.4` as `1.2.3.4`: Node reports IPv4 peers of a dual-stack socket mapped. */
const unmapped = (address: string): string => address.replace(/^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i, "$1")

/** The last X-Forwarded-For element, without a port or brackets; undefined when absent or empty. */
const lastForwarded = (header: string | undefined): string | undefined => {
  const last = header?.split(",").at(-1)?.trim()
  if (last === undefined || last === "") return undefined
  const bracketed = last.match(/^\[([^\]]+)\](?::\d+)?$/)
  if (bracketed !== null) return bracketed[1]
  // An IPv4 address may carry a port; a bare IPv6 address has several colons and no port.
  return /^\d{1,3}(?:\.\d{1,3}){3}:\d+$/.test(last) ? last.slice(0, last.lastIndexOf(":")) : last
}

export const callerAddress = (peer: string | undefined, forwardedFor: string | undefined): string => {
  const socket = peer === undefined ? "unknown" : unmapped(peer)
  if (!LOOPBACK.test(socket)) return socket
  const forwarded = lastForwarded(forwardedFor)
  return forwarded !== undefined && isIP(forwarded) !== 0 && !forwarded.includes("%") ? unmapped(forwarded) : socket
}
