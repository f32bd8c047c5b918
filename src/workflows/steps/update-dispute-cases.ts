import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import type { DisputeCaseRow } from "../../modules/servicescan/types"

export type DisputeCaseUpdate = Partial<
  Pick<
    DisputeCaseRow,
    | "status"
    | "match_note"
    | "chargeback_id"
    | "order_id"
    | "response_status"
    | "response_error"
    | "document_id"
    | "document_uploaded_at"
    | "represented_at"
    | "liability_accepted_at"
  >
> & { id: string }

const FIELDS = [
  "status",
  "match_note",
  "chargeback_id",
  "order_id",
  "response_status",
  "response_error",
  "document_id",
  "document_uploaded_at",
  "represented_at",
  "liability_accepted_at",
] as const

/**
 * The case's chargeback is a one-to-one relation: the ORM writes its column
 * through the relation's name (`chargeback`), and silently ignores `chargeback_id`.
 */
function writable(update: DisputeCaseUpdate): Record<string, unknown> {
  const { chargeback_id, ...rest } = update
  return chargeback_id === undefined ? rest : { ...rest, chargeback: chargeback_id }
}

/** Writes our side of cases (match, answer); the compensation puts the fields it changed back. */
export const updateDisputeCasesStep = createStep(
  "servicescan-update-dispute-cases",
  async (updates: DisputeCaseUpdate[], { container }) => {
    if (!updates.length) {
      return new StepResponse([] as DisputeCaseUpdate[], [] as DisputeCaseUpdate[])
    }
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const before = await service.listDisputeCases({ id: updates.map((u) => u.id) }, { select: ["id", ...FIELDS], take: null })
    const previous = new Map(before.map((row) => [row.id, row]))
    const undo = updates.map((update) => {
      const row = previous.get(update.id) as Record<string, unknown> | undefined
      const restore: Record<string, unknown> = { id: update.id }
      for (const key of Object.keys(update)) {
        if (key !== "id") {
          restore[key] = row?.[key] ?? null
        }
      }
      return restore as DisputeCaseUpdate
    })
    await service.updateDisputeCases(updates.map(writable))
    return new StepResponse(updates, undo)
  },
  async (undo, { container }) => {
    if (undo?.length) {
      await container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE).updateDisputeCases(undo.map(writable))
    }
  }
)
