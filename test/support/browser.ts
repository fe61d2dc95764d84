// A real browser for the page tests: Debian's Chromium (or the one AICS_CHROMIUM names)
// driven by playwright-core, headless, with a fresh profile folder that is removed on close.
// There is no fallback and no skipping: without Chromium the tests that need it fail, saying
// how to install it.

import { constants } from "node:fs"
import { access, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { chromium, type BrowserContext } from "playwright-core"

export const CHROMIUM_PATH = process.env["AICS_CHROMIUM"] ?? "/usr/bin/chromium"

/**
 * Flags beyond playwright's own (which already runs headless, without the sandbox, first-run
 * screens, background networking, component updates or sync): no GPU, no QUIC.
 */
export const CHROMIUM_ARGS = ["--disable-gpu", "--disable-quic"]

/** How long Chromium may take to start: below the 60 s hook timeout, so a slow start fails with its own message. */
export const LAUNCH_TIMEOUT_MS = 40_000

export interface TestBrowser {
  readonly context: BrowserContext
  readonly close: () => Promise<void>
}

/** Launches Chromium with a fresh --user-data-dir; fails with install instructions when it is absent. */
export const launchBrowser = async (): Promise<TestBrowser> => {
  try {
    await access(CHROMIUM_PATH, constants.X_OK)
  } catch {
    throw new Error(
      `No Chromium at ${CHROMIUM_PATH}. The page tests need a real browser: install Debian's with ` +
      "`apt-get update && apt-get install -y chromium`, or set AICS_CHROMIUM to a Chromium executable."
    )
  }
  const userDataDir = await mkdtemp(join(tmpdir(), "aics-chromium-"))
  const removeProfile = () => rm(userDataDir, { recursive: true, force: true })
  let context: BrowserContext
  try {
    // Playwright passes userDataDir as Chromium's --user-data-dir (it refuses the flag in args).
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
      timeout: LAUNCH_TIMEOUT_MS
    })
  } catch (error) {
    await removeProfile().catch(() => undefined)
    throw error
  }
  return {
    context,
    // Each step runs even when the one before fails; the first failure is reported.
    close: async () => {
      try {
        await context.close()
      } finally {
        await removeProfile()
      }
    }
  }
}
