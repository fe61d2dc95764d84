// SecretHasher on node:crypto's scrypt (RFC 7914). A verifier is
//   scrypt$<N>$<r>$<p>$<U64 salt>$<U64 32-byte key>
// with a 16-byte random salt per secret. N = 2^15, r = 8, p = 1 (about 32 MiB and tens of
// milliseconds per hash, on libuv's thread pool): slow enough that a stolen verifier file
// resists guessing, cheap enough for a login. The parameters travel in the verifier, so
// they can be raised later without invalidating stored ones.

import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import { Effect, Layer } from "effect"
import { decodeU64, encodeU64 } from "../../domain/encoding.js"
import { SecretHasher } from "../../ports/SecretHasher.js"

const PARAMS = { N: 1 << 15, r: 8, p: 1 } as const
const KEY_BYTES = 32
const SALT_BYTES = 16

const derive = (secret: string, salt: Uint8Array, params: { N: number; r: number; p: number }) =>
  Effect.async<Uint8Array, Error>((resume) => {
    scrypt(secret.normalize("NFC"), salt, KEY_BYTES, { ...params, maxmem: 256 * params.N * params.r }, (error, key) =>
      resume(error === null ? Effect.succeed(new Uint8Array(key)) : Effect.fail(error)))
  })

export const makeScryptHasher = (params: { readonly N: number; readonly r: number; readonly p: number } = PARAMS) =>
  SecretHasher.of({
    hash: (secret) =>
      Effect.gen(function*() {
        const salt = new Uint8Array(randomBytes(SALT_BYTES))
        const key = yield* Effect.orDie(derive(secret, salt, params))
        return `scrypt$${params.N}$${params.r}$${params.p}$${encodeU64(salt)}$${encodeU64(key)}`
      }),
    verify: (secret, verifier) => {
      const parts = verifier.split("$")
      const [N, r, p] = parts.slice(1, 4).map(Number)
      const salt = decodeU64(parts[4] ?? "")
      const expected = decodeU64(parts[5] ?? "")
      if (parts.length !== 6 || parts[0] !== "scrypt" || salt === undefined || expected?.length !== KEY_BYTES) return Effect.succeed(false)
      if (![N, r, p].every((n) => Number.isSafeInteger(n) && n! > 0)) return Effect.succeed(false)
      return derive(secret, salt, { N: N!, r: r!, p: p! }).pipe(
        Effect.map((key) => timingSafeEqual(key, expected)),
        Effect.orElseSucceed(() => false)
      )
    }
  })

export const NodeScryptLive = Layer.succeed(SecretHasher, makeScryptHasher())
