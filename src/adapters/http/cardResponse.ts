// The assurance card's exact bytes with their headers (docs/protocol.md section 12.2), as
// /.well-known/aics-card.json and /card?format=json both answer them.

import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { AssuranceCard } from "../../app/Card.js"

/** The card's bytes, X-AICS-Card-SHA256 and X-AICS-Card-Leaf (`leaf`, or `none`). */
export const cardResponse = (card: AssuranceCard, leaf: number | undefined): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.uint8Array(card.bytes, {
    contentType: "application/json",
    headers: {
      "x-aics-card-sha256": card.hash,
      "x-aics-card-leaf": leaf === undefined ? "none" : String(leaf),
      // The leaf header changes when the owner's card policy comes into force.
      "cache-control": "no-cache"
    }
  })
