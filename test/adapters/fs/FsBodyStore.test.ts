import { Effect, Layer } from "effect"
import { NodeCryptoLive } from "../../../src/adapters/crypto/nodeCrypto.js"
import { FsBodyStoreLive } from "../../../src/adapters/fs/FsBodyStore.js"
import { bodyStoreContract } from "../../ports/BodyStore.contract.js"
import { tempDir } from "./tempDir.js"

bodyStoreContract("FsBodyStore", {
  fresh: Effect.map(tempDir("bodies"), (dir) => FsBodyStoreLive(`${dir}/bodies`).pipe(Layer.provide(NodeCryptoLive))),
  durable: true
})
