// Whether this process sequences the log now (docs/protocol.md section 14). The Sequencer
// sets it while it holds the lease; the Publisher reads it, since only the sequencing
// process writes tiles and signs checkpoints. A process on the filesystem leads as soon as
// its sequencer starts, and for its whole life.

import { Context, Effect, Layer, SubscriptionRef } from "effect"

export class NodeRole extends Context.Tag("aics/NodeRole")<NodeRole, {
  readonly leading: SubscriptionRef.SubscriptionRef<boolean>
}>() {
  static readonly layer = Layer.effect(NodeRole, Effect.map(SubscriptionRef.make(false), (leading) => ({ leading })))
}
