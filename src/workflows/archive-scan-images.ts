import { createWorkflow, transform, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { acquireLockStep, releaseLockStep } from "@medusajs/medusa/core-flows"
import { randomUUID } from "node:crypto"
import { archiveScanImagesStep } from "./steps/archive-scan-images"
import { listEvidenceToArchiveStep } from "./steps/list-evidence-to-archive"
import { deleteSupersededArchivesStep } from "./steps/delete-superseded-archives"
import { recordArchivedImagesStep } from "./steps/record-archived-images"

export type ArchiveScanImagesWorkflowInput = { proof_request_ids: string[] }
export type ArchiveScanImagesWorkflowOutput = { evidence_id: string; archived: boolean; error: string | null }[]

/**
 * Copies the images of valid scans into Medusa's File Module, sealed with a
 * key kept in our database, so that the evidence outlives ServiceScan's
 * retention without any file provider being able to show it. Only images not
 * archived yet are fetched, so running it twice for the same proof request
 * costs nothing; the lock makes that true for concurrent runs too (the
 * completion subscriber and an admin's "check now"), which would otherwise
 * both store a copy.
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
    const recorded = recordArchivedImagesStep({ archived })
    releaseLockStep({ key: lock.keys, ownerId: lock.ownerId, executeOnSubWorkflow: true })
    const superseded = transform({ recorded }, ({ recorded }) => ({ file_ids: recorded.superseded_file_ids }))
    deleteSupersededArchivesStep(superseded)
    // The keys stay between the steps and the database; callers learn what happened, not where.
    const summary = transform({ archived }, ({ archived }): ArchiveScanImagesWorkflowOutput =>
      archived.map((item) => ({ evidence_id: item.evidence_id, archived: item.file_id !== null, error: item.error }))
    )
    return new WorkflowResponse(summary)
  }
)
