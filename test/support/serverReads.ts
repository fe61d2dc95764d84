// Reads of a running service's public routes for end-to-end tests: the answer, its JSON
// when it must be 200, and a problem+json refusal with its code.

import { expect } from "vitest"

/** The reads of the service at `baseUrl()`, asked when a read runs (the server starts in beforeAll). */
export const serverReads = (baseUrl: () => string) => {
  const get = (path: string) => fetch(`${baseUrl()}${path}`)
  const json = async (path: string): Promise<any> => {
    const response = await get(path)
    expect(response.status, `${path}: ${await response.clone().text()}`).toBe(200)
    return response.json()
  }
  const expectProblem = async (path: string, status: number, code: string) => {
    const response = await get(path)
    expect(response.status, path).toBe(status)
    expect(response.headers.get("content-type")).toBe("application/problem+json")
    expect((await response.json() as { code: string }).code, path).toBe(code)
  }
  return { get, json, expectProblem }
}
