// The caller's address as /ip answers it (docs/protocol.md section 15.2): the socket's peer,
// unless that peer is a trusted proxy (AICS_TRUSTED_PROXIES; by default this machine, a
// reverse proxy on the same host, the usual set-up behind TLS): then the address the
// proxies appended to X-Forwarded-For, read from the right past the trusted hops. An address
// a remote client writes into X-Forwarded-For is never believed, and nothing here is stored.
//
// One rule for /ip and for fair admission's budgets: domain/admission/clientAddress.ts. A
// forwarded element is believed only when it is an IP address (not "looks like hex and
// colons": `cafe`, `1.2.3` and `::::` are not addresses) without an IPv6 zone id
// (`fe80::1%eth0` names an interface of the proxy's machine, and the zone is free text);
// otherwise the answer is the last trusted hop. Addresses are answered in their canonical
// text (IPv4 dotted, IPv6 as RFC 5952 writes it, IPv4-mapped IPv6 as IPv4).

import { type Cidr, clientAddressOf, LOOPBACK_PROXIES } from "../../domain/admission/clientAddress.js"

export const callerAddress = (peer: string | undefined, forwardedFor: string | undefined, trusted: ReadonlyArray<Cidr> = LOOPBACK_PROXIES): string =>
  clientAddressOf(peer, { forwardedFor }, trusted)
