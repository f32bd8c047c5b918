import { ChildProcess, execFileSync, spawn } from "node:child_process"
import { accessSync, constants, createWriteStream, mkdirSync, WriteStream } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

export const ROOT = join(__dirname, "..", "..", "..")
export const MEDUSA_CLI = join(ROOT, "node_modules", "@medusajs", "cli", "cli.js")

/** A free TCP port on loopback (the OS picks it; nothing else is racing for it on a test machine). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Polls `check` until it returns a value other than undefined/false, or fails with `what` after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  { timeoutMs = 60_000, intervalMs = 250 } = {}
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let lastError: unknown
  for (;;) {
    try {
      const value = await check()
      if (value !== undefined && value !== false) {
        return value as T
      }
    } catch (error) {
      lastError = error
    }
    if (Date.now() > deadline) {
      const detail = lastError instanceof Error ? ` (last error: ${lastError.message})` : ""
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail}`)
    }
    await sleep(intervalMs)
  }
}

export type LogLine = { at: number; text: string }

/** A child process with its output in a file and in memory, stopped by its own PID. */
export class ManagedProcess {
  readonly lines: LogLine[] = []
  private readonly exited: Promise<number | null>
  private readonly log: WriteStream

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
    readonly logFile: string
  ) {
    this.log = createWriteStream(logFile, { flags: "a" })
    const feed = () => {
      let partial = ""
      return (chunk: Buffer) => {
        this.log.write(chunk)
        const parts = (partial + chunk.toString("utf8")).split("\n")
        partial = parts.pop() ?? ""
        const at = Date.now()
        for (const text of parts) {
          if (text.trim()) this.lines.push({ at, text })
        }
      }
    }
    child.stdout?.on("data", feed())
    child.stderr?.on("data", feed())
    this.exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)))
  }

  get pid(): number {
    return this.child.pid ?? -1
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null
  }

  /** Lines matching `pattern` (optionally only those after `since`, a Date.now() value). */
  grep(pattern: RegExp, since = 0): LogLine[] {
    return this.lines.filter((line) => line.at >= since && pattern.test(line.text))
  }

  waitForLine(what: string, pattern: RegExp, { since = 0, timeoutMs = 60_000 } = {}): Promise<LogLine> {
    return waitFor(
      `${this.name}: ${what}`,
      () => {
        if (!this.running) throw new Error(`${this.name} exited; see ${this.logFile}`)
        return this.grep(pattern, since)[0]
      },
      { timeoutMs }
    )
  }

  /** SIGTERM (graceful), SIGKILL after `graceMs`. Only this process's PID is signalled. */
  async stop(graceMs = 15_000): Promise<void> {
    if (this.running) {
      this.child.kill("SIGTERM")
      const timer = setTimeout(() => this.running && this.child.kill("SIGKILL"), graceMs)
      await this.exited
      clearTimeout(timer)
    }
    await new Promise<void>((resolve) => this.log.end(() => resolve()))
  }
}

/** Where redis-server is, or undefined: REDIS_SERVER, then PATH, then Debian's locations. */
export function findRedisServer(): string | undefined {
  const candidates = [
    process.env.REDIS_SERVER,
    ...(process.env.PATH ?? "").split(":").filter(Boolean).map((dir) => join(dir, "redis-server")),
    "/usr/bin/redis-server",
    "/usr/sbin/redis-server",
  ].filter((p): p is string => Boolean(p))
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {
      // next
    }
  }
  return undefined
}

export type RedisServer = { url: string; process: ManagedProcess; stop: () => Promise<void> }

/** Starts a private redis-server on a free port, in a scratch folder, with persistence off. */
export async function startRedis(binary: string, logDir: string): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), "servicescan-redis-"))
  const port = await freePort()
  const child = spawn(
    binary,
    ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no", "--daemonize", "no"],
    { cwd: dir, stdio: ["ignore", "pipe", "pipe"] }
  )
  const redis = new ManagedProcess("redis", child, join(logDir, "redis.log"))
  await redis.waitForLine("ready", /Ready to accept connections/, { timeoutMs: 20_000 })
  return {
    url: `redis://127.0.0.1:${port}`,
    process: redis,
    async stop() {
      await redis.stop(5_000)
      await rm(dir, { recursive: true, force: true })
    },
  }
}

/** The git revision, for reports. */
export function revision(): string {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim()
  } catch {
    return "unknown"
  }
}

export function ensureDir(dir: string): string {
  mkdirSync(dir, { recursive: true })
  return dir
}
