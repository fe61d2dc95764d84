import { Effect } from "effect"
import { FsTileSinkLive } from "../../../src/adapters/fs/FsTileSink.js"
import { tileSinkContract } from "../../ports/TileSink.contract.js"
import { tempDir } from "./tempDir.js"

tileSinkContract("FsTileSink", {
  // A folder that does not exist yet: the sink creates it.
  fresh: Effect.map(tempDir("tiles"), (dir) => FsTileSinkLive(`${dir}/published/tiles`)),
  durable: true
})
