// Whether a request reached the service over HTTPS (docs/protocol.md sections 13.1 and
// 17.4). The service itself listens on plain HTTP behind a TLS-terminating proxy, so it
// cannot see TLS; it relies on what the operator configured and on what the proxy adds.
//
// Only the value the nearest proxy added counts: the LAST X-Forwarded-Proto value and the
// LAST Forwarded element. A proxy appends to what the client sent, so the first values are
// the client's own words, and a client on plain HTTP could write "https" there.
//
//   - Contributions (13.1): AICS_PUBLIC_URL is https (the operator states that clients reach
//     the service through TLS only) and no proxy header says otherwise; AICS_SUP_ALLOW_HTTP
//     takes plain HTTP too (a local test instance).
//   - The text gate's secrets (17.4): AICS_PUBLIC_URL is https AND the proxy says https.
//     A request without the header is not TLS: a secret is never sent on the operator's
//     word alone.

type Headers = Readonly<Record<string, string | undefined>>

/** What the nearest proxy said about the client's protocol, per header (undefined: no such header). */
const forwardedProtos = (headers: Headers): ReadonlyArray<string | undefined> => {
  const xfp = headers["x-forwarded-proto"]?.split(",").at(-1)?.trim().toLowerCase()
  const proto = headers["forwarded"]?.split(",").at(-1)?.match(/(?:^|;)\s*proto\s*=\s*"?([A-Za-z]+)"?/i)?.[1]?.toLowerCase()
  return [xfp, proto]
}

export const reachedOverHttps = (headers: Headers, settings: { readonly publicUrl: string; readonly allowHttp: boolean }): boolean => {
  if (settings.allowHttp) return true
  if (!settings.publicUrl.startsWith("https://")) return false
  return forwardedProtos(headers).every((proto) => proto === undefined || proto === "https")
}

/** The gate's rule for secrets: a positive signal only (docs/protocol.md 17.4). */
export const proxySaidHttps = (headers: Headers, publicUrl: string): boolean => {
  if (!publicUrl.startsWith("https://")) return false
  const protos = forwardedProtos(headers)
  return protos.some((proto) => proto !== undefined) && protos.every((proto) => proto === undefined || proto === "https")
}
