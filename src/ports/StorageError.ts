// The one failure every storage port reports: the medium failed or holds something it
// should not. Callers cannot repair it; they stop acknowledging writes and surface it.

import { Data } from "effect"

export class StorageError extends Data.TaggedError("StorageError")<{
  readonly operation: string
  readonly detail: string
  readonly cause?: unknown
}> {
  override get message(): string {
    return `${this.operation}: ${this.detail}`
  }
}
