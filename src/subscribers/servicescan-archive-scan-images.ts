import type { SubscriberArgs, SubscriberConfig } from "@medusajs/framework"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { ProofRequestCompletedEvent, ServiceScanEvents } from "../modules/servicescan/types"
import { archiveScanImagesWorkflow } from "../workflows/archive-scan-images"

/**
 * Archives the images of a completed proof request's valid scans in the File
 * Module. Separate from the poll run on purpose: a slow file store must not
 * hold up status updates, and a failed copy is retried by the admin's "check
 * now" while the image proxy falls back to ServiceScan meanwhile.
 */
export default async function archiveScanImagesHandler({
  event: { data },
  container,
}: SubscriberArgs<ProofRequestCompletedEvent>): Promise<void> {
  try {
    await archiveScanImagesWorkflow(container).run({ input: { proof_request_ids: [data.id] } })
  } catch (error) {
    container
      .resolve(ContainerRegistrationKeys.LOGGER)
      .error(`servicescan: archiving the images of proof request ${data.id} failed: ${(error as Error).message}`)
  }
}

export const config: SubscriberConfig = {
  event: ServiceScanEvents.PROOF_REQUEST_COMPLETED,
}
