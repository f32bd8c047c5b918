import { createWorkflow, transform, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { acquireLockStep, releaseLockStep } from "@medusajs/medusa/core-flows"
import { randomUUID } from "node:crypto"
import { archiveScanImagesStep } from "./steps/archive-scan-images"
import { listEvidenceToArchiveStep } from "./steps/list-evidence-to-archive"
import { recordArchivedImagesStep } from "./steps/record-archived-images"

export type ArchiveScanImagesWorkflowInput = { proof_request_ids: string[] }

/**
 * Copies the images of valid scans into Medusa's File Module so that the
 * evidence outlives ServiceScan's retention. Only images not archived yet are
 * fetched, so running it twice for the same proof request costs nothing; the
 * lock makes that true for concurrent runs too (the completion subscriber and
 * an admin's "check now"), which would otherwise both store a copy.
 * Does nothing when the module's `archiveImages` option is off.
 */
export const archiveScanImagesWorkflow = createWorkflow(
  "servicescan-archive-scan-images",
  (input: WorkflowData<ArchiveScanImagesWorkflowInput>) => {
    const lock = transform({ input }, ({ input }) => ({
      keys: input.proof_request_ids.map((id) => `servicescan:archive:${id}`),
      ownerId: randomUUID(),
    }))
    acquireLockStep({ key: lock.keys, ownerId: lock.ownerId, timeout: 60, ttl: 300, executeOnSubWorkflow: true })
    const evidence = listEvidenceToArchiveStep({ proof_request_ids: input.proof_request_ids })
    const archived = archiveScanImagesStep({ evidence })
    recordArchivedImagesStep({ archived })
    releaseLockStep({ key: lock.keys, ownerId: lock.ownerId, executeOnSubWorkflow: true })
    return new WorkflowResponse(archived)
  }
)
