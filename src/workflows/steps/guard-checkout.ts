import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import type { CheckoutAttemptClaim, CheckoutAttemptInput } from "../../modules/servicescan/types"
import { sameCheckout } from "../../modules/servicescan/lifecycle/form-binding"
import { findSavedCard } from "../../providers/servicescan/saved-cards"
import { loadServiceScanAccountHolders } from "../utils/account-holders"
import {
  CheckoutRefusal,
  checkoutRefusal,
  CheckoutSession,
  savedCardSessionRefusal,
  sessionCustomerId,
  sessionSavedCard,
} from "../utils/checkout-session"

export type GuardCheckoutStepInput = {
  session: CheckoutSession
  /** What the completion records before the card is authorized; null when nothing goes to the processor. */
  attempt: CheckoutAttemptInput | null
  /** The customer the completing request is signed in as; null (or absent) for none. */
  customer_id?: string | null
}

export type GuardCheckoutResult = { refusal: CheckoutRefusal | null }

type Undo = { payment_session_id: string; previous: CheckoutAttemptClaim["previous"] } | null

/**
 * Decides whether a ServiceScan cart completion may go ahead and, when it may
 * and the card is going to the processor, records the attempt (see
 * CheckoutAttempt). One step, and in the usual case two statements: a
 * checkout's every query counts (bench:checkout). Refuses, before anything is
 * recorded or sent: a saved-card session completed by anyone but its owner,
 * signed in, or after its deadline (`savedCardSessionRefusal`); a form id
 * bound to another checkout (another cart's collection or another customer;
 * a session made before the binding existed binds it here); a session whose
 * payment was canceled, whose form already paid through another session, or
 * whose saved card its customer has removed since (`checkoutRefusal`).
 */
export const guardCheckoutStep = createStep(
  "servicescan-guard-checkout",
  async ({ session, attempt, customer_id }: GuardCheckoutStepInput, { container }) => {
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const untrusted = savedCardSessionRefusal(session, customer_id ?? null)
    if (untrusted) {
      return new StepResponse<GuardCheckoutResult, Undo>({ refusal: untrusted }, null)
    }
    if (attempt?.form_id) {
      const checkout = { payment_collection_id: session.payment_collection_id, customer_id: sessionCustomerId(session) }
      if (!sameCheckout(await service.bindFormToCheckout(attempt.form_id, checkout), checkout)) {
        return new StepResponse<GuardCheckoutResult, Undo>({ refusal: "formBoundElsewhere" }, null)
      }
    }
    const savedCard = session.payment ? null : sessionSavedCard(session)
    const savedCardGone = savedCard ? await isSavedCardGone(container, { ...savedCard, provider_id: session.provider_id }) : false
    const early = checkoutRefusal(session, [], savedCardGone)
    if (early || !attempt) {
      return new StepResponse<GuardCheckoutResult, Undo>({ refusal: early }, null)
    }
    let claim = await service.claimCheckoutAttempt(attempt)
    if (!claim.recorded) {
      // The form id went with other sessions' completions: it is spent only if one of them holds a live payment.
      const paidElsewhere = await livePayments(container, claim.other_sessions)
      const refusal = checkoutRefusal(session, paidElsewhere, savedCardGone)
      if (refusal) {
        return new StepResponse<GuardCheckoutResult, Undo>({ refusal }, null)
      }
      claim = await service.claimCheckoutAttempt({ ...attempt, force: true })
    }
    return new StepResponse<GuardCheckoutResult, Undo>({ refusal: null }, { payment_session_id: attempt.payment_session_id, previous: claim.previous })
  },
  async (undo, { container }) => {
    if (!undo) {
      return
    }
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    if (!undo.previous) {
      const rows = await service.listCheckoutAttempts({ payment_session_id: undo.payment_session_id }, { select: ["id"] })
      await service.deleteCheckoutAttempts(rows.map((row) => row.id))
    } else {
      await service.updateCheckoutAttempts({
        id: undo.previous.id,
        attempted_at: undo.previous.attempted_at,
        reconciled_at: undo.previous.reconciled_at,
      })
    }
  }
)

/** Of these payment sessions, those holding a live (not canceled) payment. */
async function livePayments(container: MedusaContainer, sessionIds: string[]): Promise<string[]> {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const { data } = await query.graph({
    entity: "payment_session",
    fields: ["id", "payment.id", "payment.canceled_at"],
    filters: { id: sessionIds },
  })
  return (data as { id: string; payment?: { id: string; canceled_at: unknown } | null }[])
    .filter((session) => session.payment && !session.payment.canceled_at)
    .map((session) => session.id)
}

/**
 * Whether the saved card a session pays with is gone: no longer on the
 * account holder of the customer the session was created for (they deleted
 * it since), or that customer is unknown. The session copied the card when it
 * was created, so without this check a deleted card could still pay.
 */
async function isSavedCardGone(
  container: MedusaContainer,
  card: { card_id: string; customer_id: string | null; provider_id: string }
): Promise<boolean> {
  const account = card.customer_id ? await loadServiceScanAccountHolders(container, card.customer_id) : null
  const holder = account?.holders.find((candidate) => candidate.provider_id === card.provider_id)
  return !holder || !findSavedCard(holder.data, card.card_id)
}
