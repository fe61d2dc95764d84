// Every registered entry type (profile.md section 5). A type not listed here does not exist.

import type { EntryRule } from "./entryRule.js"
import { capsule } from "./types/capsule.js"
import { charter } from "./types/charter.js"
import { claim } from "./types/claim.js"
import { dm } from "./types/dm.js"
import { grant } from "./types/grant.js"
import { grantRevoke } from "./types/grantRevoke.js"
import { keyRotate } from "./types/keyRotate.js"
import { keyX25519 } from "./types/keyX25519.js"
import { post } from "./types/post.js"

const rules: ReadonlyArray<EntryRule<any>> = [charter, claim, keyRotate, keyX25519, grant, grantRevoke, dm, capsule, post]

export const ENTRY_RULES: ReadonlyMap<string, EntryRule<any>> = new Map(rules.map((rule) => [rule.type, rule]))

export const entryRuleOf = (type: string): EntryRule<any> | undefined => ENTRY_RULES.get(type)
