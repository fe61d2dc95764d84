// Whether an error of a node:fs call says the file, or a folder on its path, was not there.
// Kept apart from readOptional.ts, and free of Effect, so the file-writer thread
// (fileWriterThread.ts) loads node's own modules only: importing Effect there held about 14 MiB
// of that thread's heap for the life of the process.

export const isMissingFile = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code
  return code === "ENOENT" || code === "ENOTDIR"
}
