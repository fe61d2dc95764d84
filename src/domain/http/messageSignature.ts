// RFC 9421 HTTP Message Signatures, for requests:
//   4.1  Signature-Input: a Dictionary; each member (the label) is an Inner List of
//        component identifiers (Strings) with the signature parameters (2.3) as its
//        Parameters.
//   4.2  Signature: a Dictionary; the member of the same label is the Byte Sequence
//        signature.
//   2.5  The signature base: one line `<component identifier>: <value>` per covered
//        component, in order, then `"@signature-params": <the Inner List>`, lines joined
//        by LF with no final LF, ASCII only; duplicate components are an error.
//   3.1 and 3.3.6  Signing and verifying with Ed25519 (alg "ed25519"): the RFC 8032
//        signature of the signature base's bytes.
//
// The `@signature-params` value is the received Signature-Input member (its covered
// components and parameters, in the order received) serialized by RFC 8941 section 4.1,
// as RFC 9421 section 3.2 step 7 says. For a member received in canonical form, as the
// AICS profile requires, that is the member exactly as received.
//
// signRequest is the client side of the AICS profile (docs/spec/profile.md section 6): it produces
// the three headers of a signed request; aicsProfile.ts checks them on the server.

import * as Data from "effect/Data"
import * as Either from "effect/Either"
import { utf8 } from "../bytes.js"
import type { Ed25519, Sha256 } from "../crypto.js"
import { componentValue, type ComponentError, type HttpRequest } from "./components.js"
import { contentDigest } from "./contentDigest.js"
import {
  byteSequence,
  dictionaryMember,
  innerList,
  integer,
  item,
  parseDictionary,
  serializeDictionary,
  serializeInnerList,
  serializeItem,
  string,
  type Item,
  type Parameters
} from "./structuredFields.js"

/** One signature's Signature-Input member. */
export interface SignatureInput {
  readonly label: string
  /** The covered components, in order: String items, possibly with parameters. */
  readonly components: ReadonlyArray<Item>
  /** The signature parameters (created, expires, nonce, alg, keyid, tag, ...). */
  readonly params: Parameters
  /** The member value exactly as received (the base uses its serialization, see above). */
  readonly text: string
}

export interface SelectedSignature {
  readonly input: SignatureInput
  readonly signature: Uint8Array
}

export class MessageSignatureError extends Data.TaggedError("MessageSignatureError")<{
  /**
   * malformed: a field or member is not what RFC 9421 section 4 defines;
   * label_missing: no member with the label in one of the two fields;
   * component_missing / component_unsupported / component_malformed: a covered component
   * cannot be given a value (components.ts).
   */
  readonly reason:
    | "malformed"
    | "label_missing"
    | "component_missing"
    | "component_unsupported"
    | "component_malformed"
  readonly detail: string
}> {}

const fail = (reason: MessageSignatureError["reason"], detail: string) =>
  Either.left(new MessageSignatureError({ reason, detail }))

const fromComponentError = (e: ComponentError): MessageSignatureError =>
  new MessageSignatureError({ reason: `component_${e.reason}`, detail: e.detail })

/**
 * The signature of `label` from the received Signature-Input and Signature field values
 * (each already combined across field lines). Other labels are parsed for syntax only.
 */
export const selectSignature = (
  signatureInputField: string,
  signatureField: string,
  label: string
): Either.Either<SelectedSignature, MessageSignatureError> => {
  const inputs = parseDictionary(signatureInputField)
  if (Either.isLeft(inputs)) return fail("malformed", `Signature-Input: ${inputs.left.reason}`)
  const signatures = parseDictionary(signatureField)
  if (Either.isLeft(signatures)) return fail("malformed", `Signature: ${signatures.left.reason}`)
  const input = dictionaryMember(inputs.right, label)
  if (input === undefined) return fail("label_missing", `Signature-Input has no ${label} member`)
  const signature = dictionaryMember(signatures.right, label)
  if (signature === undefined) return fail("label_missing", `Signature has no ${label} member`)
  if (input.value._tag !== "InnerList") return fail("malformed", `Signature-Input ${label} is not an inner list`)
  if (input.value.items.some((component) => component.value._tag !== "String")) {
    return fail("malformed", `Signature-Input ${label} lists a component that is not a string`)
  }
  if (
    signature.value._tag !== "Item" ||
    signature.value.value._tag !== "ByteSequence" ||
    signature.value.params.length > 0
  ) {
    return fail("malformed", `Signature ${label} is not a byte sequence`)
  }
  return Either.right({
    input: { label, components: input.value.items, params: input.value.params, text: input.text },
    signature: signature.value.value.value
  })
}

