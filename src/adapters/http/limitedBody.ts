// Reading a request body with a size limit, without letting a client make the service
// buffer more than the limit and without cutting the connection: past the limit the rest
// of the upload is drained and dropped, so the client still gets its answer (a signed 413).

import type { IncomingMessage } from "node:http"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect } from "effect"

export type LimitedBody =
  | { readonly _tag: "Body"; readonly bytes: Uint8Array }
  | { readonly _tag: "TooLarge" }
  | { readonly _tag: "Failed"; readonly reason: string }

export const readLimitedBody = (request: HttpServerRequest.HttpServerRequest, limit: number): Effect.Effect<LimitedBody> =>
  readLimitedIncoming(NodeHttpServerRequest.toIncomingMessage(request), limit)

/** The same, from Node's request itself (a lean route's, leanWriteRoute.ts). */
export const readLimitedIncoming = (incoming: IncomingMessage, limit: number): Effect.Effect<LimitedBody> => {
  const declared = Number(incoming.headers["content-length"] ?? "0")
  if (declared > limit) {
    incoming.resume()
    return Effect.succeed({ _tag: "TooLarge" })
  }
  return Effect.async<LimitedBody>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const finish = (result: LimitedBody) => {
      incoming.off("data", onData)
      incoming.off("end", onEnd)
      incoming.off("error", onError)
      if (result._tag === "TooLarge") incoming.resume()
      resume(Effect.succeed(result))
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) finish({ _tag: "TooLarge" })
      else chunks.push(chunk)
    }
    // The body gets a buffer of its own, exactly its size: Buffer.concat of a small body is
    // a view into Node's shared 8 KiB pool, and a view is cloned with its whole buffer when
    // the body is posted to a check worker.
    const onEnd = () => {
      const bytes = new Uint8Array(size)
      let offset = 0
      for (const chunk of chunks) {
        bytes.set(chunk, offset)
        offset += chunk.length
      }
      finish({ _tag: "Body", bytes })
    }
    const onError = (error: Error) => finish({ _tag: "Failed", reason: error.message })
    incoming.on("data", onData)
    incoming.on("end", onEnd)
    incoming.on("error", onError)
  })
}
