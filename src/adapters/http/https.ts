// Whether a request reached the service over HTTPS (docs/protocol.md section 13.1). The
// service itself listens on plain HTTP behind a TLS-terminating proxy, so it cannot see
// TLS; it relies on what the operator configured and on what the proxy adds:
//   - AICS_PUBLIC_URL is https: the operator states that clients reach the service through
//     TLS only. A proxy that also forwards plain HTTP says so in X-Forwarded-Proto or
//     Forwarded (proto=): when either is present, it must say https.
//   - AICS_SUP_ALLOW_HTTP=true takes plain HTTP too (a local test instance).

export const reachedOverHttps = (
  headers: Readonly<Record<string, string | undefined>>,
  settings: { readonly publicUrl: string; readonly allowHttp: boolean }
): boolean => {
  if (settings.allowHttp) return true
  if (!settings.publicUrl.startsWith("https://")) return false
  const forwardedProto = headers["x-forwarded-proto"]?.split(",")[0]?.trim().toLowerCase()
  if (forwardedProto !== undefined && forwardedProto !== "https") return false
  const forwarded = headers["forwarded"]?.split(",")[0]?.match(/(?:^|;)\s*proto="?([A-Za-z]+)"?/i)?.[1]?.toLowerCase()
  return forwarded === undefined || forwarded === "https"
}
