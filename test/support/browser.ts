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

/** Quiet, offline-friendly flags: no sandbox (containers), no GPU, no background traffic. */
export const CHROMIUM_ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync"
]

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
  // Playwright passes userDataDir as Chromium's --user-data-dir (it refuses the flag in args).
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    timeout: 60_000
  })
  return {
    context,
    close: async () => {
      await context.close()
      await rm(userDataDir, { recursive: true, force: true })
    }
  }
}
