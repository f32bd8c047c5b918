import type { Logger } from "@medusajs/framework/types"
import { BigNumber } from "@medusajs/framework/utils"
import type { MoneyAmount } from "../../processors/money"

/** Reads the amount of one of Medusa's Captures by id; undefined when it cannot be read. */
export type CaptureAmountReader = (captureId: string) => Promise<MoneyAmount | undefined>

type CaptureRetriever = {
  retrieve(id: string, config: { select: string[] }): Promise<{ amount?: unknown; raw_amount?: unknown }>
}

function isCaptureRetriever(value: unknown): value is CaptureRetriever {
  return typeof value === "object" && value !== null && typeof Reflect.get(value, "retrieve") === "function"
}

function isMoneyAmount(value: unknown): value is MoneyAmount {
  return (
    typeof value === "number" ||
    typeof value === "string" ||
    value instanceof BigNumber ||
    (typeof value === "object" && value !== null && "value" in value)
  )
}

/**
 * Medusa passes `capturePayment` no amount, only its Capture's id. Medusa
 * registers the payment module's own services in the container its
 * providers are built from, `captureService` among them (the module service
 * itself is built from it). Resolving it lazily keeps the provider usable where
 * it is not registered: a capture there is refused, never guessed.
 */
export function captureReaderFrom(container: Record<string, unknown>, logger: Logger): CaptureAmountReader {
  return async (captureId) => {
    let service: unknown
    try {
      service = container.captureService
    } catch {
      service = undefined
    }
    if (!isCaptureRetriever(service)) {
      logger.warn(`servicescan ${JSON.stringify({ operation: "capture", event: "capture_unreadable", capture_id: captureId, detail: "the payment module's captureService is not in the provider's container" })}`)
      return undefined
    }
    try {
      const capture = await service.retrieve(captureId, { select: ["id", "amount", "raw_amount"] })
      const amount = capture.raw_amount ?? capture.amount
      return isMoneyAmount(amount) ? amount : undefined
    } catch (error) {
      logger.warn(`servicescan ${JSON.stringify({ operation: "capture", event: "capture_unreadable", capture_id: captureId, detail: error instanceof Error ? error.message : String(error) })}`)
      return undefined
    }
  }
}
