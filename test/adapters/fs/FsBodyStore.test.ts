import { Effect } from "effect"
import { FsBodyStoreLive } from "../../../src/adapters/fs/FsBodyStore.js"
import { bodyStoreContract } from "../../ports/BodyStore.contract.js"
import { tempDir } from "./tempDir.js"

bodyStoreContract("FsBodyStore", {
  fresh: Effect.map(tempDir("bodies"), (dir) => FsBodyStoreLive(`${dir}/bodies`)),
  durable: true
})
