// The key file's lock (src/client/keyFileLock.ts), without a service:
//   - in one process, read-modify-saves of one file (under any spelling of its path, a
//     symlink too, which a save leaves a symlink) run one at a time, and a failing one
//     releases the lock;
//   - another process's lock (a lock file naming a live pid) is waited for, and taken once
//     that process is gone; a lock naming a dead pid is stale and taken at once; a live
//     holder that stays past the deadline is a key_file error naming the lock and the pid;
//   - a lock of this process's own pid is live unless taken before this process started
//     (another thread, another copy of the library, a container with the same host name);
//     one of another host is never judged stale, and its error names the host, pid and age
//     and gives the `rm` that removes it; a lock file without a host names no holder;
//   - concurrent breakers of one stale lock leave exactly one holder;
//   - without hard links, the lock file is created exclusively; an empty one is live for a
//     grace time;
//   - several key files are locked in one order (no deadlock), a held lock is taken again at
//     once, and this process's queue is waited in up to the deadline;
//   - a read that takes no lock never sees a torn file while saves go on.

import { spawn } from "node:child_process"
import { lstat, mkdir, mkdtemp, readFile, readdir, realpath, rm, symlink, utimes, writeFile } from "node:fs/promises"
import { hostname, tmpdir } from "node:os"
import { join } from "node:path"
import { threadId } from "node:worker_threads"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { generateAgentKey } from "../../src/client/agentKey.js"
import { ClientError } from "../../src/client/errors.js"
import { createAgentKeyFile, readAgentKeyFile, saveAgentKeyFile } from "../../src/client/keyFile.js"
import { acquire, breakPathOf, createLockFile, EMPTY_GRACE_MS, lockPathOf, withKeyFileLock, withKeyFileLocks } from "../../src/client/keyFileLock.js"

let dir: string
let keyPath: string
let lockPath: string
const children: Array<{ kill: () => void }> = []

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "aics-lock-"))
  keyPath = join(dir, "agent.json")
  lockPath = lockPathOf(keyPath)
  await createAgentKeyFile(keyPath, generateAgentKey())
})

afterEach(async () => {
  for (const child of children.splice(0)) child.kill()
  await rm(dir, { recursive: true, force: true })
})

const FAST = { waitMs: 20_000, pollMs: 10 }

