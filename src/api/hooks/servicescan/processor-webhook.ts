import type { Logger } from "@medusajs/framework/types"
import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { SERVICESCAN_MODULE } from "../../../modules/servicescan"
import type ServiceScanModuleService from "../../../modules/servicescan/service"
import { PushedEvent, WebhookRejection } from "../../../processors/types"
import { receiveProcessorEventsWorkflow } from "../../../workflows/receive-processor-events"

/** How far ahead of our clock an event may be dated (clock skew) before it is taken for a forgery of its date. */
const MAX_FUTURE_MS = 24 * 60 * 60 * 1000

/**
 * A processor's notification webhook, for the dispute gateway named
 * `gateway` (its `webhook`): the processor's own code checks the raw body
 * and reads its events, fresh ones are stored once each, and the processor
 * gets its acknowledgement at once; the work follows from the stored events
 * (`applyProcessorEventsWorkflow`). Forged: 401, malformed: 400, nothing
 * stored. Stale events are acknowledged (so the processor stops sending them)
 * and stored nowhere.
 */
export async function receiveProcessorWebhook(gateway: string, req: MedusaRequest, res: MedusaResponse): Promise<void> {
  const service = req.scope.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
  const webhook = service.getDisputeGateway(gateway)?.webhook
  if (!webhook) {
    res.status(503).json({ type: "not_configured", message: `No ${gateway} dispute gateway with a webhook key is configured` })
    return
  }
  const raw: unknown = req.rawBody
  const body = Buffer.isBuffer(raw) ? raw : Buffer.from(typeof raw === "string" ? raw : "", "utf8")
  const authorization = req.headers.authorization
  let events: PushedEvent[]
  try {
    events = webhook.receive({ body, authorization: typeof authorization === "string" ? authorization : undefined })
  } catch (error) {
    if (error instanceof WebhookRejection) {
      res
        .status(error.reason === "forged" ? 401 : 400)
        .json({ type: error.reason === "forged" ? "unauthorized" : "invalid_data", message: error.message })
      return
    }
    throw error
  }
  const now = Date.now()
  const fresh = events.filter((event) => {
    const at = Date.parse(event.occurredAt)
    return now - at <= webhook.maxAgeMs && at - now <= MAX_FUTURE_MS
  })
  if (fresh.length < events.length) {
    req.scope
      .resolve<Logger>(ContainerRegistrationKeys.LOGGER)
      .warn(`servicescan: ${gateway} webhook: ${events.length - fresh.length} stale event(s) acknowledged and ignored`)
  }
  if (fresh.length) {
    await receiveProcessorEventsWorkflow(req.scope).run({ input: { gateway, events: fresh } })
  }
  res.status(200).type("text/plain").send(webhook.acknowledgement)
}
