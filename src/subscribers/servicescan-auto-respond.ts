import type { SubscriberArgs, SubscriberConfig } from "@medusajs/framework"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { ServiceScanEvents } from "../modules/servicescan/types"
import { runAutoResponses } from "../jobs/_run-auto-responses"

type EvidenceEvent = { id: string; chargeback_id?: string }

/**
 * When a chargeback's evidence completes (ready, or every scan judged likely
 * fraud), answers its processor case as the `autoRespond` policy says. Off by
 * default; the case import job catches up on any case this missed.
 */
export default async function autoRespondHandler({ event: { name, data }, container }: SubscriberArgs<EvidenceEvent>) {
  // evidence_ready carries the chargeback's id; proof_request.completed its proof request's, with the chargeback beside it.
  const chargebackId = name === ServiceScanEvents.CHARGEBACK_EVIDENCE_READY ? data.id : data.chargeback_id
  if (!chargebackId) {
    return
  }
  try {
    await runAutoResponses(container, { chargeback_ids: [chargebackId] })
  } catch (error) {
    container
      .resolve(ContainerRegistrationKeys.LOGGER)
      .error(`servicescan: automatic answer for chargeback ${chargebackId} failed: ${(error as Error).message}`)
  }
}

export const config: SubscriberConfig = {
  event: [ServiceScanEvents.CHARGEBACK_EVIDENCE_READY, ServiceScanEvents.PROOF_REQUEST_COMPLETED],
}
