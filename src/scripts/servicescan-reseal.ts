import type { ExecArgs, Logger } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { resealEvidence, resealSavedCards } from "../workflows/utils/reseal-at-rest"

const PARTS = ["evidence", "cards"] as const
type Part = (typeof PARTS)[number]

/**
 * The re-seal command, for a store owner who rotated a key (README: Rotating keys):
 *
 * ```sh
 * npx medusa exec ./node_modules/medusa-plugin-servicescan/.medusa/server/src/scripts/servicescan-reseal.js [evidence] [cards]
 * ```
 *
 * With the new key first in `evidenceKey` / `savedCards.secret` and the old
 * ones still after it, it moves everything sealed under an old key to the
 * newest: the wrapped keys of archived scan images and evidence packs (and
 * packs an earlier version stored in clear), and every saved card. It prints
 * what is left under which key; once nothing is left under an old key, that
 * key can be removed from the configuration. Safe to run again, and beside a
 * running store. Without arguments it does both parts.
 */
export default async function servicescanReseal({ container, args }: ExecArgs): Promise<void> {
  const logger = container.resolve<Logger>(ContainerRegistrationKeys.LOGGER)
  const unknown = args.filter((arg) => !PARTS.includes(arg as Part))
  if (unknown.length) {
    throw new Error(`servicescan-reseal: unknown argument ${unknown.join(", ")} (expected: ${PARTS.join(", ")}, or nothing for both)`)
  }
  const parts = args.length ? (args as Part[]) : [...PARTS]
  if (parts.includes("evidence")) {
    const report = await resealEvidence(container)
    logger.info(`servicescan-reseal: evidence ${JSON.stringify(report)}`)
  }
  if (parts.includes("cards")) {
    const report = await resealSavedCards(container)
    logger.info(`servicescan-reseal: saved cards ${JSON.stringify(report)}`)
    if (report.failed) {
      throw new Error(`servicescan-reseal: ${report.failed} account holders were not re-sealed (see the warnings above); run it again`)
    }
  }
}
