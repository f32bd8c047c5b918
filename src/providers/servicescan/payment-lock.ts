/** How long an operation on one payment waits for the one before it (seconds, the Locking Module's unit). */
export const PAYMENT_LOCK_TIMEOUT_SECONDS = 60

/**
 * The lock every change of one ServiceScan payment's data holds, whoever
 * makes it: the admin's capture and refund routes and an order's cancel
 * (api/admin/payments/serialize-payment-operations.ts), and a processor's
 * later outcome (workflows/steps/apply-operation-outcomes.ts).
 *
 * Why: the provider derives a partial capture's and a refund's processor
 * request id from the payment (authorization, captures or refunds recorded so
 * far, amount), because Medusa replaces its Capture or Refund record when a
 * provider call fails, and a retry must reach the processor under the same
 * id. Two same-amount operations started at once would read the same "so far"
 * and share an id: the processor would act once while Medusa recorded two. In
 * a row, the second reads the first's record and gets an id of its own. An
 * outcome read, changed and written back beside a capture would likewise drop
 * the capture's record, or the capture the outcome.
 */
export function paymentLockKey(paymentId: string): string {
  return `servicescan:payment:${paymentId}`
}
