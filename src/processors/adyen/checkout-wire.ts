import { z } from "@medusajs/framework/zod"

/**
 * The Checkout API v71 answers the gateway reads (CheckoutService-v71.json),
 * as far as it reads them. Every field is optional in Adyen's schemas; the
 * ones the gateway cannot do without are required here, so an answer without
 * them is a protocol error rather than a silent "approved".
 */

const amountSchema = z.object({ value: z.number().int(), currency: z.string() })

/** `PaymentResponse`: a verdict (`resultCode`) on a `/payments`. */
export const paymentResponseSchema = z.object({
  pspReference: z.string().min(1).optional(),
  resultCode: z.string().min(1),
  refusalReason: z.string().optional(),
  refusalReasonCode: z.string().optional(),
  merchantReference: z.string().optional(),
  amount: amountSchema.optional(),
  paymentMethod: z.object({ brand: z.string().optional(), type: z.string().optional() }).optional(),
  additionalData: z.record(z.string(), z.unknown()).optional(),
})

/** `PaymentResponse`, as read. */
export type PaymentResponse = z.output<typeof paymentResponseSchema>

/**
 * Every modification's `201` (`PaymentCaptureResponse`, `…RefundResponse`,
 * `…CancelResponse`, `…ReversalResponse`, `StandalonePaymentCancelResponse`):
 * `status` is always `received`, `pspReference` the modification's own.
 */
export const modificationResponseSchema = z.object({
  status: z.literal("received"),
  pspReference: z.string().min(1),
  paymentPspReference: z.string().optional(),
  paymentReference: z.string().optional(),
  amount: amountSchema.optional(),
})

/** A modification's `201`, as read. */
export type ModificationResponse = z.output<typeof modificationResponseSchema>

/** `ServiceError`: every non-2xx answer of the Checkout API (all fields optional in the spec). */
export const serviceErrorSchema = z.object({
  status: z.number().optional(),
  errorCode: z.string().optional(),
  message: z.string().optional(),
  errorType: z.string().optional(),
  pspReference: z.string().optional(),
})

/** `ServiceError`, as read. */
export type ServiceError = z.output<typeof serviceErrorSchema>

/** The `ServiceError` in an error answer's body, when it is one. */
export function serviceErrorOf(body: unknown): ServiceError | undefined {
  const parsed = serviceErrorSchema.safeParse(body)
  return parsed.success && (parsed.data.errorCode !== undefined || parsed.data.status !== undefined) ? parsed.data : undefined
}

/** An `additionalData` value, when it is a non-empty string. */
export function additionalText(data: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = data?.[key]
  return typeof value === "string" && value !== "" ? value : undefined
}
