// The entries the crash test writes: entry i is a function of i alone, so after any crash
// the parent can check that the log is exactly a prefix of this sequence. Sizes vary from
// 1 byte to 56,000 (one entry in 97 spans many pages, so a kill can tear it mid-record).
// Plain JavaScript, shared by the child process (crashChild.mjs) and the test.

export const crashEntry = (index) => {
  const length = index % 97 === 0 ? 20_000 + (index % 5) * 9_000 : 1 + ((index * 7919) % 700)
  const bytes = new Uint8Array(length)
  for (let k = 0; k < length; k++) bytes[k] = (index * 31 + k * 7) & 0xff
  const label = new TextEncoder().encode(`leaf ${index} `)
  bytes.set(label.subarray(0, length))
  return bytes
}
