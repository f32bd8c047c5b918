import { spawn, ChildProcess } from "node:child_process"
import { createInterface } from "node:readline"

/**
 * The sandbox in a child process, as a remote service: its CPU (building and
 * parsing XML, serving images) is not spent on the app's event loop, where an
 * in-process sandbox would be timed as if it were the plugin's work.
 */
export async function startSandboxProcess(port: number): Promise<{ accountId: string; child: ChildProcess }> {
  const script = `
    const { startSandbox } = require("servicescan-sandbox")
    startSandbox({ host: "127.0.0.1", port: ${Number(port)}, logger: false }).then((s) => {
      process.stdout.write(JSON.stringify({ accountId: s.demo.accountId }) + "\\n")
    })
  `
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] })
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once("line", resolve)
    child.once("exit", (code) => reject(new Error(`the sandbox exited with ${code}`)))
  })
  return { accountId: JSON.parse(line).accountId, child }
}
