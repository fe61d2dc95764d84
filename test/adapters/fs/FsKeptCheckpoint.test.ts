import { join } from "node:path"
import { Effect } from "effect"
import { FsKeptCheckpointLive } from "../../../src/adapters/fs/FsKeptCheckpoint.js"
import { keptCheckpointContract } from "../../ports/KeptCheckpoint.contract.js"
import { tempDir } from "./tempDir.js"

keptCheckpointContract("FsKeptCheckpoint", { fresh: Effect.map(tempDir("kept-checkpoint"), (dir) => FsKeptCheckpointLive(join(dir, "last-checkpoint"))), durable: true })
