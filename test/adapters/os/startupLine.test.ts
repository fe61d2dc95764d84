// The one line a failed start prints (src/adapters/os/startupLine.ts): the cause and the
// variable, from each kind of failure a start can meet, never a stack trace.

import { Cause, ConfigError } from "effect"
import { describe, expect, it } from "vitest"
import { StartupProblem } from "../../../src/adapters/os/startupChecks.js"
import { startupFailureLine } from "../../../src/adapters/os/startupLine.js"
import { CharterMismatch } from "../../../src/app/Charter.js"
import { StorageError } from "../../../src/ports/StorageError.js"

const line = (error: unknown, started = false) => startupFailureLine(Cause.fail(error), started)

describe("the line of a failed start", () => {
  it("names the variable of a bad setting, each of several", () => {
    expect(line(ConfigError.InvalidData(["AICS_PORT"], "Expected an integer value but received \"abc\"")))
      .toBe("aics: cannot start: bad setting: AICS_PORT: Expected an integer value but received \"abc\"")
    const both = ConfigError.And(
      ConfigError.InvalidData(["AICS_MMD_SECONDS"], "AICS_MMD_SECONDS must be an integer from 1 to 3600, got 0"),
      ConfigError.MissingData(["AICS_GATE_TLS_CERT"], "Expected AICS_GATE_TLS_CERT to exist")
    )
    expect(line(both)).toBe("aics: cannot start: bad setting: AICS_MMD_SECONDS must be an integer from 1 to 3600, got 0; AICS_GATE_TLS_CERT: Expected AICS_GATE_TLS_CERT to exist")
  })

  it("points leaf 0 of another domain, origin, owner or keys at the variable that decides it", () => {
    expect(line(new CharterMismatch({ message: "leaf 0 of the log in ./data names instance_domain \"a\", but this start uses \"b\"" }))).toMatch(/: check AICS_DOMAIN /)
    expect(line(new CharterMismatch({ message: "leaf 0 of the log in ./data names origin \"a/aics\", but this start uses \"b/aics\"" }))).toMatch(/check AICS_ORIGIN/)
    expect(line(new CharterMismatch({ message: "leaf 0 of the log in ./data names policy_kid \"x\", but this start uses \"y\"" }))).toMatch(/check AICS_DATA_DIR \(its keys\/ are not the keys of this log: copy keys\/ from a node of this log/)
    expect(line(new CharterMismatch({ message: "leaf 0 of the log in ./data is not a charter" }))).toBe("aics: cannot start: leaf 0 of the log in ./data is not a charter: check AICS_DATA_DIR / AICS_DATABASE_URL")
    expect(line(new CharterMismatch({ message: "leaf 0 of the log in ./data names owner_kid \"x\", but this start uses \"y\"" }))).toMatch(/check AICS_OWNER_KID$/)
    expect(line(new CharterMismatch({ message: "leaf 0 of the log in ./data names log_vkey \"x\", but this start uses \"y\"" }))).toMatch(/check AICS_DATA_DIR/)
  })

  it("keeps a start check's own words, a port taken after the check, storage and defects to one line", () => {
    expect(line(new StartupProblem({ variable: "AICS_PORT", message: "port 80 on 127.0.0.1 (AICS_PORT) is in use by another process" })))
      .toBe("aics: cannot start: port 80 on 127.0.0.1 (AICS_PORT) is in use by another process")
    const taken = Object.assign(new Error("listen EADDRINUSE: address already in use 127.0.0.1:80"), { code: "EADDRINUSE" })
    expect(line({ _tag: "ServeError", message: "An error has occurred", cause: taken })).toMatch(/^aics: cannot start: the HTTP port \(AICS_PORT\) is in use/)
    expect(line(new StorageError({ operation: "owner key", detail: "AICS_OWNER_KID x is not an Ed25519 did:key\nmore" })))
      .toBe("aics: cannot start: storage: AICS_OWNER_KID x is not an Ed25519 did:key")
    const defect = startupFailureLine(Cause.die(new Error("something broke\n    at somewhere (file.js:1:1)")))
    expect(defect).toBe("aics: cannot start: something broke")
    expect(line(new Error("late"), true)).toBe("aics: stopped on an error: late")
  })
})
