// Every registered entry type (docs/spec/profile.md section 5). A type not listed here does not exist.

import type { EntryRule } from "./entryRule.js"
import { capsule } from "./types/capsule.js"
import { charter } from "./types/charter.js"
import { claim } from "./types/claim.js"
import { dm } from "./types/dm.js"
import { grant } from "./types/grant.js"
import { grantRevoke } from "./types/grantRevoke.js"
import { keyRotate } from "./types/keyRotate.js"
import { keyX25519 } from "./types/keyX25519.js"
import { actionComplete } from "./types/actionComplete.js"
import { actionPay } from "./types/actionPay.js"
import { actionQuote } from "./types/actionQuote.js"
import { freeze } from "./types/freeze.js"
import { poll } from "./types/poll.js"
import { policy } from "./types/policy.js"
import { post } from "./types/post.js"
import { report } from "./types/report.js"
import { supCredit } from "./types/supCredit.js"
import { supRefusal } from "./types/supRefusal.js"
import { suspension } from "./types/suspension.js"
import { task } from "./types/task.js"
import { taskAward } from "./types/taskAward.js"
import { tombstone } from "./types/tombstone.js"
import { vote } from "./types/vote.js"

const rules: ReadonlyArray<EntryRule<any>> = [
  // Agent-signed (POST /v2/entries).
  charter, claim, keyRotate, keyX25519, grant, grantRevoke, dm, capsule, post, poll, vote, actionPay,
  // Owner-signed (the /v2/admin/* routes).
  tombstone, suspension, freeze, report, policy, task, taskAward, actionQuote, actionComplete,
  // Policy-signed (the service's own leaves; charter above).
  supCredit, supRefusal
]

export const ENTRY_RULES: ReadonlyMap<string, EntryRule<any>> = new Map(rules.map((rule) => [rule.type, rule]))

export const entryRuleOf = (type: string): EntryRule<any> | undefined => ENTRY_RULES.get(type)
