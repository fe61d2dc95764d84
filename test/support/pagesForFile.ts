// A server and a Chromium page for one test file of the pages: started side by side before
// the file's tests (a browser that does not start fails every test with its reason through
// `needBrowser`, never a skip; a server that does not start fails the file), `seed` run
// once both are up, and everything closed after the tests, each step tried whatever
// happened to the one before.

import type { Page } from "playwright-core"
import { afterAll, beforeAll } from "vitest"
import { launchBrowser, type TestBrowser } from "./browser.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "./server.js"

export const pagesForFile = (seed: (started: { readonly server: RunningServer; readonly page: Page }) => Promise<void>) => {
  let dataDir: string | undefined
  let server: RunningServer | undefined
  let browser: TestBrowser | undefined
  let browserMissing: Error | undefined
  beforeAll(async () => {
    dataDir = await tempDataDir()
    const [started, launched] = await Promise.allSettled([startServer({ dataDir }), launchBrowser()])
    if (launched.status === "fulfilled") browser = launched.value
    else browserMissing = launched.reason as Error
    if (started.status === "rejected") throw started.reason
    server = started.value
    // Without a browser the page is never used: needBrowser throws first.
    const page = browser === undefined ? undefined as unknown as Page : await browser.context.newPage()
    await seed({ server, page })
  })
  afterAll(async () => {
    try {
      await browser?.close()
    } finally {
      try {
        await server?.stop()
      } finally {
        if (dataDir !== undefined) await removeDir(dataDir)
      }
    }
  })
  return {
    needBrowser: () => {
      if (browserMissing !== undefined) throw browserMissing
    }
  }
}
