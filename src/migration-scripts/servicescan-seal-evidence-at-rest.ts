import type { Logger, MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { EvidenceKeyMissingError } from "../lib/sealed-evidence"
import { resealEvidence } from "../workflows/utils/reseal-at-rest"

/**
 * Seals the card evidence an earlier version left readable, on `medusa db:migrate`
 * (Medusa 2.21 runs a plugin's `migration-scripts` once, after the schema
 * migrations, with the app's container, so the module's configured
 * `evidenceKey` is at hand, which a MikroORM migration's is not): the keys of
 * archived scan images stored in clear are wrapped under it, and evidence packs
 * stored in clear are sealed (their clear copies deleted).
 *
 * With such data and no `evidenceKey`, it fails, and so `db:migrate` does: it
 * is not recorded as run, and runs again once the key is configured (the
 * re-seal command, src/scripts/servicescan-reseal.ts, does the same at any time).
 */
export default async function sealEvidenceAtRest({ container }: { container: MedusaContainer }): Promise<void> {
  const logger = container.resolve<Logger>(ContainerRegistrationKeys.LOGGER)
  try {
    const report = await resealEvidence(container)
    // A row that could not be sealed (its file gone, its key altered) is warned about by name and
    // holds nothing readable; it does not hold back the migration of everything else.
    logger.info(`servicescan: evidence at rest sealed ${JSON.stringify(report)}`)
  } catch (error) {
    if (error instanceof EvidenceKeyMissingError) {
      throw new Error(
        "servicescan: card evidence stored by an earlier version is readable at rest, and the servicescan module has no evidenceKey option to seal it. " +
          "Set evidenceKey (README: Evidence at rest) and run `medusa db:migrate` again."
      )
    }
    throw error
  }
}
