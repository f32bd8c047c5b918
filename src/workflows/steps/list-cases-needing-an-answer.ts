import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import { autoResponse, isPastReplyBy } from "../../modules/servicescan/lifecycle/dispute-case"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import type { CaseNeedsAttentionEvent, DisputeCaseRow } from "../../modules/servicescan/types"

export type ListCasesNeedingAnAnswerStepInput = {
  /** Chargebacks whose evidence may have just completed. */
  chargeback_ids: string[]
  /** `YYYY-MM-DD`; a case past its reply-by day takes no answer. */
  today: string
}

/**
 * The processor cases of these chargebacks that wait for a person: matched,
 * in the merchant's queue, unanswered and undecided, their evidence complete
 * (no proof request still open), and that the module's `autoRespond` policy
 * will not answer (lifecycle/dispute-case.ts: `autoResponse`). Reads only.
 */
export const listCasesNeedingAnAnswerStep = createStep(
  "servicescan-list-cases-needing-an-answer",
  async (input: ListCasesNeedingAnAnswerStepInput, { container }) => {
    const ids = [...new Set(input.chargeback_ids)]
    if (!ids.length) {
      return new StepResponse([] as CaseNeedsAttentionEvent[])
    }
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const policy = service.getSettings().auto_respond
    const cases = (
      (await service.listDisputeCases(
        { chargeback_id: ids, status: "matched", response_status: "none", awaiting_merchant: true, outcome: null },
        { take: null }
      )) as DisputeCaseRow[]
    ).filter((row) => row.chargeback_id && !isPastReplyBy(row.reply_by, input.today))
    if (!cases.length) {
      return new StepResponse([] as CaseNeedsAttentionEvent[])
    }
    const evidence = await service.summarizeEvidence(cases.map((row) => row.chargeback_id as string))
    const waiting: CaseNeedsAttentionEvent[] = []
    for (const row of cases) {
      const summary = evidence.get(row.chargeback_id as string)
      if (!summary || summary.hasInFlight || autoResponse(policy, summary)) {
        continue
      }
      waiting.push({
        id: row.id,
        case_id: row.case_id,
        gateway: row.gateway,
        order_id: row.order_id,
        chargeback_id: row.chargeback_id,
        reply_by: row.reply_by,
        reason: policy === "off" ? "auto_respond_off" : "no_valid_scan",
      })
    }
    return new StepResponse(waiting)
  }
)
