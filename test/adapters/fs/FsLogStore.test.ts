import { Effect, Layer } from "effect"
import { NodeCryptoLive } from "../../../src/adapters/crypto/nodeCrypto.js"
import { FsLogStoreLive } from "../../../src/adapters/fs/FsLogStore.js"
import { logStoreContract } from "../../ports/LogStore.contract.js"
import { tempDir } from "./tempDir.js"

logStoreContract("FsLogStore", {
  fresh: Effect.map(tempDir("log"), (dir) => FsLogStoreLive(`${dir}/log`).pipe(Layer.provide(NodeCryptoLive))),
  durable: true,
  propertyRuns: 25
})
