import { spawn, type ChildProcess } from "node:child_process"
import { createServer } from "node:net"
import { join } from "node:path"

export const EXAMPLE_DIR = join(__dirname, "..")

export type NextServer = {
  url: string
  /** Everything the server printed, for the failure report and the "no server errors" check. */
  output: () => string
  stop: () => Promise<void>
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/**
 * `next start` on the example's production build (test/run.mjs builds it once per run), pointed at
 * the test's Medusa and sandbox through the environment, as a store's deployment would be.
 */
export async function startNext(env: Record<string, string>): Promise<NextServer> {
  const port = await freePort()
  const nextBin = require.resolve("next/dist/bin/next", { paths: [EXAMPLE_DIR] })
  const child: ChildProcess = spawn(process.execPath, [nextBin, "start", "-p", String(port), "-H", "127.0.0.1"], {
    cwd: EXAMPLE_DIR,
    env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", NODE_OPTIONS: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  })
  let output = ""
  child.stdout!.on("data", (chunk) => (output += chunk))
  child.stderr!.on("data", (chunk) => (output += chunk))
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))

  // `localhost`, not 127.0.0.1: the starter's cookies are Secure in production, which browsers
  // accept over plain http only from localhost.
  const url = `http://localhost:${port}`
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next start exited (${child.exitCode}):\n${output}`)
    try {
      const response = await fetch(`http://127.0.0.1:${port}/us`, { redirect: "manual" })
      if (response.status < 500) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL")
      throw new Error(`next start did not answer within 60 s:\n${output}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  return {
    url,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill("SIGTERM")
        await exited
      }
    },
  }
}
