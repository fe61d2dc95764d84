// What a client may read of a storage failure (issue 13 item 13): the operation and why,
// never where the server keeps its files. An absolute path in a message (a data folder, a
// temporary file) tells an attacker the layout of the machine; the operator reads the
// whole message in the log, and the client gets it with every absolute path cut to its
// last two segments ("…/log/entries" rather than "/srv/aics/data/log/entries"). URLs
// (scheme://host/path) are left alone.

/** An absolute POSIX path: a "/" not preceded by a word character, ":", "/", "." or "~", then segments. */
const ABSOLUTE_PATH = /(?<![\w:/.~-])\/(?:[^\s/:'"`()<>[\]{},;]+\/)*[^\s/:'"`()<>[\]{},;]+/g

export const withoutServerPaths = (text: string): string =>
  text.replace(ABSOLUTE_PATH, (path) => {
    const segments = path.split("/").filter((s) => s !== "")
    return segments.length <= 2 ? `…/${segments.join("/")}` : `…/${segments.slice(-2).join("/")}`
  })
