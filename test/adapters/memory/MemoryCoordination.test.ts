import { Effect } from "effect"
import { MemoryCoordinationLive } from "../../../src/adapters/memory/MemoryCoordination.js"
import { coordinationContract } from "../../ports/Coordination.contract.js"

coordinationContract("MemoryCoordination", {
  fresh: (unclaimedTimeout) => Effect.succeed(MemoryCoordinationLive({ unclaimedTimeout })),
  severalProcesses: false
})
