// The service's witness key (C2SP tlog-cosignature): it signs cosignature/v1 messages only,
// never a note of the log, so the log key and the witness key stay separate statements.

import { Context } from "effect"
import type { SigningKey } from "./Signer.js"

export class WitnessSigner extends Context.Tag("aics/WitnessSigner")<WitnessSigner, SigningKey>() {}
