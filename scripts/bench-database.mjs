// A throw-away database for one benchmark run: on DATABASE_URL's or DB_HOST's server when set,
// else on an embedded PostgreSQL started for the run (and stopped by drop()).
import { createRequire } from "node:module"
import { startEmbeddedPostgres } from "./embedded-postgres.mjs"

const pg = createRequire(import.meta.url)("pg")

/**
 * @param {string} name the database's name (unique per run, e.g. with the process id)
 * @param {(line: string) => void} log
 * @returns {Promise<{ url: string, drop(): Promise<void> }>}
 */
export async function startBenchDatabase(name, log) {
  let embedded
  let admin
  if (process.env.DATABASE_URL) {
    admin = new URL(process.env.DATABASE_URL)
  } else if (process.env.DB_HOST) {
    admin = new URL(
      `postgres://${encodeURIComponent(process.env.DB_USERNAME ?? "postgres")}:${encodeURIComponent(process.env.DB_PASSWORD ?? "")}@${process.env.DB_HOST}:${process.env.DB_PORT ?? 5432}/postgres`
    )
  } else {
    log("no DATABASE_URL/DB_HOST: starting an embedded PostgreSQL")
    embedded = await startEmbeddedPostgres()
    admin = new URL(`postgres://${embedded.user}:${embedded.password}@${embedded.host}:${embedded.port}/postgres`)
  }
  const client = new pg.Client({ connectionString: admin.toString() })
  await client.connect()
  await client.query(`CREATE DATABASE "${name}"`)
  await client.end()
  const url = new URL(admin)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: admin.toString() })
      await c.connect()
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined)
      await c.end()
      await embedded?.stop()
    },
  }
}
