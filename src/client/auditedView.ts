// One view `aics audit log` compares with the replayed log (audit.ts auditView): where the
// service serves it, what the log implies it is at a time, and how far into the log it
// reaches, so that a view naming leaves logged since the checkpoint replayed is asked again
// once those are replayed too rather than called a lie.

import type { Effect } from "effect"
import { sizeCovering } from "../domain/views/coverage.js"
import type { StorageError } from "../ports/StorageError.js"
import type { ReplayViews } from "./replayStore.js"

/** Members of a served view that are not a function of the log's state: checked apart. */
export const NOT_FOLDED: ReadonlySet<string> = new Set(["checkpoint_note"])

export interface AuditedView {
  /** The view's path and query, as asked and as reported. */
  readonly path: string
  /** The view the replayed log implies at time `at`, by the function the service answers with, read from the replay's store. */
  readonly implied: (views: ReplayViews, at: number) => Effect.Effect<unknown, StorageError>
  /** The served view's members that are a function of the log, anything else in it checked apart (default: all but NOT_FOLDED). */
  readonly folded?: (json: Record<string, unknown>) => Record<string, unknown>
  /**
   * The smallest log size covering every leaf the served view names (default: its `size`).
   * A view past the size replayed is not compared but asked again after newer leaves.
   */
  readonly reach?: (json: Record<string, unknown>) => number
  /**
   * The view carries no checkpoint_note (docs/protocol.md 10.3: the key, grants and
   * directory views, /agora): its reach is not backed by a signed checkpoint. A view that
   * claims to be ahead is then only asked again; one still ahead at the end fails the audit.
   */
  readonly unsigned?: true
  /**
   * What the view says can change by a leaf it does not name (the directory: a recovery key
   * bound since turns recovery_stands false; a name claimed since sets truncated), so its
   * reach does not show it is ahead: a difference is asked again once newer leaves are replayed.
   */
  readonly reachPartial?: true
}

export const foldedMembers = (json: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(json).filter(([member]) => !NOT_FOLDED.has(member)))

/** The size covering the leaf indexes a served view's items give at `members` (anything not an index covers nothing). */
export const reachOfItems = (items: unknown, members: ReadonlyArray<string>): number =>
  sizeCovering((Array.isArray(items) ? items : []).flatMap((item) =>
    typeof item === "object" && item !== null
      ? members.map((member) => (item as Record<string, unknown>)[member]).filter((index): index is number => Number.isSafeInteger(index) && (index as number) >= 0)
      : []))
