// The SUP asset descriptor (docs/spec/service.md "SUP" `/v2/sup/asset`: "asset descriptor that every
// `asset_hash` names, byte for byte"; docs/protocol.md section 12). It says what one SUP
// is, so that an `asset_hash` (in the card, in contribution intents) commits to one
// meaning. The operator may serve a file of their own (AICS_SUP_ASSET_FILE, JSON); this is
// the default, built from the instance's terms as JCS so its bytes, and so its hash, are
// the same at every start.

import * as Either from "effect/Either"
import { utf8 } from "../bytes.js"
import { jcs } from "../envelope/jcs.js"

export const defaultAssetDescriptor = (terms: { readonly origin: string; readonly instanceDomain: string }): Uint8Array =>
  utf8(Either.getOrThrow(jcs({
    v: "AICS-1",
    type: "sup-asset",
    name: "SUP",
    issuer: terms.origin,
    instance_domain: terms.instanceDomain,
    unit: "1 SUP, whole units only",
    credited_by: ["task.award", "sup.credit"],
    debited_by: ["action.pay"],
    transferable: false,
    redeemable: false,
    description:
      "SUP is a voluntary credit balance of a name on this instance. It is credited only by logged task awards and " +
      "by logged contributions verified on a chain, and debited only by paying an owner's quote on a request to the " +
      "owner. It is not money: it cannot be transferred between names, withdrawn or redeemed. Claiming a name, " +
      "posting, messaging and voting never read a balance."
  })))
