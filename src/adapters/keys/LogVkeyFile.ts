// <data dir>/log.vkey: the log's verifier key in signed-note form, for the operator to
// publish out of band (DNS TXT _aics.<domain>, the package, the repository). Written after
// leaf 0 has been checked against this start's origin and keys, so a misconfigured start
// can never overwrite the key file of the log the folder holds. A file that already holds
// the same key is left as it is (issue 13 item 13): a restart writes nothing, so a start on
// a full disk still serves reads instead of failing on a write it did not need.

import { join } from "node:path"
import { Effect, Layer } from "effect"
import { Charter } from "../../app/Charter.js"
import { LogNotary } from "../../app/LogNotary.js"
import { utf8 } from "../../domain/bytes.js"
import { ensureFileHolds } from "../fs/atomicFile.js"

export const LogVkeyFileLive = (dataDir: string) =>
  Layer.effectDiscard(Effect.gen(function*() {
    yield* Charter
    const { vkey } = yield* LogNotary
    yield* ensureFileHolds(join(dataDir, "log.vkey"), utf8(vkey + "\n"), 0o644)
    // Through the logger, so AICS_LOG_FORMAT=json keeps one object a line.
    yield* Effect.log(`Log verifier key: ${vkey}`).pipe(Effect.annotateLogs({ event: "log_vkey", vkey }))
  }))
