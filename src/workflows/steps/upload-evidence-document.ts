import type { IFileModuleService } from "@medusajs/framework/types"
import { MedusaError, Modules } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import { reconcileWithProcessor } from "../../modules/servicescan/lifecycle/dispute-case"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import type { DisputeCaseRow } from "../../modules/servicescan/types"

export type UploadEvidenceDocumentStepInput = {
  case: DisputeCaseRow
  /** The stored pack: its file and its wrapped key (see prepareEvidencePackStep). */
  pack: { file_id: string; key: string; document_id: string }
  now: string
  today: string
}

/**
 * Puts the evidence pack on the processor's case under an id derived from
 * the case, opened from its sealed copy in the File Module only here, on its
 * way to the processor (src/lib/sealed-evidence.ts). A second upload (a retry
 * after a lost answer, a pack made again) replaces the document instead of
 * adding one. The compensation removes a document this step added, unless
 * the processor already shows the case represented (then the document is its
 * evidence and must stay).
 */
export const uploadEvidenceDocumentStep = createStep(
  "servicescan-upload-evidence-document",
  async (input: UploadEvidenceDocumentStepInput, { container }) => {
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const gateway = service.getDisputeGateway(input.case.gateway)
    if (!gateway) {
      throw new MedusaError(MedusaError.Types.NOT_ALLOWED, `No dispute gateway named ${input.case.gateway} is configured`)
    }
    const caseId = input.case.case_id
    const existed = (await gateway.listDocuments(caseId)).includes(input.pack.document_id)
    const sealed = await container.resolve<IFileModuleService>(Modules.FILE).getAsBuffer(input.pack.file_id)
    const bytes = service.getEvidenceVault().open(sealed, input.pack.key, { kind: "evidence-pack", disputeCaseId: input.case.id })
    await gateway.putDocument(caseId, input.pack.document_id, { bytes, contentType: "application/pdf" })
    const previous = {
      id: input.case.id,
      document_id: input.case.document_id,
      document_uploaded_at: input.case.document_uploaded_at,
    }
    await service.updateDisputeCases({ id: input.case.id, document_id: input.pack.document_id, document_uploaded_at: new Date(input.now) })
    return new StepResponse(input.pack.document_id, {
      previous,
      added: existed ? null : input.pack.document_id,
      caseRow: input.case,
      today: input.today,
    })
  },
  async (undo, { container }) => {
    if (!undo) {
      return
    }
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    await service.updateDisputeCases(undo.previous)
    const gateway = service.getDisputeGateway(undo.caseRow.gateway)
    // A gateway with no read of a case (pushed cases) cannot tell whether the document is already the evidence of
    // an answer: it stays, and the next upload replaces it.
    if (!undo.added || !gateway || gateway.webhook) {
      return
    }
    const current = await gateway.getCase(undo.caseRow.case_id)
    if (current && reconcileWithProcessor(undo.caseRow, current, undo.today).response_status !== "represented") {
      await gateway.deleteDocument(undo.caseRow.case_id, undo.added).catch(() => undefined)
    }
  }
)
