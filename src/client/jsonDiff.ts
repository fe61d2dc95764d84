// Every difference between two JSON values, as paths: what the log implies against what
// the service says. Objects compare member by member (a member on one side only is a
// difference), arrays element by element, anything else by value.

export interface JsonDifference {
  /** JSON-pointer-like path, "" for the root: "/x25519_index", "/key_events/2/kid". */
  readonly path: string
  /** The value the log implies; undefined when only the service has the member. */
  readonly log: unknown
  /** The value the service answered; undefined when the service lacks the member. */
  readonly server: unknown
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

export const diffJson = (log: unknown, server: unknown, path = ""): ReadonlyArray<JsonDifference> => {
  if (isRecord(log) && isRecord(server)) {
    const names = [...new Set([...Object.keys(log), ...Object.keys(server)])].sort()
    return names.flatMap((name) => diffJson(log[name], server[name], `${path}/${name}`))
  }
  if (Array.isArray(log) && Array.isArray(server)) {
    const length = Math.max(log.length, server.length)
    return Array.from({ length }, (_, i) => diffJson(log[i], server[i], `${path}/${i}`)).flat()
  }
  return Object.is(log, server) ? [] : [{ path, log, server }]
}
