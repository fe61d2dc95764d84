import { join } from "node:path"
import { Effect } from "effect"
import { FsCosignaturesLive } from "../../../src/adapters/fs/FsCosignatures.js"
import { FsWitnessStateLive } from "../../../src/adapters/fs/FsWitnessState.js"
import { cosignaturesContract } from "../../ports/Cosignatures.contract.js"
import { witnessStateContract } from "../../ports/WitnessState.contract.js"
import { tempDir } from "./tempDir.js"

witnessStateContract("FsWitnessState", { fresh: Effect.map(tempDir("witness-state"), FsWitnessStateLive), durable: true })
cosignaturesContract("FsCosignatures", { fresh: Effect.map(tempDir("cosignatures"), (dir) => FsCosignaturesLive(join(dir, "cosignatures.json"), join(dir, "witness-alarms.json"))), durable: true })
