import { Effect, Layer } from "effect"
import { NodeCryptoLive } from "../../../src/adapters/crypto/nodeCrypto.js"
import { FsLogStoreLive } from "../../../src/adapters/fs/FsLogStore.js"
import { logStoreContract } from "../../ports/LogStore.contract.js"
import { soleProcessLease } from "../../support/leases.js"
import { tempDir } from "./tempDir.js"

logStoreContract("FsLogStore", {
  fresh: Effect.map(tempDir("log"), (dir) => ({ open: FsLogStoreLive(`${dir}/log`).pipe(Layer.provide(NodeCryptoLive)), lease: soleProcessLease })),
  durable: true,
  propertyRuns: 25
})
