// `uptime_human` of the service statistics (docs/spec/service.md "Service statistics"): the uptime in
// days, hours, minutes and seconds, from the largest unit that is not zero ("3d 4h 0m 5s",
// "12m 7s", "0s"), for people; `uptime_seconds` is the number.

const UNITS: ReadonlyArray<readonly [string, number]> = [["d", 86_400], ["h", 3_600], ["m", 60], ["s", 1]]

export const uptimeHuman = (seconds: number): string => {
  let rest = Math.max(0, Math.floor(seconds))
  const parts: Array<string> = []
  for (const [unit, size] of UNITS) {
    const n = Math.floor(rest / size)
    rest -= n * size
    if (n > 0 || parts.length > 0 || size === 1) parts.push(`${n}${unit}`)
  }
  return parts.join(" ")
}
