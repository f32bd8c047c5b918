// The demo's processes and how they stop: Medusa first (it holds database connections), then the
// browser, the storefront, the sandbox and PostgreSQL. Ctrl-C reaches Medusa directly too (same
// process group); PostgreSQL runs in its own group so that it outlives Medusa's shutdown. A
// failure prints what to do (and the tail of the log concerned), then stops everything.
import { bold, dim, red, tail } from "./util.mjs"
import { rel } from "./settings.mjs"

export const running = { medusa: null, pg: null, sandbox: null, storefront: null, browser: null }
let shuttingDown = null

/** Whether the demo is stopping (a child exiting then is expected, not a failure). */
export const isShuttingDown = () => shuttingDown !== null

function stopMedusa() {
  const child = running.medusa
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(term)
      clearTimeout(kill)
      resolve()
    }
    child.once("exit", done)
    // A terminal Ctrl-C has already reached Medusa; give it a moment before asking again.
    const term = setTimeout(() => child.kill("SIGTERM"), 1500)
    const kill = setTimeout(() => child.kill("SIGKILL"), 15_000)
  })
}

function stopPostgres() {
  const child = running.pg
  if (!child || child.exitCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill("SIGKILL"), 15_000)
    child.once("exit", () => {
      clearTimeout(kill)
      resolve()
    })
    if (child.connected) child.send({ type: "stop" })
    else child.kill("SIGTERM")
  })
}

export function shutdown(code, reason) {
  shuttingDown ??= (async () => {
    if (reason) process.stdout.write(`\n  ${dim(reason)}\n`)
    const steps = [
      ["browser", () => running.browser?.close()],
      ["Medusa", stopMedusa],
      ["storefront", () => running.storefront?.close()],
      ["sandbox", () => running.sandbox?.close()],
      ["PostgreSQL", stopPostgres],
    ]
    const stopped = []
    for (const [name, stop] of steps) {
      const wasRunning =
        name === "Medusa" ? running.medusa && running.medusa.exitCode === null
        : name === "PostgreSQL" ? running.pg && running.pg.exitCode === null
        : running[name.toLowerCase()]
      try {
        await stop()
      } catch {
        // keep stopping the rest
      }
      if (wasRunning) stopped.push(name)
    }
    if (stopped.length) process.stdout.write(`  ${dim(`Stopped ${stopped.join(", ")}.`)}\n`)
    process.exit(code)
  })()
  return shuttingDown
}

/** Signals stop everything; an error nobody caught is reported as a failure, then everything stops. */
export function handleSignalsAndCrashes() {
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(signal, () => shutdown(signal === "SIGINT" ? 130 : 143, `${signal}: stopping the demo…`))
  }
  process.on("uncaughtException", (error) => fail(error))
  process.on("unhandledRejection", (error) => fail(error))
}

export function fail(error, log) {
  if (shuttingDown) return shuttingDown
  const message = error instanceof Error ? error.message : String(error)
  process.stdout.write(`\n  ${red(bold(running.shown ? "The demo stopped:" : "The demo could not start:"))} ${message}\n`)
  if (log) {
    const lines = tail(log, 30)
    if (lines) process.stdout.write(`\n${dim(lines.replace(/^/gm, "    "))}\n\n  ${dim(`Full log: ${rel(log)}`)}\n`)
  }
  // A stack only for the unexpected (a bug in this script), not for "port in use" and the like.
  if (error instanceof Error && !error.expected && !log && error.stack) {
    process.stdout.write(dim(`${error.stack.split("\n").slice(1, 4).join("\n")}\n`))
  }
  process.stdout.write(`  ${dim("Troubleshooting: demo/README.md")}\n`)
  return shutdown(1)
}

/** An error the user can act on: its message says what to do; no stack trace. */
export const problem = (message, log) => Object.assign(new Error(message), { expected: true, log })
