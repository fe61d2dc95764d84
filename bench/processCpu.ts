// CPU time of a process, read from /proc: the benchmarks' measure of what the service costs,
// which holds on a machine other work shares, as wall-clock rates do not.

import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"

// CPU time of the server process (every thread: event loop, check workers, V8's GC and
// compiler threads, libuv's pool), read from /proc, in seconds, by thread name and in all.
const TICKS_PER_SECOND = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim())

const cpuTimes = (stat: string) => {
  // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND
}

// Node leaves its threads unnamed, so they are told apart by id: the main thread's is the
// process id, and the check worker is the other busy one (GC helpers share the rest).
export const serverCpu = (pid: number) => {
  const threads = new Map<string, number>()
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = tid === String(pid) ? "main" : `thread ${tid}`
      threads.set(name, cpuTimes(readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8")))
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return { total: cpuTimes(readFileSync(`/proc/${pid}/stat`, "utf8")), threads }
}

/** CPU seconds a process has used so far, every thread. */
export const cpuSeconds = (pid: number): number => cpuTimes(readFileSync(`/proc/${pid}/stat`, "utf8"))
