// Ed25519 public keys of small order (docs/protocol.md 8, step 5; the identity and the other points of order 2, 4 or
// 8, in any encoding). OpenSSL, behind node:crypto, accepts signatures under such keys, and
// for some of them one signature verifies for every message: anyone could write as that
// key. A key is checked when its chain starts (seq 0), so it is refused once, for good.
// Decoding uses @noble/curves, a pure computation, and costs about 0.1 ms.

import { ed25519 } from "@noble/curves/ed25519.js"

/** True for a small-order key, and for 32 bytes that are not a point at all. */
export const isSmallOrderKey = (publicKey: Uint8Array): boolean => {
  try {
    return ed25519.Point.fromBytes(publicKey).isSmallOrder()
  } catch {
    return true
  }
}
