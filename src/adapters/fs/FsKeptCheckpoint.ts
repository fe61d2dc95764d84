// The checkpoint a node keeps in its data folder (ports/KeptCheckpoint.ts): one file, the
// signed note as published, replaced atomically (atomicFile.ts: a temporary file fsynced,
// renamed over, the folder fsynced), so a crash leaves the old note or the new one.

import { Layer } from "effect"
import { KeptCheckpoint } from "../../ports/KeptCheckpoint.js"
import { writeFileAtomically } from "./atomicFile.js"
import { readOptionalFile } from "./readOptional.js"

export const FsKeptCheckpointLive = (path: string) =>
  Layer.succeed(KeptCheckpoint, {
    read: readOptionalFile("read the kept checkpoint", path),
    keep: (note) => writeFileAtomically(path, note, 0o644)
  })
