// Applying a processor's stored webhook events, shared by the subscriber that
// follows each delivery and the case import's catch-up. The leading underscore
// keeps Medusa's job loader from taking this file for a job.
import type { ILockingModule, MedusaContainer } from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import { SERVICESCAN_MODULE } from "../modules/servicescan"
import type ServiceScanModuleService from "../modules/servicescan/service"
import { applyProcessorEventsWorkflow } from "../workflows/apply-processor-events"
import { runAutoResponses } from "./_run-auto-responses"

/** An event left unapplied this long after it was stored is the catch-up's: younger ones are still the subscriber's. */
export const CATCH_UP_AFTER_MS = 60_000

export type AppliedProcessorEvents = { cases: number; chargebacks_recorded: number; operations: number; errors: string[] }

/**
 * Applies stored events of one gateway (`applyProcessorEventsWorkflow`), one
 * run at a time per gateway: a dispute's NOTIFICATION_OF_CHARGEBACK and
 * CHARGEBACK come moments apart, and each run folds all of its case's
 * events, so two at once would both create the case. Then answers the cases
 * they touched as the `autoRespond` policy says, when their evidence is
 * complete already (a later event can open a case to the merchant's answer
 * after its proof request completed).
 */
export async function applyStoredProcessorEvents(container: MedusaContainer, gateway: string, ids: string[]): Promise<AppliedProcessorEvents> {
  const { result } = await container
    .resolve<ILockingModule>(Modules.LOCKING)
    .execute(`servicescan:processor-events:${gateway}`, () => applyProcessorEventsWorkflow(container).run({ input: { gateway, ids } }), {
      timeout: 60,
    })
  const errors = [...result.errors]
  if (result.cases.length) {
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const rows = await service.listDisputeCases({ gateway, case_id: result.cases }, { select: ["chargeback_id"], take: null })
    const chargebackIds = rows.flatMap((row) => (row.chargeback_id ? [row.chargeback_id] : []))
    if (chargebackIds.length) {
      errors.push(...(await runAutoResponses(container, { chargeback_ids: chargebackIds })).failed)
    }
  }
  return { cases: result.cases.length, chargebacks_recorded: result.chargebacks_recorded, operations: result.operations, errors }
}

/**
 * The stored events of a gateway no run applied: the process stopped between
 * the webhook's answer and its work, or the work failed (a database hiccup,
 * an operation no payment records yet). Adyen will not send them again (it
 * got its `[accepted]`), so the case import applies them.
 */
export async function catchUpProcessorEvents(
  container: MedusaContainer,
  gateway: string,
  options: { now: Date; limit: number }
): Promise<AppliedProcessorEvents | null> {
  const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
  const pending = await service.listProcessorEvents(
    {
      gateway,
      processed_at: null,
      kind: ["case", "operation"],
      created_at: { $lt: new Date(options.now.getTime() - CATCH_UP_AFTER_MS) },
    },
    { select: ["id"], take: options.limit, order: { created_at: "ASC" } }
  )
  return pending.length ? applyStoredProcessorEvents(container, gateway, pending.map((row) => row.id)) : null
}
