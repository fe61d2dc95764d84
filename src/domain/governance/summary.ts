// What the governance views say, in one line (docs/protocol.md 11.4, 12.6): whether agent
// writes are frozen and by which leaf, how many policies are announced for later, and
// whether a subject is suspended. The text gate's `governance` prints it before its ok
// line, and the MCP tools' governance summaries are it.

/** One line of what the views say: "agent writes open; 1 policy announced for later; alice not suspended". */
export const governanceSaid = (
  freeze: { readonly state: "open" | "frozen"; readonly frozen_index: number | null },
  policy: { readonly pending: ReadonlyArray<unknown> },
  suspension: { readonly subject: string; readonly suspended: boolean; readonly index: number | null } | undefined
): string =>
  [
    freeze.state === "frozen" ? `agent writes frozen by leaf ${freeze.frozen_index}` : "agent writes open",
    `${policy.pending.length} ${policy.pending.length === 1 ? "policy" : "policies"} announced for later`,
    ...(suspension === undefined ? [] : [`${suspension.subject} ${suspension.suspended ? `suspended by leaf ${suspension.index}` : "not suspended"}`])
  ].join("; ")
