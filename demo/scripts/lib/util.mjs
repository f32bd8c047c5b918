// Small helpers for demo.mjs: paths, content hashes, child processes with log files, progress
// lines, ports and HTTP waits. Node built-ins only.
import { spawn } from "node:child_process"
import { createHash } from "node:crypto"
import { createWriteStream, existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { createServer } from "node:net"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"

export const DEMO_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "..")
export const ROOT_DIR = join(DEMO_DIR, "..")
export const MEDUSA_CLI = join(ROOT_DIR, "node_modules", "@medusajs", "cli", "cli.js")

const tty = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR && process.env.TERM !== "dumb"
const paint = (code) => (text) => (tty ? `\x1b[${code}m${text}\x1b[0m` : String(text))
export const bold = paint("1")
export const dim = paint("2")
export const red = paint("31")
export const green = paint("32")
export const yellow = paint("33")
export const cyan = paint("36")

export function formatDuration(ms) {
  const s = ms / 1000
  if (s < 10) return `${s.toFixed(1)} s`
  if (s < 60) return `${Math.round(s)} s`
  return `${Math.floor(s / 60)} min ${String(Math.round(s % 60)).padStart(2, "0")} s`
}

/**
 * A content hash of files and folders (recursively, skipping node_modules and dot folders), so
 * a build is redone exactly when its inputs change, whatever their timestamps say.
 */
export function hashInputs(paths, extra = "") {
  const hash = createHash("sha256").update(extra)
  const visit = (path) => {
    if (!existsSync(path)) {
      hash.update(`missing:${relative(ROOT_DIR, path)}`)
      return
    }
    const stat = statSync(path)
    if (stat.isDirectory()) {
      for (const name of readdirSync(path).sort()) {
        if (name === "node_modules" || name === "__tests__" || name.startsWith(".")) continue
        visit(join(path, name))
      }
    } else {
      hash.update(`${relative(ROOT_DIR, path)}\0`).update(readFileSync(path)).update("\0")
    }
  }
  for (const path of paths) visit(path)
  return hash.digest("hex").slice(0, 16)
}

/** mtimes of build outputs: a build made by someone else (another terminal, `npm run build`) invalidates the stamp. */
export function fingerprint(paths) {
  return paths.map((p) => (existsSync(p) ? Math.round(statSync(p).mtimeMs) : "missing")).join(",")
}

/**
 * Progress of one step on one line: "[2/6] Building … 42 s · Compiling frontend source…".
 * On a terminal the line updates in place; elsewhere a line is printed every 20 s.
 */
export class Step {
  constructor(index, total, label) {
    this.prefix = `  ${dim(`[${index}/${total}]`)} ${label}`
    this.started = Date.now()
    this.detail = ""
    if (tty) {
      this.render()
      this.timer = setInterval(() => this.render(), 1000)
    } else {
      // Without a terminal, announce only steps that take a while, then a line every 20 s.
      this.announce = setTimeout(() => process.stdout.write(`${this.prefix} …\n`), 1000)
      this.announce.unref()
      this.timer = setInterval(() => this.render(), 20_000)
    }
    this.timer.unref()
  }
  note(detail) {
    this.detail = String(detail).replace(/\s+/g, " ").trim().slice(0, 70)
  }
  render() {
    const elapsed = formatDuration(Date.now() - this.started)
    if (tty) {
      // One terminal line, never wrapped, so that "\r" can redraw it.
      const room = (process.stdout.columns || 80) - 1 - this.prefix.replace(ANSI, "").length - ` … ${elapsed}`.length
      const detail = this.detail && room > 8 ? ` · ${this.detail.slice(0, room - 3)}` : ""
      process.stdout.write(`\r\x1b[2K${this.prefix} ${dim(`… ${elapsed}${detail}`)}`)
    } else process.stdout.write(`      ${dim(`still working (${elapsed})${this.detail ? `: ${this.detail}` : ""}`)}\n`)
  }
  finish(text, color = green) {
    clearInterval(this.timer)
    clearTimeout(this.announce)
    const line = `${this.prefix} ${color(text)}`
    process.stdout.write(tty ? `\r\x1b[2K${line}\n` : `${line}\n`)
    return Date.now() - this.started
  }
  done(extra = "") {
    return this.finish(`${formatDuration(Date.now() - this.started)}${extra ? dim(` ${extra}`) : ""}`)
  }
  fail(text = "failed") {
    return this.finish(text, red)
  }
}

