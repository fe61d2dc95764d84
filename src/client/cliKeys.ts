// The aics commands of key management and audit: rotate, recover, audit name.

import { auditName } from "./audit.js"
import type { Invocation } from "./cliArgs.js"
import { keyPathOf, logClient, written, type Env, type Outcome } from "./cliShared.js"
import { recover, rotate, type Rotation } from "./rotation.js"

const rotated = (r: Rotation, how: string): Outcome => {
  const extra = { name: r.name, old_kid: r.oldKid, new_kid: r.newKid }
  if (r.result === null) {
    return {
      lines: [`the log already names ${r.newKid} for ${r.name} (an earlier ${how}); the key file now uses it`],
      json: { ...extra, finished_earlier: true }
    }
  }
  const outcome = written(r.result, (index) => `${how === "rotate" ? "rotated" : "recovered"} ${r.name} to ${r.newKid} as entry ${index}`, extra)
  return r.result._tag === "Accepted"
    ? { ...outcome, lines: [...outcome.lines, `the key file now uses ${r.newKid} (seq 0); ${r.oldKid} is kept under "previous"`] }
    : outcome
}

export const rotateCommand = async (inv: Invocation, env: Env): Promise<Outcome> =>
  rotated(await rotate(await logClient(inv, env), keyPathOf(inv, env), { name: inv.options.name }), "rotate")

export const recoverCommand = async (inv: Invocation, env: Env): Promise<Outcome> =>
  rotated(
    await recover(await logClient(inv, env), keyPathOf(inv, env), inv.options["recovery-key"]!, { name: inv.options.name }),
    "recover"
  )

const show = (value: unknown): string => (value === undefined ? "(absent)" : JSON.stringify(value))

export const audit = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const report = await auditName(await logClient(inv, env), inv.args[1]!)
  const lines = [
    `checkpoint size ${report.checkpointSize} root ${report.rootHash}: ${report.entriesFolded} entries from ${report.bundlesFetched} bundles folded, leaves and roots checked against ${report.tilesFetched} tiles`,
    ...report.problems.map((p) => `PROBLEM: ${p}`),
    ...report.differences.map((d) => `DIFFERENT ${d.path}: the log implies ${show(d.log)}, the service says ${show(d.server)}`),
    report.ok
      ? `the name view of ${report.name} at size ${report.size} agrees with the log`
      : `the name view of ${report.name} at size ${report.size}: ${report.differences.length} difference${report.differences.length === 1 ? "" : "s"}, ${report.problems.length} problem${report.problems.length === 1 ? "" : "s"}`
  ]
  const first = report.problems[0] ?? (report.differences[0] === undefined ? undefined : `${report.differences[0].path} differs`)
  return {
    lines,
    json: report,
    ...(report.ok ? {} : { failure: `audit of ${report.name} failed: ${report.differences.length} differences, ${report.problems.length} problems (first: ${first})` })
  }
}
