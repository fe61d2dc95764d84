// Monitoring the log (docs/protocol.md "Witnessing"): a monitor follows the log's signed
// checkpoints and remembers the last one it accepted in a state file. Each new checkpoint
// must extend it, by a consistency proof (from the log's API, checked against both signed
// roots: checkConsistency, witnesses.ts). A checkpoint shown not to (another root at the
// size it saw, or tiles that hash to the newer signed root and give another root at the
// older size) is a split view: the log signed two histories, and the two signed notes are
// the evidence, reported together and kept (the state is not moved past them). A proof
// that fails alone is no evidence (a proxy or a cache may have spoilt it): when the tiles
// show the two consistent, or show nothing, the look fails with the service's error and
// the state stays.
// A checkpoint older than the kept one, even a consistent one, is a freshness warning (the
// result `Older`): the log, or a node or cache in front of it, answered a tree it had
// already grown past: a rollback, a lagging node or a cache; leaves withheld from this
// monitor look just like this. The state keeps the newer checkpoint.
// What `aics monitor --json` prints is monitorResultJson's projection of a look's result.

import { readFile } from "node:fs/promises"
import { Effect, Either } from "effect"
import { writeFileAtomically } from "../adapters/fs/atomicFile.js"
import { fromUtf8, utf8 } from "../domain/bytes.js"
import { encodeB64 } from "../domain/encoding.js"
import type { Checkpoint } from "../domain/note/checkpoint.js"
import { verifyCheckpointNote } from "./checkpoint.js"
import { keyFileError } from "./errors.js"
import { getBytes } from "./http.js"
import { rootHashJson } from "./verify.js"
import { checkConsistency, requireCosignatures } from "./witnesses.js"
import type { LogClient } from "./write.js"

/** The state file: the last checkpoint the monitor accepted, as the log signed it. */
interface MonitorState {
  readonly origin: string
  readonly size: number
  readonly root_hash: string
  readonly note: string
}

export type MonitorResult =
  | { readonly _tag: "First"; readonly checkpoint: Checkpoint }
  | { readonly _tag: "Same"; readonly checkpoint: Checkpoint }
  | { readonly _tag: "Grew"; readonly from: number; readonly checkpoint: Checkpoint }
  /**
   * An older checkpoint, consistent with the one kept: a warning, not a split view (a
   * rollback, a lagging node or a cache; withheld leaves look like this). The state is unchanged.
   */
  | { readonly _tag: "Older"; readonly kept: number; readonly checkpoint: Checkpoint }
  | { readonly _tag: "SplitView"; readonly reason: string; readonly previousNote: string; readonly currentNote: string }

const readState = async (path: string): Promise<MonitorState | undefined> => {
  let text: string
  try {
    text = await readFile(path, "utf8")
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined
    throw keyFileError(`cannot read the monitor state ${path}: ${(error as Error).message}`)
  }
  try {
    const state = JSON.parse(text) as MonitorState
    if (typeof state.note === "string" && typeof state.size === "number") return state
  } catch {
    // reported below
  }
  throw keyFileError(`${path} is not a monitor state file`)
}

const saveState = async (path: string, checkpoint: Checkpoint, note: Uint8Array): Promise<void> => {
  const state: MonitorState = { origin: checkpoint.origin, size: checkpoint.size, root_hash: encodeB64(checkpoint.rootHash), note: fromUtf8(note) }
  const saved = await Effect.runPromise(Effect.either(writeFileAtomically(path, utf8(JSON.stringify(state, null, 2) + "\n"), 0o644)))
  if (Either.isLeft(saved)) throw keyFileError(`cannot write the monitor state ${path}: ${saved.left.message}`)
}

/** One look at the log: the checkpoint now, against the one the state file kept. */
export const monitorOnce = async (client: LogClient, statePath: string): Promise<MonitorResult> => {
  const note = await getBytes(client.service, "/checkpoint")
  const checkpoint = verifyCheckpointNote(note, client.vkey, "the checkpoint")
  if (client.witnesses !== undefined) requireCosignatures(note, client.vkey, client.witnesses, "the checkpoint")
  const state = await readState(statePath)
  if (state === undefined) {
    await saveState(statePath, checkpoint, note)
    return { _tag: "First", checkpoint }
  }
  // The kept note is checked again: a state file is only as good as the signature in it.
  const kept = verifyCheckpointNote(utf8(state.note), client.vkey, `the checkpoint kept in ${statePath}`)
  const split = (reason: string): MonitorResult => ({ _tag: "SplitView", reason, previousNote: state.note, currentNote: fromUtf8(note) })
  if (checkpoint.size === kept.size) {
    return encodeB64(checkpoint.rootHash) === encodeB64(kept.rootHash)
      ? { _tag: "Same", checkpoint }
      : split(`two checkpoints of size ${kept.size} with different roots`)
  }
  if (checkpoint.size < kept.size) {
    return (await checkConsistency(client.service, checkpoint, kept))
      ? { _tag: "Older", kept: kept.size, checkpoint }
      : split(`the checkpoint of size ${checkpoint.size} is not a prefix of the one of size ${kept.size} seen before ` +
        `(the tiles of size ${kept.size} give another root at size ${checkpoint.size})`)
  }
  if (!(await checkConsistency(client.service, kept, checkpoint))) {
    return split(`the checkpoint of size ${checkpoint.size} does not extend the one of size ${kept.size} seen before ` +
      `(its tiles give another root at size ${kept.size})`)
  }
  await saveState(statePath, checkpoint, note)
  return { _tag: "Grew", from: kept.size, checkpoint }
}

/** One line saying what a look found. */
export const describeMonitorResult = (r: MonitorResult): string => {
  switch (r._tag) {
    case "First": return `first checkpoint ${r.checkpoint.origin} size ${r.checkpoint.size} root ${encodeB64(r.checkpoint.rootHash)}: kept`
    case "Same": return `checkpoint size ${r.checkpoint.size}: unchanged`
    case "Grew": return `checkpoint size ${r.checkpoint.size} extends size ${r.from} (consistency proof verified): kept`
    case "Older":
      return `WARNING: the log answered an older tree than seen before: checkpoint size ${r.checkpoint.size}, below the kept size ${r.kept} ` +
        "(a prefix of it, consistency proof verified): a rollback, a lagging node or a cache; leaves withheld from you look like this. The kept checkpoint stays"
    case "SplitView": return `SPLIT VIEW: ${r.reason}`
  }
}

/**
 * What a look found as `aics monitor --json` prints it: snake_case, the checkpoint's root as
 * verify's report gives it (rootHashJson, verify.ts); an older checkpoint adds the kept size
 * (`kept_size`); a split view gives both signed notes whole, the evidence.
 */
export const monitorResultJson = (r: MonitorResult) =>
  r._tag === "SplitView"
    ? { result: "split_view", reason: r.reason, previous_checkpoint: r.previousNote, current_checkpoint: r.currentNote }
    : { result: r._tag.toLowerCase(), size: r.checkpoint.size, ...rootHashJson(r.checkpoint.rootHash), ...(r._tag === "Older" ? { kept_size: r.kept } : {}) }

/** The exit status of `aics monitor --once` when the log answered an older checkpoint than the kept one (1 is a split view). */
export const MONITOR_OLDER_EXIT = 3
