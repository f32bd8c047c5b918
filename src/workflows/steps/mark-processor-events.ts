import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"

/**
 * Marks stored events applied, or why not (`error`, with `processed_at` left
 * null, so the case import's catch-up tries them again); the compensation
 * clears the mark.
 */
export const markProcessorEventsStep = createStep(
  "servicescan-mark-processor-events",
  async (
    input: {
      ids: string[]
      waiting: string[]
      now: string
      error: string | null
      /** Among `ids`: events applied, but with what the merchant must know kept on the row (`error` beside `processed_at`). */
      notes?: { id: string; note: string }[]
    },
    { container }
  ) => {
    if (!input.ids.length && !input.waiting.length) {
      return new StepResponse(undefined, [] as string[])
    }
    const notes = new Map((input.notes ?? []).map(({ id, note }) => [id, note]))
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    await service.updateProcessorEvents([
      ...input.ids.map((id) => ({ id, processed_at: input.error ? null : new Date(input.now), error: input.error ?? notes.get(id) ?? null })),
      ...input.waiting.map((id) => ({ id, processed_at: null, error: "no payment records this operation yet" })),
    ])
    return new StepResponse(undefined, input.ids)
  },
  async (ids, { container }) => {
    if (ids?.length) {
      await container
        .resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
        .updateProcessorEvents(ids.map((id) => ({ id, processed_at: null })))
    }
  }
)
