// The compiled service (dist/src/main.js) in a child process for the benchmarks, resolved
// once it listens on 127.0.0.1:port; rejected with its output if it exits first.

import { spawn, type ChildProcess } from "node:child_process"

export const startServerProcess = async (options: {
  readonly dataDir: string
  readonly port: number
  /** Extra environment (AICS_DATABASE_URL, limits...). */
  readonly env?: Readonly<Record<string, string>>
  /** Extra node arguments (e.g. --cpu-prof). */
  readonly nodeArgs?: ReadonlyArray<string>
}): Promise<ChildProcess> => {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), "dist/src/main.js"], {
    env: { PATH: process.env["PATH"] ?? "", AICS_DATA_DIR: options.dataDir, AICS_PORT: String(options.port), ...options.env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  await new Promise<void>((resolve, reject) => {
    const check = (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes(`Listening on http://127.0.0.1:${options.port}`)) resolve()
    }
    child.stdout!.on("data", check)
    child.stderr!.on("data", check)
    child.once("exit", () => reject(new Error(output)))
  })
  return child
}
