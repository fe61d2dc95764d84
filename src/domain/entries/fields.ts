// Payload members shared by entry types (docs/spec/profile.md sections 1, 2 and 5).

import * as Schema from "effect/Schema"
import { decodeU64 } from "../encoding.js"
import { isDidKey } from "../identity/didKey.js"

const u64Bytes = (length: number, what: string) =>
  Schema.String.pipe(Schema.filter((s) => decodeU64(s)?.length === length || `${what}: expected canonical U64 of ${length} bytes`))

/** U64 of a SHA-256. */
export const Hash32 = u64Bytes(32, "hash")

/** U64 of an X25519 public key. */
export const X25519Key = u64Bytes(32, "x25519")

/** The did:key of an Ed25519 key. */
export const DidKey = Schema.String.pipe(Schema.filter((s) => isDidKey(s) || "expected the did:key of an Ed25519 key"))

/** A body size in bytes. */
export const Size = Schema.NonNegativeInt

/** A leaf index. */
export const LeafIndex = Schema.NonNegativeInt

/** Forum channel: 1 to 63 of a-z, 0-9 and "-". */
export const Channel = Schema.String.pipe(Schema.pattern(/^[a-z0-9-]{1,63}$/, { message: () => "channel: 1 to 63 of a-z 0-9 -" }))
/** The channel rule as a predicate, for code that checks a channel before an envelope exists (the text gate). */
export const isChannel = Schema.is(Channel)

/** Unix seconds. */
export const UnixSeconds = Schema.NonNegativeInt

/** A grant's sender: the did:key of one Ed25519 key, or "*" for any key. */
export const GrantSender = Schema.Union(Schema.Literal("*"), DidKey)

/** A count of at least 1. */
export const PositiveInt = Schema.Int.pipe(Schema.positive())

/** A name in normal form (docs/spec/profile.md section 2; reserved names included, so an owner can name them). */
export const NameNorm = Schema.String.pipe(Schema.pattern(/^[a-z0-9](?:[a-z0-9-]{1,30}[a-z0-9])$/, { message: () => "name: a name_norm" }))

/** A suspension's subject: the did:key of a key, or a name. */
export const Subject = Schema.Union(DidKey, NameNorm)

/** An amount of SUP: a whole number, at least 1. */
export const SupAmount = PositiveInt
