import type { Context } from "@medusajs/framework/types"
import { MedusaError } from "@medusajs/framework/utils"
import { BodyTooLargeError } from "../../../lib/http"
import { Keyring } from "../../../lib/keyring"
import { EVIDENCE_KEK_PURPOSE, EvidenceVault } from "../../../lib/sealed-evidence"
import type { DisputesImage } from "../../../lib/servicescan/disputes-client"
import { RESOLVED_OPTIONS, WithResolvedOptions } from "../options"
import type { EvidenceVaultSqlRepository } from "../repositories/evidence-vault"
import type { ImageSource, SealedFileSwap } from "../types"
import type { DisputesApiService } from "./disputes-api"

type InjectedDependencies = WithResolvedOptions & {
  evidenceVaultSqlRepository: EvidenceVaultSqlRepository
  disputesApiService: DisputesApiService
}

/** Longest an image may be when it is copied into the File Module or read for a pack (a scan JPEG is tens of kB). */
export const MAX_ARCHIVED_IMAGE_BYTES = 10 * 1024 * 1024

/**
 * Scan images and the evidence kept at rest: a valid scan's image at the
 * service, where each scan's archived copy is stored, and the vault that
 * seals archived images and evidence packs under the `evidenceKey` option.
 */
export class EvidenceVaultService {
  protected readonly sql_: EvidenceVaultSqlRepository
  protected readonly disputesApi_: DisputesApiService
  /** Seals and opens card evidence at rest (src/lib/sealed-evidence.ts). */
  readonly vault: EvidenceVault

  constructor(dependencies: InjectedDependencies) {
    const { evidenceKey } = dependencies[RESOLVED_OPTIONS]
    this.sql_ = dependencies.evidenceVaultSqlRepository
    this.disputesApi_ = dependencies.disputesApiService
    this.vault = new EvidenceVault(evidenceKey ? Keyring.from(evidenceKey, EVIDENCE_KEK_PURPOSE) : null)
  }

  /** The evidence rows of a scan, as the admin image proxy needs them (none: not this store's scan). */
  async listImageSources(scanId: string, sharedContext: Context): Promise<ImageSource[]> {
    return await this.sql_.listImageSources(scanId, sharedContext)
  }

  /**
   * Where a sealed file and its key are stored, swapped only on rows that
   * still hold what the caller read (compare-and-set, one statement): an image
   * archived or a pack made again meanwhile keeps the newer one. Answers the
   * ids swapped.
   */
  async swapStoredEvidence(
    kind: "scan-image" | "evidence-pack",
    swaps: SealedFileSwap[],
    sharedContext: Context
  ): Promise<string[]> {
    return await this.sql_.swap(kind, swaps, sharedContext)
  }

  /** Opens a valid scan's image at the service, as a stream. */
  async openServiceImage(scanId: string, sharedContext: Context): Promise<DisputesImage> {
    return await this.disputesApi_.call((client) => client.getImage(scanId), sharedContext)
  }

  /** Reads a scan's image fully from the service, up to `MAX_ARCHIVED_IMAGE_BYTES`. */
  async downloadServiceImage(scanId: string, sharedContext: Context): Promise<Buffer> {
    const image = await this.openServiceImage(scanId, sharedContext)
    try {
      return await image.body.readAll(MAX_ARCHIVED_IMAGE_BYTES)
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        throw new MedusaError(MedusaError.Types.INVALID_DATA, `The image of scan ${scanId} is larger than 10 MB`)
      }
      throw error
    } finally {
      // Leaving early (too large, an error) must not leave the connection half-read.
      image.body.destroy()
    }
  }
}
