// The settings AICS_PUBLIC_URL, AICS_SECURITY_CONTACT and AICS_CLIENT_SOURCE as the service reads them at start:
// a public URL with a path is refused (pages link root-relative), a wildcard host is
// warned about, and a security contact must be a mailto: or https: URI; AICS_CLIENT_SOURCE,
// when set, an http(s) URL without credentials; AICS_OWNER_KID, when set, is an Ed25519 did:key.

import { ConfigProvider, Effect, Either, Logger } from "effect"
import { describe, expect, it } from "vitest"
import { clientSourceUrl, publicUrlWarning, securityContactUri, ServiceConfig, type ServiceSettings } from "../../src/app/ServiceConfig.js"

const read = (env: Record<string, string>) => {
  const logs: Array<string> = []
  const logger = Logger.make(({ message }) => logs.push(String(Array.isArray(message) ? message.join(" ") : message)))
  const result = Effect.runSync(Effect.either(Effect.gen(function*() { return yield* ServiceConfig }).pipe(
    Effect.provide(ServiceConfig.fromEnv),
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))),
    Effect.provide(Logger.replace(Logger.defaultLogger, logger))
  )))
  return { result, logs }
}

const settings = (env: Record<string, string>): ServiceSettings => Either.getOrThrow(read(env).result)
const refusal = (env: Record<string, string>): string => Either.match(read(env).result, { onLeft: String, onRight: () => "accepted" })

describe("AICS_PUBLIC_URL", () => {
  it("takes scheme, host and port, with or without the root slash", () => {
    expect(settings({ AICS_PUBLIC_URL: "https://aics.example" }).publicUrl).toBe("https://aics.example")
    expect(settings({ AICS_PUBLIC_URL: "https://aics.example/" }).publicUrl).toBe("https://aics.example")
    expect(settings({ AICS_PUBLIC_URL: "http://[::1]:8080" }).publicUrl).toBe("http://[::1]:8080")
    expect(settings({ AICS_PORT: "9000" }).publicUrl).toBe("http://127.0.0.1:9000")
  })

  it("refuses credentials, a path, a query or a fragment at start, naming the setting", () => {
    for (const url of ["https://aics.example/aics", "https://aics.example/aics/", "https://aics.example/?x=1", "https://aics.example/#top", "https://aics.example?", "ftp://aics.example", "aics.example", "https://user:pw@aics.example"]) {
      expect(refusal({ AICS_PUBLIC_URL: url }), url).toContain("AICS_PUBLIC_URL must be an absolute http(s) URL with no user name or password, path")
    }
  })

  it("is an @authority signed requests may name, unless AICS_AUTHORITY sets the list", () => {
    expect(settings({ AICS_PUBLIC_URL: "https://aics.example", AICS_PORT: "8080" }).authorities).toEqual(["127.0.0.1:8080", "localhost:8080", "aics.example"])
    expect(settings({ AICS_PUBLIC_URL: "http://Aics.Example:8443", AICS_PORT: "8080" }).authorities).toEqual(["127.0.0.1:8080", "localhost:8080", "aics.example:8443"])
    expect(settings({ AICS_PORT: "8080" }).authorities).toEqual(["127.0.0.1:8080", "localhost:8080"])
    expect(settings({ AICS_PUBLIC_URL: "https://aics.example", AICS_AUTHORITY: "other.example" }).authorities).toEqual(["other.example"])
  })

  it("warns at start when the host is a wildcard listening address, no client can reach", () => {
    expect(read({ AICS_HOST: "0.0.0.0", AICS_PORT: "8080" }).logs.join("\n")).toContain("0.0.0.0 is where the service listens")
    expect(read({ AICS_PUBLIC_URL: "http://[::]:8080" }).logs.join("\n")).toContain("[::] is where the service listens")
    expect(read({ AICS_PUBLIC_URL: "https://aics.example" }).logs).toEqual([])
    expect(publicUrlWarning("http://0.0.0.0:1")).toBeDefined()
    expect(publicUrlWarning("http://127.0.0.1:1")).toBeUndefined()
  })
})

describe("AICS_SECURITY_CONTACT", () => {
  it("is optional, and a mailto: address or an https: URL when set", () => {
    expect(settings({}).securityContact).toBeUndefined()
    expect(settings({ AICS_SECURITY_CONTACT: "mailto:security@aics.example" }).securityContact).toBe("mailto:security@aics.example")
    expect(settings({ AICS_SECURITY_CONTACT: "https://aics.example/security" }).securityContact).toBe("https://aics.example/security")
    for (const bad of ["security@aics.example", "http://aics.example/security", "mailto:", "mailto:nobody", "tel:+1", "https://"]) {
      expect(securityContactUri(bad), bad).toBe(false)
      expect(refusal({ AICS_SECURITY_CONTACT: bad }), bad).toContain("AICS_SECURITY_CONTACT must be a mailto: address or an https: URL")
    }
  })
})

describe("AICS_CLIENT_SOURCE", () => {
  it("is optional, and the http(s) URL of a repository when set, refused at start naming the setting otherwise", () => {
    expect(settings({}).clientSource).toBeUndefined()
    expect(settings({ AICS_CLIENT_SOURCE: "https://git.example/aics.git" }).clientSource).toBe("https://git.example/aics.git")
    for (const bad of ["git.example/aics", "ssh://git@git.example/aics", "file:///srv/aics", "https://", "https://git.example/a b"]) {
      expect(clientSourceUrl(bad), bad).toBe(false)
      expect(refusal({ AICS_CLIENT_SOURCE: bad }), bad).toContain(`AICS_CLIENT_SOURCE must be the http(s) URL of the repository holding the aics client's source`)
    }
    // Credentials would be shown to every agent: refused, and not repeated in the refusal.
    const refused = refusal({ AICS_CLIENT_SOURCE: "https://deploy:s3cret@git.example/aics.git" })
    expect(refused).toContain("AICS_CLIENT_SOURCE must be")
    expect(refused).toContain("names a user name or password")
    expect(refused).not.toContain("s3cret")
  })
})

describe("AICS_OWNER_KID", () => {
  it("is optional, and refused with the value as given when it is no Ed25519 did:key", () => {
    expect(settings({}).ownerKid).toBeUndefined()
    const kid = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"
    expect(settings({ AICS_OWNER_KID: kid }).ownerKid).toBe(kid)
    const refused = refusal({ AICS_OWNER_KID: "did:key:zBOGUS" })
    expect(refused).toContain(`AICS_OWNER_KID must be the did:key of an Ed25519 key (did:key:z6Mk...), got "did:key:zBOGUS"`)
    expect(refused).not.toContain("_tag")
  })
})
