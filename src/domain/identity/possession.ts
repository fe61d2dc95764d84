// A new key's proof of possession (docs/spec/profile.md section 5, key.rotate): `new_sig` is the new
// key's Ed25519 signature, U64, over the UTF-8 bytes of
//   JCS({"name": <name>, "new_kid": <new kid>, "origin": <log origin>, "prev_kid": <current kid>})
// The origin ties it to this log and prev_kid to the one rotation it was made for, so it
// cannot be replayed onto another log, name or later rotation. Clients use
// rotationMessage to sign; the sequencer verifies with payloadSignatureCheck.

import * as Either from "effect/Either"
import { utf8 } from "../bytes.js"
import type { Ed25519 } from "../crypto.js"
import { decodeU64 } from "../encoding.js"
import type { PayloadSignatureCheck } from "../entries/entryRule.js"
import { jcs } from "../envelope/jcs.js"
import { publicKeyFromDidKey } from "./didKey.js"
import { isSmallOrderKey } from "./smallOrder.js"

/** The bytes the new key signs. */
export const rotationMessage = (name: string, newKid: string, origin: string, prevKid: string): Uint8Array =>
  // Plain strings always have a JCS form.
  utf8(Either.getOrThrow(jcs({ name, new_kid: newKid, origin, prev_kid: prevKid })))

/** A PayloadSignatureCheck over the given Ed25519 implementation. */
export const payloadSignatureCheck = (ed25519: Ed25519): PayloadSignatureCheck => (kid, message, signature) => {
  const publicKey = publicKeyFromDidKey(kid)
  const sig = decodeU64(signature)
  if (publicKey === undefined || sig === undefined || sig.length !== 64) return false
  // A small-order key proves nothing (some signatures verify for every message under it).
  if (isSmallOrderKey(publicKey)) return false
  return ed25519.verify(publicKey, message, sig)
}
