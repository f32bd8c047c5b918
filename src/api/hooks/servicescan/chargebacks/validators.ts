import { z } from "@medusajs/framework/zod"
import { ChargebackFields } from "../../../admin/servicescan/validators"

/**
 * Body of `POST /hooks/servicescan/chargebacks`: the admin API's fields.
 * `external_id` is the processor's dispute id; a repeated delivery changes nothing.
 */
export const WebhookChargeback = z.object(ChargebackFields)
export type WebhookChargebackType = z.infer<typeof WebhookChargeback>
