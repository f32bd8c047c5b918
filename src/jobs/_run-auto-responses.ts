// The `autoRespond` policy's run, shared by the case import job (which catches
// up on every case) and the auto-respond subscriber (one chargeback at a time).
// The leading underscore keeps Medusa's job loader from taking this file for a
// job: it skips files whose name starts with "_".
import type { Logger, MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { SERVICESCAN_MODULE } from "../modules/servicescan"
import { autoResponse, isPastReplyBy } from "../modules/servicescan/lifecycle/dispute-case"
import type ServiceScanModuleService from "../modules/servicescan/service"
import type { DisputeCaseRow } from "../modules/servicescan/types"
import { respondToDisputeWorkflow } from "../workflows/respond-to-dispute"

const ANSWERED = { represent: "represented", accept: "liability_accepted" } as const

export type AutoResponseReport = { represented: number; accepted: number; failed: string[] }

/**
 * Applies the module's `autoRespond` policy to cases whose evidence is
 * complete: the given chargebacks' cases, or (without ids) every case still
 * waiting for an answer. What to do is the lifecycle's `autoResponse`; each
 * answer runs `respondToDisputeWorkflow`, which refuses anything late or
 * repeated, so calling this twice sends nothing twice.
 */
export async function runAutoResponses(
  container: MedusaContainer,
  options: { chargeback_ids?: string[]; now?: Date } = {}
): Promise<AutoResponseReport> {
  const report: AutoResponseReport = { represented: 0, accepted: 0, failed: [] }
  const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
  const policy = service.getSettings().auto_respond
  if (policy === "off" || !service.getDisputeGateways().length) {
    return report
  }
  const now = options.now ?? new Date()
  const today = now.toISOString().slice(0, 10)
  const cases = (
    (await service.listDisputeCases(
      {
        status: "matched",
        response_status: ["none", "representing", "accepting"],
        awaiting_merchant: true,
        ...(options.chargeback_ids ? { chargeback_id: options.chargeback_ids } : { chargeback_id: { $ne: null } }),
      },
      { take: null }
    )) as DisputeCaseRow[]
  ).filter((row) => row.chargeback_id && !isPastReplyBy(row.reply_by, today))
  if (!cases.length) {
    return report
  }
  const evidence = await service.summarizeEvidence(cases.map((row) => row.chargeback_id as string))
  const logger = container.resolve<Logger>(ContainerRegistrationKeys.LOGGER)
  for (const row of cases) {
    const summary = evidence.get(row.chargeback_id as string)
    const action = summary ? autoResponse(policy, summary) : null
    // An answer under way is finished with the action it started with, whatever the evidence says now.
    const resume = row.response_status === "representing" ? "represent" : row.response_status === "accepting" ? "accept" : null
    const chosen = resume ?? action
    if (!chosen) {
      continue
    }
    let failure: string | null = null
    try {
      const { result } = await respondToDisputeWorkflow(container).run({
        input: { chargeback_id: row.chargeback_id as string, action: chosen, decided_by: "policy", now: now.toISOString() },
      })
      if (result.error) {
        failure = result.error
      } else if (chosen === "represent") {
        report.represented++
      } else {
        report.accepted++
      }
    } catch (error) {
      failure = (error as Error).message
    }
    if (failure !== null) {
      // The evidence_ready and proof_request.completed subscribers and the import's catch-up can
      // reach one case at the same moment; the lock lets one answer and refuses the others. A case
      // answered that way meanwhile is done, not a failure to warn about.
      const [current] = (await service.listDisputeCases({ id: row.id }, { select: ["id", "response_status"], take: 1 })) as DisputeCaseRow[]
      if (current?.response_status !== ANSWERED[chosen]) {
        report.failed.push(`${row.case_id}: ${failure}`)
      }
    }
  }
  for (const failure of report.failed) {
    logger.warn(`servicescan: automatic answer to case ${failure}`)
  }
  return report
}
