import type { IFileModuleService, ILockingModule, IPaymentModuleService, Logger, MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { sealedKeyId } from "../../lib/keyring"
import { EvidenceKeyMissingError, EvidenceVault, sealedEvidenceFilename } from "../../lib/sealed-evidence"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import { readAccountHolderData } from "../../providers/servicescan/saved-cards"
import { accountHolderLockKey, readAccountHolder } from "./account-holders"
import { SERVICESCAN_PROVIDER_PREFIX } from "./checkout-session"

/**
 * Moves card data at rest to the newest keys, in place, a page at a time:
 * - archived scan images and evidence packs: each file's key is wrapped again
 *   under the newest `evidenceKey` (the files stay as they are), and a pack an
 *   earlier version stored in clear is sealed (a new file, the clear one deleted);
 * - saved cards: each customer's account holder is written again through the
 *   provider, which seals every card under the newest `savedCards.secret` key.
 *
 * Idempotent and safe beside a running store: a row is only changed where it
 * still holds what was read, and a page that fails is reported, not retried
 * forever. Run by the re-seal command (src/scripts/servicescan-reseal.ts) and,
 * for the evidence, by the migration script on `medusa db:migrate`.
 */

/** What one run did. Key ids are not secret; counts by key id say what is left under which key. */
export type EvidenceResealReport = {
  /** The KEK every key is now wrapped under. */
  evidence_key_id: string
  images: { rewrapped: number; unchanged: number; failed: number }
  packs: { sealed_from_clear: number; rewrapped: number; unchanged: number; failed: number }
  /** Stored keys by the KEK that wraps them, after the run ("clear" for keys still in clear). */
  keys_by_kek: Record<string, number>
}

export type SavedCardResealReport = {
  account_holders: number
  /** Cards sealed again under the newest key. */
  resealed: number
  /** Cards by the key that seals them, after the run ("v1" for seals made before key ids). */
  cards_by_key: Record<string, number>
  failed: number
}

type Options = { batchSize?: number }

const DEFAULT_BATCH = 200
const LOCK_TIMEOUT_SECONDS = 30

/**
 * Wraps every stored evidence key under the newest KEK, and seals packs
 * stored in clear.
 * @throws EvidenceKeyMissingError when the module has no `evidenceKey` and there is something to seal.
 */
export async function resealEvidence(container: MedusaContainer, options: Options = {}): Promise<EvidenceResealReport> {
  const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
  const vault = service.getEvidenceVault()
  const logger = container.resolve<Logger>(ContainerRegistrationKeys.LOGGER)
  const batch = options.batchSize ?? DEFAULT_BATCH
  const report: EvidenceResealReport = {
    evidence_key_id: vault.currentKeyId ?? "",
    images: { rewrapped: 0, unchanged: 0, failed: 0 },
    packs: { sealed_from_clear: 0, rewrapped: 0, unchanged: 0, failed: 0 },
    keys_by_kek: {},
  }
  /** Counts a stored key (null: a pack without one) by the KEK that wraps it. */
  const tally = (key: string | null) => {
    const id = (key && sealedKeyId(key)) ?? "clear"
    report.keys_by_kek[id] = (report.keys_by_kek[id] ?? 0) + 1
  }

  for (let cursor = ""; ; ) {
    const rows = await service.listScanEvidences(
      { archive_key: { $ne: null }, archived_file_id: { $ne: null }, id: { $gt: cursor } },
      { select: ["id", "scan_id", "archived_file_id", "archive_key"], take: batch, order: { id: "ASC" } }
    )
    if (!rows.length) {
      break
    }
    cursor = rows[rows.length - 1].id
    const swaps: Parameters<ServiceScanModuleService["swapStoredEvidence"]>[1] = []
    for (const row of rows) {
      const fileId = row.archived_file_id as string
      const key = row.archive_key as string
      if (!vault.needsRewrap(key)) {
        report.images.unchanged++
        tally(key)
        continue
      }
      try {
        const next = requireRewrap(vault, key, { kind: "scan-image", scanId: row.scan_id })
        swaps.push({ id: row.id, expected: { file_id: fileId, key }, next: { file_id: fileId, key: next } })
      } catch (error) {
        rethrowMissingKey(error)
        report.images.failed++
        tally(key)
        logger.warn(`servicescan: the key of the archived image of scan evidence ${row.id} was not re-wrapped: ${(error as Error).message}`)
      }
    }
    const swapped = new Set(await service.swapStoredEvidence("scan-image", swaps))
    for (const swap of swaps) {
      // Not swapped: archived again meanwhile, so under the newest key as well.
      report.images[swapped.has(swap.id) ? "rewrapped" : "unchanged"]++
      tally(swap.next.key)
    }
  }

  const files = container.resolve<IFileModuleService>(Modules.FILE)
  const locking = container.resolve<ILockingModule>(Modules.LOCKING)
  for (let cursor = ""; ; ) {
    const rows = await service.listDisputeCases(
      { pack_file_id: { $ne: null }, id: { $gt: cursor } },
      { select: ["id", "chargeback_id", "pack_file_id", "pack_key"], take: batch, order: { id: "ASC" } }
    )
    if (!rows.length) {
      break
    }
    cursor = rows[rows.length - 1].id
    for (const row of rows) {
      const fileId = row.pack_file_id as string
      const key = row.pack_key as string | null
      if (key && !vault.needsRewrap(key)) {
        report.packs.unchanged++
        tally(key)
        continue
      }
      const binding = { kind: "evidence-pack" as const, disputeCaseId: row.id }
      try {
        if (key) {
          const next = requireRewrap(vault, key, binding)
          const [swapped] = await service.swapStoredEvidence("evidence-pack", [
            { id: row.id, expected: { file_id: fileId, key }, next: { file_id: fileId, key: next } },
          ])
          report.packs[swapped ? "rewrapped" : "unchanged"]++
          tally(next)
          continue
        }
        // A pack stored in clear: sealed as a new file, under the case's answer lock (an answer
        // being sent makes a pack of its own, and its compensation restores the one it read).
        const sealedNow = await locking.execute(
          `servicescan:dispute-answer:${row.chargeback_id ?? row.id}`,
          async () => sealClearPack(service, vault, files, { id: row.id, fileId }, logger),
          { timeout: LOCK_TIMEOUT_SECONDS }
        )
        // Not sealed now: a new pack was made meanwhile, under the newest key.
        report.packs[sealedNow ? "sealed_from_clear" : "unchanged"]++
        report.keys_by_kek[report.evidence_key_id] = (report.keys_by_kek[report.evidence_key_id] ?? 0) + 1
      } catch (error) {
        rethrowMissingKey(error)
        report.packs.failed++
        tally(key)
        logger.warn(`servicescan: the evidence pack of dispute case ${row.id} was not re-sealed: ${(error as Error).message}`)
      }
    }
  }
  return report
}

/** Seals one pack stored in clear; answers its new wrapped key, or null when the row changed meanwhile. */
async function sealClearPack(
  service: ServiceScanModuleService,
  vault: EvidenceVault,
  files: IFileModuleService,
  row: { id: string; fileId: string },
  logger: Logger
): Promise<string | null> {
  const clear = await files.getAsBuffer(row.fileId)
  if (!clear.subarray(0, 5).equals(Buffer.from("%PDF-", "latin1"))) {
    throw new Error("the stored pack has no key and is not a PDF")
  }
  const { sealed, key } = vault.seal(clear, { kind: "evidence-pack", disputeCaseId: row.id })
  const file = await files.createFiles({
    filename: sealedEvidenceFilename(),
    mimeType: "application/octet-stream",
    content: sealed.toString("base64"),
    access: "private",
  })
  const [swapped] = await service.swapStoredEvidence("evidence-pack", [
    { id: row.id, expected: { file_id: row.fileId, key: null }, next: { file_id: file.id, key } },
  ])
  if (!swapped) {
    await files.deleteFiles([file.id])
    return null
  }
  // Logged first: if the delete fails, an operator knows which clear copy to remove.
  logger.info(`servicescan: sealed the evidence pack of dispute case ${row.id}; deleting its clear copy ${row.fileId}`)
  await files.deleteFiles([row.fileId])
  return key
}

function requireRewrap(vault: EvidenceVault, key: string, binding: Parameters<EvidenceVault["rewrap"]>[1]): string {
  const next = vault.rewrap(key, binding)
  if (next === null) {
    throw new Error("the key is already under the newest evidence key")
  }
  return next
}

function rethrowMissingKey(error: unknown): void {
  if (error instanceof EvidenceKeyMissingError) {
    throw error
  }
}

/**
 * Writes every customer's ServiceScan account holder again through the
 * provider (`updateAccountHolder` seals each card under the newest key), under
 * the same lock as a card being saved.
 */
export async function resealSavedCards(container: MedusaContainer, options: Options = {}): Promise<SavedCardResealReport> {
  const payments = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
  const locking = container.resolve<ILockingModule>(Modules.LOCKING)
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const logger = container.resolve<Logger>(ContainerRegistrationKeys.LOGGER)
  const batch = options.batchSize ?? DEFAULT_BATCH
  const report: SavedCardResealReport = { account_holders: 0, resealed: 0, cards_by_key: {}, failed: 0 }
  const providers = (await payments.listPaymentProviders({}, { take: null }))
    .map((provider) => provider.id)
    .filter((id) => id.startsWith(SERVICESCAN_PROVIDER_PREFIX))
  if (!providers.length) {
    return report
  }
  for (let cursor = ""; ; ) {
    const { data } = await query.graph({
      entity: "account_holder",
      fields: ["id", "provider_id"],
      filters: { provider_id: providers, id: { $gt: cursor } },
      pagination: { take: batch, order: { id: "ASC" } },
    })
    const holders = data as { id: string; provider_id: string }[]
    if (!holders.length) {
      break
    }
    cursor = holders[holders.length - 1].id
    for (const holder of holders) {
      try {
        await locking.execute(
          accountHolderLockKey(holder.id),
          async () => {
            const current = readAccountHolderData((await readAccountHolder(container, holder.id))?.data)
            if (!current?.cards.length) {
              return
            }
            const before = new Set(current.cards.map((card) => card.sealed_token))
            const updated = await payments.updateAccountHolder({
              id: holder.id,
              provider_id: holder.provider_id,
              context: { account_holder: { data: current } },
            })
            report.account_holders++
            for (const card of readAccountHolderData(updated.data)?.cards ?? []) {
              if (!before.has(card.sealed_token)) {
                report.resealed++
              }
              const id = sealedKeyId(card.sealed_token) ?? "v1"
              report.cards_by_key[id] = (report.cards_by_key[id] ?? 0) + 1
            }
          },
          { timeout: LOCK_TIMEOUT_SECONDS }
        )
      } catch (error) {
        report.failed++
        logger.warn(`servicescan: the saved cards of account holder ${holder.id} were not re-sealed: ${(error as Error).message}`)
      }
    }
  }
  return report
}
