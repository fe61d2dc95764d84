// How the projection stores write the state's values as text (issue 12): JSON, with the
// persistent collections and bytes the state holds tagged so that they read back as the
// same values (a HashMap as its entries, a Chunk or HashSet as its elements, bytes as
// base64). Shared by the SQLite and PostgreSQL stores, so both hold the same text.

import { Chunk, HashMap, HashSet } from "effect"

type Tagged =
  | { readonly $bytes: string }
  | { readonly $map: ReadonlyArray<readonly [unknown, unknown]> }
  | { readonly $set: ReadonlyArray<unknown> }
  | { readonly $chunk: ReadonlyArray<unknown> }

const toTagged = (value: unknown): unknown => {
  if (value === null || typeof value !== "object") return value
  if (value instanceof Uint8Array) return { $bytes: Buffer.from(value).toString("base64") }
  if (HashMap.isHashMap(value)) return { $map: Array.from(value, ([k, v]) => [toTagged(k), toTagged(v)]) }
  if (HashSet.isHashSet(value)) return { $set: Array.from(value, toTagged) }
  if (Chunk.isChunk(value)) return { $chunk: Chunk.toReadonlyArray(value).map(toTagged) }
  if (Array.isArray(value)) return value.map(toTagged)
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = toTagged(v)
  return out
}

const fromTagged = (value: unknown): unknown => {
  if (value === null || typeof value !== "object") return value
  if (Array.isArray(value)) return value.map(fromTagged)
  const tagged = value as Partial<Record<keyof UnionKeys<Tagged>, unknown>>
  if (typeof tagged.$bytes === "string") return new Uint8Array(Buffer.from(tagged.$bytes, "base64"))
  if (Array.isArray(tagged.$map)) return HashMap.fromIterable((tagged.$map as ReadonlyArray<[unknown, unknown]>).map(([k, v]) => [fromTagged(k), fromTagged(v)]))
  if (Array.isArray(tagged.$set)) return HashSet.fromIterable((tagged.$set as ReadonlyArray<unknown>).map(fromTagged))
  if (Array.isArray(tagged.$chunk)) return Chunk.fromIterable((tagged.$chunk as ReadonlyArray<unknown>).map(fromTagged))
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) out[k] = fromTagged(v)
  return out
}

type UnionKeys<T> = { [K in T extends unknown ? keyof T : never]: unknown }

/** The stored text of a state value. */
export const stateJson = (value: unknown): string => JSON.stringify(toTagged(value))

/** The state value of stored text. */
export const stateOfJson = (text: string): unknown => fromTagged(JSON.parse(text))
