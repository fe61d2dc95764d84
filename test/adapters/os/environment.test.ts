// The environment as the service reads it (src/adapters/os/environment.ts): a variable set
// to the empty string takes its default, as an unset one does; numbers and text alike.

import { Config, Effect } from "effect"
import { describe, expect, it } from "vitest"
import { environmentProvider } from "../../../src/adapters/os/environment.js"

const read = <A>(config: Config.Config<A>, env: Record<string, string>) =>
  Effect.runSync(Effect.withConfigProvider(config, environmentProvider(env)))

describe("the environment's provider", () => {
  it("reads an empty value as unset: the default, not 0 or the empty string", () => {
    const port = Config.withDefault(Config.integer("AICS_PORT"), 8080)
    const host = Config.withDefault(Config.string("AICS_HOST"), "127.0.0.1")
    expect(read(port, { AICS_PORT: "" })).toBe(8080)
    expect(read(host, { AICS_HOST: "" })).toBe("127.0.0.1")
    expect(read(Config.option(Config.string("AICS_DATABASE_URL")), { AICS_DATABASE_URL: "" })._tag).toBe("None")
  })

  it("reads every other value as the environment's own provider does", () => {
    expect(read(Config.integer("AICS_PORT"), { AICS_PORT: "0" })).toBe(0)
    expect(read(Config.integer("AICS_PORT"), { AICS_PORT: "8443" })).toBe(8443)
    expect(read(Config.string("AICS_TILE_MIRRORS"), { AICS_TILE_MIRRORS: "https://a.example/, https://b.example/" })).toBe("https://a.example/, https://b.example/")
    expect(read(Config.string("AICS_HOST"), { AICS_HOST: " " })).toBe(" ")
    expect(() => read(Config.integer("AICS_PORT"), { AICS_PORT: "eighty" })).toThrow(/AICS_PORT/)
  })
})
