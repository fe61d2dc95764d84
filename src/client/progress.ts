// Progress of a long scan (an audit's fold of the whole log, a verify of many receipts): the
// library reports steps; the CLI shows them on stderr only when stderr is a terminal, so
// pipes, logs and --json consumers see nothing of it.

/** One step of a scan: what it is doing, how far, out of how many. */
export type Progress = (what: string, done: number, total: number) => void

export const noProgress: Progress = () => undefined

/**
 * A Progress that rewrites one line of `stream` (at most every `everyMs`), and `end` to
 * clear it. Nothing is written when the stream is not a terminal.
 */
export const terminalProgress = (
  stream: { readonly isTTY?: boolean; write: (text: string) => unknown },
  now: () => number = Date.now,
  everyMs = 100
): { readonly progress: Progress; readonly end: () => void } => {
  if (stream.isTTY !== true) return { progress: noProgress, end: () => undefined }
  let last = -Infinity
  let shown = false
  return {
    progress: (what, done, total) => {
      const t = now()
      if (t - last < everyMs && done < total) return
      last = t
      shown = true
      const percent = total === 0 ? 100 : Math.floor((done / total) * 100)
      stream.write(`\r\u001b[K${what}: ${done} of ${total} (${percent}%)`)
    },
    end: () => {
      if (shown) stream.write("\r\u001b[K")
    }
  }
}
