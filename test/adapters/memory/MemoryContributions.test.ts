import { Effect } from "effect"
import { MemoryContributionIntentsLive } from "../../../src/adapters/memory/MemoryContributionIntents.js"
import { makeMemoryChain } from "../../../src/adapters/memory/MemoryChainOracle.js"
import { chainOracleContract } from "../../ports/ChainOracle.contract.js"
import { contributionIntentsContract } from "../../ports/ContributionIntents.contract.js"

contributionIntentsContract("MemoryContributionIntents", { fresh: Effect.succeed(MemoryContributionIntentsLive), durable: false })
chainOracleContract("MemoryChainOracle", { fresh: Effect.sync(makeMemoryChain) })