/** RFC 9421 section 2.5: the signature base of a request for one Signature-Input member. */
export const signatureBase = (
  request: HttpRequest,
  input: Pick<SignatureInput, "components" | "params">
): Either.Either<string, MessageSignatureError> => {
  const lines: Array<string> = []
  const seen = new Set<string>()
  for (const component of input.components) {
    const identifier = serializeItem(component)
    if (seen.has(identifier)) return fail("malformed", `${identifier} is covered twice`)
    seen.add(identifier)
    const value = componentValue(request, component)
    if (Either.isLeft(value)) return Either.left(fromComponentError(value.left))
    lines.push(`${identifier}: ${value.right}`)
  }
  let params: string
  try {
    params = serializeInnerList(innerList(input.components, input.params))
  } catch (e) {
    return fail("malformed", e instanceof Error ? e.message : String(e))
  }
  lines.push(`"@signature-params": ${params}`)
  const base = lines.join("\n")
  // Step 4 of 2.5: a base with non-ASCII characters is an error.
  if (!/^[\x00-\x7f]*$/.test(base)) return fail("malformed", "the signature base is not ASCII")
  return Either.right(base)
}

/** RFC 9421 section 3.3.6: whether an Ed25519 signature of the signature base verifies. */
export const verifyEd25519 = (
  ed25519: Ed25519,
  publicKey: Uint8Array,
  base: string,
  signature: Uint8Array
): boolean => signature.length === 64 && ed25519.verify(publicKey, utf8(base), signature)

// ---------------------------------------------------------------------------------------
// The AICS profile's template (docs/spec/profile.md section 6), shared with aicsProfile.ts.

export const AICS_LABEL = "aics"
export const AICS_TAG = "aics"
export const AICS_ALG = "ed25519"
export const AICS_COMPONENTS = ["@method", "@authority", "@path", "content-digest"] as const

export interface AicsSigningInput {
  /** The agent's 32-byte Ed25519 seed. */
  readonly seed: Uint8Array
  /** The agent's did:key. */
  readonly keyid: string
  /** U64 of 16 to 32 random bytes. */
  readonly nonce: string
  /** Unix seconds. */
  readonly created: number
  /** Unix seconds. */
  readonly expires: number
  readonly method: string
  /** The authority the request is sent to, as the Host header will carry it. */
  readonly authority: string
  /** Only to leave out a default port from @authority. */
  readonly scheme?: string
  /** The path without the query. */
  readonly path: string
  /** The content; empty for a request without one. */
  readonly body: Uint8Array
}

export interface SignedHeaders {
  readonly "Content-Digest": string
  readonly "Signature-Input": string
  readonly Signature: string
  /** The bytes signed, for logs and tests; not sent. */
  readonly signatureBase: string
}

/**
 * The Content-Digest, Signature-Input and Signature values of an AICS-signed request.
 * Values this function cannot write (a nonce or keyid outside printable ASCII, a time
 * that is not an integer, a method or path that has no signature base) are an error.
 */
export const signRequest = (
  input: AicsSigningInput,
  crypto: { readonly ed25519: Ed25519; readonly sha256: Sha256 }
): Either.Either<SignedHeaders, MessageSignatureError> => {
  const digest = contentDigest(crypto.sha256, input.body)
  const params: Parameters = [
    ["created", integer(input.created)],
    ["expires", integer(input.expires)],
    ["nonce", string(input.nonce)],
    ["keyid", string(input.keyid)],
    ["alg", string(AICS_ALG)],
    ["tag", string(AICS_TAG)]
  ]
  const list = innerList(
    AICS_COMPONENTS.map((name) => item(string(name))),
    params
  )
  let text: string
  try {
    text = serializeInnerList(list)
  } catch (e) {
    return fail("malformed", e instanceof Error ? e.message : String(e))
  }
  const request: HttpRequest = {
    method: input.method,
    authority: input.authority,
    path: input.path,
    headers: (name) => (name === "content-digest" ? digest : undefined),
    ...(input.scheme === undefined ? {} : { scheme: input.scheme })
  }
  return Either.map(signatureBase(request, { components: list.items, params }), (base) => {
    const signature = crypto.ed25519.sign(input.seed, utf8(base))
    return {
      "Content-Digest": digest,
      "Signature-Input": `${AICS_LABEL}=${text}`,
      Signature: serializeDictionary([{ key: AICS_LABEL, value: item(byteSequence(signature)) }]),
      signatureBase: base
    }
  })
}
