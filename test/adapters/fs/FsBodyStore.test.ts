import { Effect, Layer } from "effect"
import { NodeCryptoLive } from "../../../src/adapters/crypto/nodeCrypto.js"
import { FsBodyStoreLive } from "../../../src/adapters/fs/FsBodyStore.js"
import { bodyStoreContract } from "../../ports/BodyStore.contract.js"
import { soleProcessLease } from "../../support/leases.js"
import { tempDir } from "./tempDir.js"

bodyStoreContract("FsBodyStore", {
  fresh: Effect.map(tempDir("bodies"), (dir) => ({ open: FsBodyStoreLive(`${dir}/bodies`).pipe(Layer.provide(NodeCryptoLive)), lease: soleProcessLease })),
  durable: true
})
