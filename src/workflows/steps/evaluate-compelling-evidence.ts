import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { summarizeCompellingEvidence, type CompellingEvidenceSummary } from "../../lib/compelling-evidence"
import { evaluateCompellingEvidenceFor } from "../utils/compelling-evidence"

type ChargebackForCe3 = {
  id: string
  order_id: string
  reason_code: string | null
  dispute_case?: { processor_transaction_id: string | null; reason_code: string | null; card_type: string | null } | null
}

/**
 * Reads only: whether each chargeback qualifies for Visa Compelling Evidence
 * 3.0, as the admin shows it (no data element's value), by chargeback id. The
 * processor's case, when there is one, says the reason code and the card type;
 * else the chargeback as recorded.
 */
export const evaluateCompellingEvidenceStep = createStep(
  "servicescan-evaluate-compelling-evidence",
  async (input: { chargeback_ids: string[] }, { container }) => {
    const result: Record<string, CompellingEvidenceSummary> = {}
    if (!input.chargeback_ids.length) {
      return new StepResponse(result)
    }
    const query = container.resolve(ContainerRegistrationKeys.QUERY)
    const { data } = await query.graph({
      entity: "chargeback",
      fields: ["id", "order_id", "reason_code", "dispute_case.processor_transaction_id", "dispute_case.reason_code", "dispute_case.card_type"],
      filters: { id: input.chargeback_ids },
    })
    for (const chargeback of data as ChargebackForCe3[]) {
      const evaluated = await evaluateCompellingEvidenceFor(container, {
        order_id: chargeback.order_id,
        processor_transaction_id: chargeback.dispute_case?.processor_transaction_id ?? null,
        reason_code: chargeback.dispute_case?.reason_code ?? chargeback.reason_code,
        card_type: chargeback.dispute_case?.card_type ?? null,
      })
      result[chargeback.id] = summarizeCompellingEvidence(evaluated)
    }
    return new StepResponse(result)
  }
)