/** Polls `condition` every 10 ms until it holds, failing after `ms`. */
const eventually = async (condition: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> => {
  const deadline = Date.now() + ms
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** A process that stays alive until killed: another aics process holding the lock. */
const liveProcess = async (): Promise<{ pid: number; kill: () => Promise<void> }> => {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" })
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  children.push({ kill: () => child.kill("SIGKILL") })
  await new Promise<void>((resolve, reject) => { child.once("spawn", resolve); child.once("error", reject) })
  return { pid: child.pid!, kill: async () => { child.kill("SIGKILL"); await exited } }
}

/** The pid of a process that has exited: a holder that crashed. */
const deadPid = async (): Promise<number> => {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" })
  await new Promise<void>((resolve) => child.once("exit", () => resolve()))
  return child.pid!
}

const writeLock = (pid: number) =>
  writeFile(lockPath, JSON.stringify({ pid, host: hostname(), token: "another-process", since: new Date().toISOString() }) + "\n")

const exists = (path: string) => readFile(path).then(() => true, () => false)

/** Only the key file is left in the folder: no lock, no draft or stale lock set aside. */
const expectOnlyKeyFile = async () => expect(await readdir(dir)).toEqual(["agent.json"])

describe("the key file lock in one process", () => {
  it("runs read-modify-saves of one file one at a time, under any spelling of its path", async () => {
    await symlink(keyPath, join(dir, "alias.json"))
    const paths = [keyPath, join(dir, "alias.json"), join(dir, ".", "agent.json")]
    let inside = 0
    let most = 0
    const bumps = Array.from({ length: 12 }, (_, i) =>
      withKeyFileLock(paths[i % paths.length]!, async () => {
        inside += 1
        most = Math.max(most, inside)
        const key = await readAgentKeyFile(keyPath)
        await new Promise((resolve) => setTimeout(resolve, 2))
        await saveAgentKeyFile(keyPath, { ...key, seq: key.seq + 1, prev: "A".repeat(43) })
        inside -= 1
      }, FAST))
    await Promise.all(bumps)
    expect(most).toBe(1)
    expect((await readAgentKeyFile(keyPath)).seq).toBe(12)
    // A save through the symlink replaced the file it points to, and left the link a link.
    await withKeyFileLock(join(dir, "alias.json"), async () => {
      const key = await readAgentKeyFile(join(dir, "alias.json"))
      await saveAgentKeyFile(join(dir, "alias.json"), { ...key, seq: 13 })
    }, FAST)
    expect((await lstat(join(dir, "alias.json"))).isSymbolicLink()).toBe(true)
    expect((await readAgentKeyFile(keyPath)).seq).toBe(13)
    expect(await exists(lockPath)).toBe(false)
  })

  it("holds the lock file, naming this process, while the body runs, and releases it when the body fails", async () => {
    const failed = await withKeyFileLock(keyPath, async () => {
      expect(JSON.parse(await readFile(lockPath, "utf8"))).toMatchObject({ pid: process.pid, host: hostname() })
      throw new Error("the write failed")
    }, FAST).then(() => undefined, (error: unknown) => error)
    expect((failed as Error).message).toBe("the write failed")
    await expectOnlyKeyFile()
    // The next one is not held up by it.
    expect(await withKeyFileLock(keyPath, async () => "next", FAST)).toBe("next")
  })

  it("takes no lock for a key file that is not there, and lets the body say so", async () => {
    const missing = join(dir, "none.json")
    const error = await withKeyFileLock(missing, () => readAgentKeyFile(missing), FAST).then(() => undefined, (e: unknown) => e)
    expect((error as ClientError).message).toMatch(/no key file at/)
    expect(await exists(lockPathOf(missing))).toBe(false)
  })
})

describe("the key file lock across processes", () => {
  it("waits for a live holder and takes the lock once the holder is gone", async () => {
    const holder = await liveProcess()
    await writeLock(holder.pid)
    let startedAt: number | undefined
    let waitedFor: string | undefined
    const waiting = withKeyFileLock(keyPath, async () => {
      startedAt = Date.now()
      return JSON.parse(await readFile(lockPath, "utf8")) as { pid: number }
    }, { ...FAST, waiting: (_, holderText) => { waitedFor = holderText } })
    await eventually(() => waitedFor !== undefined, "the waiter to wait")
    expect(JSON.parse(waitedFor!).pid).toBe(holder.pid)
    expect(startedAt).toBeUndefined()
    const killedAt = Date.now()
    await holder.kill()
    const held = await waiting
    expect(startedAt).toBeGreaterThanOrEqual(killedAt)
    expect(held.pid).toBe(process.pid)
    await expectOnlyKeyFile()
  })

  it("takes over a stale lock, one whose pid is not alive, at once", async () => {
    await writeLock(await deadPid())
    const holder = await withKeyFileLock(keyPath, async () => JSON.parse(await readFile(lockPath, "utf8")) as { pid: number }, { waitMs: 0, pollMs: 10 })
    expect(holder.pid).toBe(process.pid)
    await expectOnlyKeyFile()
  })

  it("takes over a lock of its own pid taken before this process started (the pid reused after a crash or reboot)", async () => {
    const beforeStart = new Date(Date.now() - process.uptime() * 1000 - 60_000).toISOString()
    await writeFile(lockPath, JSON.stringify({ pid: process.pid, host: hostname(), token: "before-restart", since: beforeStart }) + "\n")
    expect(await withKeyFileLock(keyPath, async () => "taken", { waitMs: 0, pollMs: 10 })).toBe("taken")
    await expectOnlyKeyFile()
  })

  it("waits for a lock of its own pid taken since this process started (another thread, another copy of the library, a container)", async () => {
    // Another copy of the library in this process (or a process with the same pid in another PID namespace) holds it.
    await writeFile(lockPath, JSON.stringify({ pid: process.pid, host: hostname(), thread: threadId + 1, token: "other-copy", since: new Date().toISOString() }) + "\n")
    let ran = false
    const error = await withKeyFileLock(keyPath, async () => { ran = true }, { waitMs: 150, pollMs: 10 }).then(() => undefined, (e: unknown) => e)
    expect(ran).toBe(false)
    expect((error as ClientError).kind).toBe("key_file")
    expect((error as ClientError).message).toContain(`pid ${process.pid}`)
    // Released by its holder: taken.
    await rm(lockPath)
    expect(await withKeyFileLock(keyPath, async () => "taken", FAST)).toBe("taken")
    await expectOnlyKeyFile()
  })

  it("takes over this thread's own leftover (a lock it took and failed to release), as stale", async () => {
    await writeFile(lockPath, JSON.stringify({ pid: process.pid, host: hostname(), thread: threadId, token: "released-long-ago", since: new Date().toISOString() }) + "\n")
    expect(await withKeyFileLock(keyPath, async () => "taken", { waitMs: 0, pollMs: 10 })).toBe("taken")
    await expectOnlyKeyFile()
  })

  it("never judges a lock of another host stale: waits, then fails naming the host", async () => {
    await writeFile(lockPath, JSON.stringify({ pid: await deadPid(), host: "elsewhere.invalid", token: "remote", since: new Date().toISOString() }) + "\n")
    const error = await withKeyFileLock(keyPath, async () => undefined, { waitMs: 100, pollMs: 10 }).then(() => undefined, (e: unknown) => e)
    expect((error as ClientError).message).toContain("on host elsewhere.invalid")
    expect(await exists(lockPath)).toBe(true)
  })

  it("says of a lock of another host that it is never taken over, with its host, pid and age, and the command that removes it", async () => {
    const pid = await deadPid()
    const since = new Date(Date.now() - (3 * 60 + 12) * 1000).toISOString()
    const holder = { pid, host: "elsewhere.invalid", thread: 0, token: "remote", since }
    await writeFile(lockPath, JSON.stringify(holder) + "\n")
    const error = await withKeyFileLock(keyPath, async () => undefined, { waitMs: 100, pollMs: 10 }).then(() => undefined, (e: unknown) => e)
    expect(error).toBeInstanceOf(ClientError)
    const { message, kind } = error as ClientError
    expect(kind).toBe("key_file")
    const realLock = lockPathOf(await realpath(keyPath))
    expect(message).toContain(`${realLock} is held by pid ${pid} on host elsewhere.invalid, not this host (${hostname()}), since ${since} (taken 3 min 1`)
    expect(message).toMatch(/\(taken 3 min 1[234] s ago; waited 0 s\)/)
    expect(message).toContain("a lock of another host is never taken over by itself")
    expect(message).toContain(`if you know pid ${pid} on elsewhere.invalid is gone`)
    expect(message.endsWith(`remove the lock and try again: rm -- ${realLock}`)).toBe(true)
    // Waited for, never broken: the lock is still the other host's.
    expect(await readFile(lockPath, "utf8")).toBe(JSON.stringify(holder) + "\n")

    // A path a shell would split is quoted, so the command can be pasted as it is.
    const odd = join(dir, "it's mine")
    await mkdir(odd)
    const oddKey = join(odd, "agent.json")
    await createAgentKeyFile(oddKey, generateAgentKey())
    await writeFile(lockPathOf(oddKey), JSON.stringify({ ...holder, since: "not a time" }) + "\n")
    const quoted = await withKeyFileLock(oddKey, async () => undefined, { waitMs: 50, pollMs: 10 }).then(() => undefined, (e: unknown) => e)
    const oddLock = lockPathOf(await realpath(oddKey))
    expect((quoted as ClientError).message).toContain("(age unknown: its time is unreadable; waited 0 s)")
    expect((quoted as ClientError).message.endsWith(`rm -- '${oddLock.replaceAll("'", "'\\''")}'`)).toBe(true)
    await rm(odd, { recursive: true })
  })

  it("treats a lock file without a host, as older files may be, as it always did: no holder named, waited for, never broken", async () => {
    const text = JSON.stringify({ pid: await deadPid(), token: "hostless", since: new Date().toISOString() }) + "\n"
    await writeFile(lockPath, text)
    const error = await withKeyFileLock(keyPath, async () => undefined, { waitMs: 100, pollMs: 10 }).then(() => undefined, (e: unknown) => e)
    expect((error as ClientError).message).toMatch(/agent\.json\.lock exists but does not name its holder \(waited 0 s\); if no aics process is writing with this key file, delete it/)
    expect(await readFile(lockPath, "utf8")).toBe(text)
  })

  it("lets exactly one of many concurrent breakers of one stale lock hold it, and each in turn after", async () => {
    // acquire called directly, bypassing this process's queue: each call is a writer of its own, as another process is.
    await writeLock(await deadPid())
    let inside = 0
    let most = 0
    const order: Array<string> = []
    await Promise.all(Array.from({ length: 8 }, async (_, i) => {
      const held = await acquire(lockPath, Date.now() + 20_000, { waitMs: 20_000, pollMs: 2 })
      inside += 1
      most = Math.max(most, inside)
      expect(await readFile(lockPath, "utf8")).toBe(held.text)
      await new Promise((resolve) => setTimeout(resolve, 5))
      order.push(String(i))
      inside -= 1
      await rm(lockPath) // released (release() is the library's; removing it is the same here)
    }))
    expect(most).toBe(1)
    expect(order.length).toBe(8)
    await expectOnlyKeyFile()
  })

  it("removes a stale break file left by a breaker that died", async () => {
    await writeLock(await deadPid())
    await writeFile(breakPathOf(lockPath), JSON.stringify({ pid: await deadPid(), host: hostname(), token: "dead-breaker", since: new Date().toISOString() }) + "\n")
    expect(await withKeyFileLock(keyPath, async () => "taken", { waitMs: 5_000, pollMs: 10 })).toBe("taken")
    await expectOnlyKeyFile()
  })

  it("fails after the deadline with a key_file error naming the lock file, the holder's pid and what to do", async () => {
    const holder = await liveProcess()
    await writeLock(holder.pid)
    let ran = false
    const error = await withKeyFileLock(keyPath, async () => { ran = true }, { waitMs: 200, pollMs: 10 }).then(() => undefined, (e: unknown) => e)
    expect(ran).toBe(false)
    expect(error).toBeInstanceOf(ClientError)
    expect((error as ClientError).kind).toBe("key_file")
    expect((error as ClientError).message).toContain(lockPath)
    expect((error as ClientError).message).toContain(`pid ${holder.pid}`)
    expect((error as ClientError).message).toMatch(/try again when it is done, or if no process \d+ is running, delete/)
    // The holder's lock is left as it was; the waiter's draft is gone.
    expect(JSON.parse(await readFile(lockPath, "utf8")).pid).toBe(holder.pid)
    expect((await readdir(dir)).sort()).toEqual(["agent.json", "agent.json.lock"])
  })

  it("waits for a lock file that names no holder, and says to delete it", async () => {
    await writeFile(lockPath, "not a lock\n")
    const error = await withKeyFileLock(keyPath, async () => undefined, { waitMs: 100, pollMs: 10 }).then(() => undefined, (e: unknown) => e)
    expect((error as ClientError).message).toMatch(/agent\.json\.lock exists but does not name its holder .*delete it/)
  })
})

describe("the lock file without hard links", () => {
  const noLinks = (code: string) => async () => { throw Object.assign(new Error(`link: ${code}`), { code }) }

  it("is created exclusively and written at once when the file system has no hard links", async () => {
    for (const code of ["EPERM", "ENOTSUP", "EXDEV"]) {
      expect(await createLockFile(lockPath, `holder ${code}\n`, `${lockPath}.draft`, noLinks(code))).toBe(true)
      expect(await readFile(lockPath, "utf8")).toBe(`holder ${code}\n`)
      // Exclusive: a second one finds the first.
      expect(await createLockFile(lockPath, "second\n", `${lockPath}.draft`, noLinks(code))).toBe(false)
      expect(await readFile(lockPath, "utf8")).toBe(`holder ${code}\n`)
      await rm(lockPath)
    }
    await expectOnlyKeyFile()
  })

  it("fails with a key_file error on another link error", async () => {
    const error = await createLockFile(lockPath, "x\n", `${lockPath}.draft`, noLinks("EIO")).then(() => undefined, (e: unknown) => e)
    expect((error as ClientError).kind).toBe("key_file")
    await expectOnlyKeyFile()
  })

  it("waits for an empty lock file (one being written) and takes it over once it has stayed empty past the grace time", async () => {
    await writeFile(lockPath, "")
    const error = await withKeyFileLock(keyPath, async () => undefined, { waitMs: 100, pollMs: 10 }).then(() => undefined, (e: unknown) => e)
    expect((error as ClientError).message).toMatch(/does not name its holder/)
    const old = new Date(Date.now() - EMPTY_GRACE_MS - 5_000)
    await utimes(lockPath, old, old)
    expect(await withKeyFileLock(keyPath, async () => "taken", { waitMs: 0, pollMs: 10 })).toBe("taken")
    await expectOnlyKeyFile()
  })
})

describe("several key files at once", () => {
  let otherPath: string
  beforeEach(async () => {
    otherPath = join(dir, "recovery.json")
    await createAgentKeyFile(otherPath, generateAgentKey())
  })

  it("takes them in one order, so [A, B] and [B, A] at once both complete, each holding both", async () => {
    const seen: Array<string> = []
    const both = async (name: string) => {
      expect(JSON.parse(await readFile(lockPath, "utf8")).pid).toBe(process.pid)
      expect(JSON.parse(await readFile(lockPathOf(otherPath), "utf8")).pid).toBe(process.pid)
      await new Promise((resolve) => setTimeout(resolve, 20))
      seen.push(name)
    }
    const runs = Array.from({ length: 6 }, (_, i) =>
      i % 2 === 0
        ? withKeyFileLocks([keyPath, otherPath], () => both(`ab${i}`), { waitMs: 5_000, pollMs: 5 })
        : withKeyFileLocks([otherPath, keyPath], () => both(`ba${i}`), { waitMs: 5_000, pollMs: 5 }))
    await Promise.all(runs)
    expect(seen.length).toBe(6)
    expect((await readdir(dir)).sort()).toEqual(["agent.json", "recovery.json"])
  })

  it("runs a lock already held by the body at once (recover's write with the recovery key file)", async () => {
    const result = await withKeyFileLocks([keyPath, otherPath], () =>
      withKeyFileLock(otherPath, () => withKeyFileLock(join(dir, ".", "agent.json"), async () => "inner", { waitMs: 0, pollMs: 5 }), { waitMs: 0, pollMs: 5 }), FAST)
    expect(result).toBe("inner")
    expect((await readdir(dir)).sort()).toEqual(["agent.json", "recovery.json"])
  })

  it("gives up waiting for this process's earlier write at the deadline, with a key_file error, and keeps the queue in order", async () => {
    let finish!: () => void
    const first = withKeyFileLock(keyPath, () => new Promise<string>((resolve) => { finish = () => resolve("first") }), FAST)
    await eventually(() => finish !== undefined, "the first write to start")
    const error = await withKeyFileLock(keyPath, async () => "late", { waitMs: 100, pollMs: 10 }).then(() => undefined, (e: unknown) => e)
    expect((error as ClientError).kind).toBe("key_file")
    expect((error as ClientError).message).toMatch(/another write with .*agent\.json in this process did not end within/)
    let thirdRan = false
    const third = withKeyFileLock(keyPath, async () => { thirdRan = true; return "third" }, FAST)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(thirdRan).toBe(false) // still after the first, though the second gave up
    finish()
    expect(await first).toBe("first")
    expect(await third).toBe("third")
    expect((await readdir(dir)).sort()).toEqual(["agent.json", "recovery.json"])
  })
})

describe("a read without the lock", () => {
  it("never sees a torn file while saves go on", async () => {
    const key = await readAgentKeyFile(keyPath)
    let saving = true
    const saves = (async () => {
      for (let seq = 1; seq <= 60; seq++) {
        await withKeyFileLock(keyPath, () => saveAgentKeyFile(keyPath, { ...key, seq, prev: "A".repeat(43) }), FAST)
      }
      saving = false
    })()
    const seen: Array<number> = []
    while (saving) seen.push((await readAgentKeyFile(keyPath)).seq)
    await saves
    expect(seen.length).toBeGreaterThan(0)
    // Each read saw one whole save, in order.
    expect([...seen].sort((a, b) => a - b)).toEqual(seen)
  })
})