const ANSI = /\x1b\[[0-9;]*m/g

/**
 * Runs a command to completion with its output in a log file; `onLine` sees each line (for
 * progress notes). Resolves with the exit code; never rejects for a non-zero exit.
 */
export function run(command, args, { cwd, env, logFile, onLine } = {}) {
  return new Promise((resolve) => {
    const log = createWriteStream(logFile, { flags: "a" })
    log.write(`\n$ ${[command, ...args].join(" ")}   (in ${cwd})\n`)
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] })
    const feeder = () => {
      let partial = ""
      return (chunk) => {
        log.write(chunk)
        if (!onLine) return
        const lines = (partial + chunk.toString()).split("\n")
        partial = lines.pop() ?? ""
        for (const line of lines) if (line.trim()) onLine(line.replace(ANSI, ""))
      }
    }
    child.stdout.on("data", feeder())
    child.stderr.on("data", feeder())
    child.on("error", (error) => {
      log.write(`\n${error.stack}\n`)
      log.end(() => resolve(1))
    })
    child.on("close", (code, signal) => log.end(() => resolve(code ?? (signal ? 1 : 0))))
  })
}

/** The last lines of a log file, without colour codes, for error reports. */
export function tail(file, lines = 25) {
  try {
    return readFileSync(file, "utf8").replace(ANSI, "").trimEnd().split("\n").slice(-lines).join("\n")
  } catch {
    return ""
  }
}

/** Whether a TCP port can be bound on every interface (as Medusa does) and on loopback. */
export function portIsFree(port) {
  const tryListen = (host) =>
    new Promise((resolve) => {
      const server = createServer()
      server.unref()
      server.once("error", () => resolve(false))
      server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)))
    })
  return tryListen(undefined).then((free) => (free ? tryListen("127.0.0.1") : false))
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls `url` until it answers 200, `abort()` returns a reason, or the time is up. */
export async function waitForHttp(url, { timeoutMs = 120_000, abort } = {}) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const reason = abort?.()
    if (reason) throw new Error(reason)
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) })
      if (res.ok) return
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${formatDuration(timeoutMs)}`)
    await sleep(250)
  }
}

/** Medusa logs JSON lines in production; this turns one into a level and a short text. */
export function parseLogLine(line) {
  const clean = line.replace(/\x1b\[[0-9;]*m/g, "").trimEnd()
  if (clean.startsWith("{")) {
    try {
      const entry = JSON.parse(clean)
      if (entry.level === "http") {
        return { level: "http", text: `${entry.method} ${entry.path} ${entry.status} ${Math.round(entry.duration ?? 0)} ms` }
      }
      return { level: entry.level, text: [entry.message, entry.stack].filter(Boolean).join("\n") }
    } catch {
      // not JSON after all
    }
  }
  // The development format: "info:    message".
  const plain = clean.match(/^\s*(info|warn|error|http|debug):\s*(.*)$/)
  if (plain) return { level: plain[1], text: plain[2] }
  return { level: null, text: clean }
}

/**
 * One JSON call of the demo's scripts to Medusa or the sandbox (30 s at most): the status, the
 * parsed body (or the text when it is not JSON) and the text. `token` is an admin's bearer token.
 */
export async function requestJson(url, { method = "GET", body, token } = {}) {
  const res = await fetch(url, {
    method,
    headers: {
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  })
  const text = await res.text()
  let parsed = text
  try {
    parsed = text ? JSON.parse(text) : undefined
  } catch {
    // keep the text
  }
  return { status: res.status, body: parsed, text }
}

/** What an answer of {@link requestJson} says went wrong: its `message` or `error`, else its text. */
export const answerMessage = (res) => (res.body && typeof res.body === "object" && (res.body.message || res.body.error)) || res.text.slice(0, 300)
