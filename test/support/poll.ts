// Polling with a deadline, for tests that wait on a server (no fixed sleeps): the probe's
// first defined answer, or a failure naming what was awaited.

export const pollUntil = async <A>(what: string, probe: () => Promise<A | undefined>, timeoutMs = 30_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe().catch(() => undefined)
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}
