import { Client } from "@medusajs/framework/pg"
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { randomBytes } from "node:crypto"

type RunnerOptions = Parameters<typeof medusaIntegrationTestRunner>[0]

/**
 * Medusa's `medusaIntegrationTestRunner`, with the migrations run once per
 * database server instead of once per spec file. Each file creates a fresh
 * database and migrates every module into it, which took about 13 of the ~30
 * seconds a file spends before its first test (measured in the http suite's
 * log). Here the first file to boot copies its freshly migrated database to a
 * template; every later file starts from a copy of it, and Medusa's own
 * migration step then finds nothing (or only what is newer) to apply. The
 * copy is made before any test's data exists, so each file still starts from
 * an empty store. The template is named after what changes the schema (the
 * feature flags a file turns on), and lives only as long as the server: a
 * test run's PostgreSQL is thrown away at its end.
 */
export function appTestRunner(options: RunnerOptions): ReturnType<typeof medusaIntegrationTestRunner> {
  const dbName = `servicescan-test-${randomBytes(6).toString("hex")}`
  const template = templateName()
  return medusaIntegrationTestRunner({
    ...options,
    dbName,
    hooks: {
      ...options.hooks,
      beforeServerStart: async (container) => {
        await copyDatabase(template, dbName)
        await options.hooks?.beforeServerStart?.(container)
      },
    },
    testSuite: (runner) => {
      // Registered before the spec's own hooks: it runs right after the app booted, before any seed.
      beforeAll(async () => {
        await copyDatabase(dbName, template)
      })
      options.testSuite(runner)
    },
  })
}

/** The template's name: one per set of schema-changing feature flags. */
function templateName(): string {
  const flags = Object.keys(process.env)
    .filter((name) => name.startsWith("MEDUSA_FF_") && process.env[name] === "true")
    .sort()
    .map((name) => name.slice("MEDUSA_FF_".length).toLowerCase())
  return ["servicescan-migrated", ...flags].join("-")
}

/**
 * `CREATE DATABASE to TEMPLATE from`, when `from` exists and `to` does not.
 * Anything in the way (another file copying the same template at this
 * moment, a template not made yet) leaves `to` as it was: Medusa then
 * migrates as it always does, so this only ever saves time.
 */
async function copyDatabase(from: string, to: string): Promise<void> {
  const client = new Client({
    host: process.env.DB_HOST ?? "localhost",
    port: Number(process.env.DB_PORT ?? 5432),
    user: process.env.DB_USERNAME ?? "postgres",
    password: process.env.DB_PASSWORD || undefined,
    database: "postgres",
  })
  await client.connect()
  try {
    const { rows } = await client.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname = ANY($1)", [[from, to]])
    const names = new Set(rows.map((row) => row.datname))
    if (!names.has(from) || names.has(to)) {
      return
    }
    // A template copy needs its source to itself; the app's pool reconnects, as after Medusa's own snapshot.
    await client.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [from])
    await client.query(`CREATE DATABASE "${to}" WITH TEMPLATE "${from}"`)
  } catch {
    // See above: without the copy, the file migrates its own database.
  } finally {
    await client.end()
  }
}
