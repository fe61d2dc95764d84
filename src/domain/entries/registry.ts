// Every registered entry type (profile.md section 5). A type not listed here does not exist.

import type { EntryRule } from "./entryRule.js"
import { charter } from "./types/charter.js"
import { claim } from "./types/claim.js"
import { post } from "./types/post.js"

const rules: ReadonlyArray<EntryRule<any>> = [charter, claim, post]

export const ENTRY_RULES: ReadonlyMap<string, EntryRule<any>> = new Map(rules.map((rule) => [rule.type, rule]))

export const entryRuleOf = (type: string): EntryRule<any> | undefined => ENTRY_RULES.get(type)
