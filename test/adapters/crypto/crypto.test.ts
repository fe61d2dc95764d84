import { NobleCryptoLive } from "../../../src/adapters/crypto/nobleCrypto.js"
import { NodeCryptoLive } from "../../../src/adapters/crypto/nodeCrypto.js"
import { cryptoContract } from "../../ports/Crypto.contract.js"

cryptoContract("node:crypto", { layer: NodeCryptoLive })
cryptoContract("@noble", { layer: NobleCryptoLive })
