import type { ExecArgs } from "@medusajs/framework/types"
import { writeFileSync } from "node:fs"
import { seedStore } from "../../helpers/store"

/**
 * `medusa exec` script of the system suites' template database: the same
 * store the HTTP suites seed (regions offering the provider, a publishable
 * key, one product, an admin user), written as JSON to SYSTEM_SEED_OUTPUT.
 */
export default async function seedSystemStore({ container }: ExecArgs): Promise<void> {
  const output = process.env.SYSTEM_SEED_OUTPUT
  if (!output) {
    throw new Error("SYSTEM_SEED_OUTPUT is not set")
  }
  const store = await seedStore(container)
  writeFileSync(output, JSON.stringify(store))
}
