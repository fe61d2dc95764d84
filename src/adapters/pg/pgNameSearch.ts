// The directory's search by a part of a name on PostgreSQL (PgProjectionStore's directory):
// the claim indexes of the first names, in claim order after a claim index, that contain
// the part.
//
// There are two ways to find them, and which is cheap depends on how common the part is:
//   - walking the names in claim order, keeping those that match, reads about need / share
//     rows: a few hundred for a part in every other name, the whole table for a rare one;
//   - the pg_trgm index gives every match at once, which then sort: cheap for a rare part,
//     a share of the whole table for a common one (40,000 rows, 170 ms, for "ber" at a
//     million names of bench/scale.ts).
// Neither the planner nor the caller knows the part's share beforehand, so the search
// walks a first window of PROBE_ROWS names and learns it from what matched there. Then it
// weighs the two: the rows still to walk for the rest of the page at that share, against
// the part's matches in the whole table (that share of the names), each of which costs the
// index about INDEX_ROW_COST rows of walking (a bitmap heap visit and a recheck: 4 us a
// match against 1.1 us a row walked, EXPLAIN ANALYZE at 22,000 names, bench/README.md
// "Session 17"). It walks on (a window twice the estimate, so a share a little lower than
// measured still fills it) while walking is the cheaper and fits in WALK_BUDGET rows in
// all; otherwise the index gives the matches after the last name walked. Either way a
// search reads at most about WALK_BUDGET rows, or the matches of a part rare enough that
// they cost less. (Walking up to WALK_BUDGET whatever the table's size, as before, read
// 20,000 rows for a part in one name of 700 at 22,000 names: 30 ms where the index takes 2.)
//
// The walk reads aics_projection_name_search (migrations.ts 0018): the claim index and
// the name alone, ~50 bytes a row against ~500 in aics_projection_names, so a window of
// thousands of names is a few dozen pages that stay in the buffer cache. Its trigram index
// is of the name with hyphens made x (pg_trgm would split words there), so the index is
// asked for the part made the same way, and the name itself is checked against the part.
// A part under three characters has no trigram, so the index cannot help it: it walks on
// in growing windows.

import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import { toNumber } from "./pgValues.js"

/** How the search spends its reads: the first window, and the rows it walks before asking the index. */
export interface SearchBudget {
  readonly probeRows: number
  readonly walkBudget: number
  /** What the index costs a match it reads, in rows walked. */
  readonly indexRowCost: number
  /** The largest window a part without trigrams walks at once. */
  readonly maxWindow: number
}

export const SEARCH_BUDGET: SearchBudget = { probeRows: 2048, walkBudget: 32_768, indexRowCost: 4, maxWindow: 65_536 }

/** What the walk has seen so far. */
export interface WalkSoFar {
  readonly walked: number
  readonly found: number
  readonly need: number
  /** Whether the index can answer the part (it has a trigram: three characters or more). */
  readonly indexed: boolean
  /** About how many names the table holds (the index reads the part's matches among all of them). */
  readonly names: number
}

/**
 * The next step after a window that did not fill the page and did not reach the end: the
 * size of the next window to walk, or "index" when the part is too rare to find by walking
 * within the budget.
 */
export const nextStep = (soFar: WalkSoFar, budget: SearchBudget = SEARCH_BUDGET): number | "index" => {
  const { walked, found, need, indexed, names } = soFar
  const estimate = found === 0 ? Number.POSITIVE_INFINITY : Math.ceil(((need - found) * walked) / found)
  if (!indexed) return Math.min(budget.maxWindow, Math.max(2 * walked, 2 * estimate))
  const matches = (found * names) / walked
  if (walked + estimate > budget.walkBudget || budget.indexRowCost * matches < estimate) return "index"
  return Math.min(budget.walkBudget - walked, Math.max(budget.probeRows, 2 * estimate))
}

/** `%part%` for LIKE, with the part's own %, _ and \ escaped. */
export const likeContaining = (part: string): string => `%${part.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

const claimIndexes = (values: ReadonlyArray<unknown> | null): Array<number> => (values ?? []).map(toNumber)

/** The claim indexes of the first `need` names after `after` containing `part`, in claim order. */
export const searchClaimIndexes = (
  sql: SqlClient.SqlClient,
  { part, after, need }: { readonly part: string; readonly after: number; readonly need: number },
  budget: SearchBudget = SEARCH_BUDGET
): Effect.Effect<Array<number>, SqlError> =>
  Effect.gen(function*() {
    const like = likeContaining(part)
    const indexedLike = likeContaining(part.replaceAll("-", "x"))
    const indexed = part.length >= 3
    // One window: how many names it held, the last of them, and its first matches.
    const walk = (from: number, rows: number, wanted: number) =>
      Effect.map(
        sql<{ walked: string; last: string | null; newest: string | null; hits: ReadonlyArray<unknown> | null }>`WITH head AS (
            SELECT claim_index, name FROM aics_projection_name_search WHERE claim_index > ${from} ORDER BY claim_index LIMIT ${rows})
          SELECT count(*) AS walked, max(claim_index) AS last,
            (SELECT max(claim_index) FROM aics_projection_name_search) AS newest,
            (array_agg(claim_index ORDER BY claim_index) FILTER (WHERE name LIKE ${like}))[1:${wanted}] AS hits
          FROM head`,
        ([row]) => {
          const walked = toNumber(row!.walked)
          const last = row!.last === null ? from : toNumber(row!.last)
          // The names' density among claim indexes where this window walked, over them all.
          const names = last > from && row!.newest !== null ? Math.ceil((walked * (toNumber(row!.newest) + 1)) / (last - from)) : walked
          return { walked, last, names, hits: claimIndexes(row!.hits) }
        }
      )
    // Every match after `from` from the trigram index (claim_index + 0 and OFFSET 0 keep the
    // planner from walking the claim order with the LIKE as a filter, which for a rare part is
    // the whole table), then the first of them.
    const fromIndex = (from: number, wanted: number) =>
      Effect.map(
        sql<{ claim_index: string }>`SELECT claim_index FROM (SELECT claim_index FROM aics_projection_name_search
            WHERE claim_index + 0 > ${from} AND translate(name, '-', 'x') LIKE ${indexedLike} AND name LIKE ${like} OFFSET 0) AS matching
          ORDER BY claim_index LIMIT ${wanted}`,
        (rows) => rows.map((row) => toNumber(row.claim_index))
      )
    const hits: Array<number> = []
    let from = after
    let walked = 0
    let window = budget.probeRows
    for (;;) {
      const seen = yield* walk(from, window, need - hits.length)
      hits.push(...seen.hits)
      if (hits.length >= need || seen.walked < window) return hits
      walked += seen.walked
      from = seen.last
      const next = nextStep({ walked, found: hits.length, need, indexed, names: seen.names }, budget)
      if (next === "index") return [...hits, ...(yield* fromIndex(from, need - hits.length))]
      window = next
    }
  })
