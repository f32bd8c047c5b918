import { sandboxFetch } from "./sandbox"

/**
 * The processors the parameterised suites run over, defined once: which
 * provider of the test app (medusa-config.ts) pays through each, and how to
 * count what reached it at the sandbox. A suite loops over {@link PROCESSORS}
 * (`describe.each(PROCESSORS)("$name", (processor) => …)`) and counts through
 * `processor.moves()`, never through one processor's own listing.
 *
 * Counting in one vocabulary: every money movement the sandbox recorded is a
 * {@link SandboxMove}. Worldpay lists each request (`/__sandbox/processor/transactions`),
 * a duplicate one flagged `duplicate`; Adyen lists each payment and modification
 * once (`/__sandbox/adyen/transactions`) and counts Idempotency-Key replays on it.
 * Both become one move per movement with the number of times it was answered
 * again (`replays`), so "charged once, asked twice" reads the same for both.
 */

export type ProcessorName = "worldpay" | "adyen"

/** What a movement did, in processor-neutral words. */
export type MoveKind = "authorization" | "sale" | "capture" | "refund" | "release"

/** One money movement at the sandbox's processor. */
export type SandboxMove = {
  /** Order of arrival at the sandbox, across kinds (for "what happened since"). */
  seq: number
  kind: MoveKind
  /** The processor's id of this movement: cnpAPI `cnpTxnId`, Adyen `pspReference`. Payment data's `cnp_txn_id` holds it. */
  id: string
  /** The authorization or sale this movement acts on (for a refund: the payment, not the capture); null for those two. */
  paymentId: string | null
  /** Minor units, when the movement names an amount. */
  amount: number | null
  /** It did what it asked: cnpAPI response 000; Adyen `Authorised`, or the modification's webhook `success`. */
  ok: boolean
  /** Times the processor answered the same request again instead of acting again (duplicate detection, Idempotency-Key). */
  replays: number
  /** The key the processor deduplicated it by: cnpAPI `id`, or Adyen's Idempotency-Key. */
  key: string | null
  /** The merchant's reference it was sent with: cnpAPI `orderId`, Adyen `reference` (payments only). */
  reference: string | null
  /** The processor's raw answer code: cnpAPI response, Adyen `refusalReasonCode` (empty when authorised). */
  code: string
  /** The shopper the card was charged for: cnpAPI `customerId`, Adyen `shopperReference`. */
  shopper: string | null
  /** The processor token an authorization or sale charged: cnpAPI `token`, Adyen `storedPaymentMethodId`. */
  token: string | null
}

export type TestProcessor = {
  name: ProcessorName
  /** The Medusa payment provider of the test app that pays through it. */
  providerId: string
  /** The exchange path's segment (`GET /api/v1/<segment>/form/<id>`). */
  segment: ProcessorName
  /** What its tokens look like: cnpAPI 16 digits, Adyen's 16-character stored payment method id. */
  tokenPattern: RegExp
  /** The sandbox route names of its payment API, for `/__sandbox/stats` and the `dropResponse` fault. */
  routes: { authorize: string; all: readonly string[] }
  /** Every money movement at this processor, oldest first. */
  moves(): Promise<SandboxMove[]>
}

type WorldpayTransaction = {
  seq: number
  type: string
  id: string | null
  orderId: string | null
  customerId: string | null
  amount: number | null
  cnpTxnId: string | null
  originalCnpTxnId: string | null
  response: string
  duplicate: boolean
  token?: string | null
}

const WORLDPAY_KINDS: Readonly<Record<string, MoveKind>> = {
  authorization: "authorization",
  sale: "sale",
  capture: "capture",
  credit: "refund",
  authReversal: "release",
  void: "release",
}

async function worldpayMoves(): Promise<SandboxMove[]> {
  const { body } = await sandboxFetch<{ items: WorldpayTransaction[] }>("/__sandbox/processor/transactions")
  const byTxnId = new Map(body.items.filter((t) => t.cnpTxnId && !t.duplicate).map((t) => [t.cnpTxnId, t]))
  /** The authorization or sale at the root of a chain of follow-ups (a credit of a capture of an authorization). */
  const root = (txnId: string | null): string | null => {
    let current = txnId === null ? undefined : byTxnId.get(txnId)
    for (let hops = 0; current?.originalCnpTxnId && hops < 5; hops++) {
      current = byTxnId.get(current.originalCnpTxnId)
    }
    return current?.cnpTxnId ?? txnId
  }
  const moves = new Map<string, SandboxMove>()
  for (const t of body.items) {
    const kind = WORLDPAY_KINDS[t.type]
    if (!kind || !t.cnpTxnId) continue
    const key = `${t.type}:${t.cnpTxnId}`
    const seen = moves.get(key)
    if (seen) {
      seen.replays += 1
      continue
    }
    moves.set(key, {
      seq: t.seq,
      kind,
      id: t.cnpTxnId,
      paymentId: kind === "authorization" || kind === "sale" ? null : root(t.originalCnpTxnId),
      amount: t.amount,
      ok: t.response === "000",
      replays: 0,
      key: t.id,
      reference: t.orderId,
      code: t.response,
      shopper: t.customerId,
      token: t.token ?? null,
    })
  }
  return [...moves.values()].sort((a, b) => a.seq - b.seq)
}

type AdyenTransaction = {
  seq: number
  type: "payment" | "capture" | "refund" | "cancel" | "reversal" | "technicalCancel"
  pspReference: string
  paymentPspReference?: string | null
  reference: string | null
  amount: { value: number; currency: string } | null
  resultCode?: "Authorised" | "Refused"
  refusalReasonCode?: string | null
  shopperReference?: string
  storedPaymentMethodId?: string
  captureMode?: "immediate" | "manual" | "delayed"
  success?: boolean
  action?: "cancel" | "refund" | null
  idempotencyKey: string | null
  replays: number
}

function adyenKind(t: AdyenTransaction): MoveKind {
  switch (t.type) {
    case "payment":
      return t.captureMode === "immediate" ? "sale" : "authorization"
    case "capture":
      return "capture"
    case "refund":
      return "refund"
    case "reversal":
      return t.action === "refund" ? "refund" : "release"
    case "cancel":
    case "technicalCancel":
      return "release"
  }
}

async function adyenMoves(): Promise<SandboxMove[]> {
  const { body } = await sandboxFetch<{ items: AdyenTransaction[] }>("/__sandbox/adyen/transactions")
  return body.items.map((t) => ({
    seq: t.seq,
    kind: adyenKind(t),
    id: t.pspReference,
    paymentId: t.type === "payment" ? null : (t.paymentPspReference ?? null),
    amount: t.amount?.value ?? null,
    ok: t.type === "payment" ? t.resultCode === "Authorised" : t.success === true,
    replays: t.replays,
    key: t.idempotencyKey,
    reference: t.type === "payment" ? t.reference : null,
    code: t.type === "payment" ? (t.refusalReasonCode ?? "") : "",
    shopper: t.shopperReference ?? null,
    token: t.storedPaymentMethodId ?? null,
  }))
}

/** Worldpay (cnpAPI), the test app's `servicescan` provider. */
export const WORLDPAY: TestProcessor = {
  name: "worldpay",
  providerId: "pp_servicescan_servicescan",
  segment: "worldpay",
  tokenPattern: /^\d{16}$/,
  routes: { authorize: "cnp.online", all: ["cnp.online"] },
  moves: worldpayMoves,
}

/** Adyen (Checkout API v71), the test app's `adyen` provider. */
export const ADYEN: TestProcessor = {
  name: "adyen",
  providerId: "pp_servicescan_adyen",
  segment: "adyen",
  tokenPattern: /^[0-9A-Z]{16}$/,
  routes: {
    authorize: "adyen.payments",
    all: [
      "adyen.payments",
      "adyen.payments.captures",
      "adyen.payments.refunds",
      "adyen.payments.cancels",
      "adyen.payments.reversals",
      "adyen.cancels",
    ],
  },
  moves: adyenMoves,
}

/** What the parameterised suites loop over. */
export const PROCESSORS: readonly TestProcessor[] = [WORLDPAY, ADYEN]

/** The provider ids a test store's regions offer (seedStore). */
export const PROCESSOR_PROVIDER_IDS: readonly string[] = PROCESSORS.map((processor) => processor.providerId)

/** Moves after a mark taken with {@link lastSeq} (movements are never renumbered). */
export function movesSince(moves: SandboxMove[], mark: number): SandboxMove[] {
  return moves.filter((move) => move.seq > mark)
}

/** The mark "now" for {@link movesSince}. */
export async function lastSeq(processor: TestProcessor): Promise<number> {
  return (await processor.moves()).reduce((max, move) => Math.max(max, move.seq), 0)
}

/** Authorizations (or sales) the processor approved and still holds: never released by an approved release. */
export function liveAuthorizations(moves: SandboxMove[]): SandboxMove[] {
  const released = new Set(moves.filter((m) => m.kind === "release" && m.ok).map((m) => m.paymentId))
  return moves.filter((m) => (m.kind === "authorization" || m.kind === "sale") && m.ok && !released.has(m.id))
}

/** What reached the processor for one payment: approved captures and refunds, in minor units. */
export function moneyAt(moves: SandboxMove[], paymentId: string): { captured: number; refunded: number; captures: SandboxMove[]; refunds: SandboxMove[] } {
  const of = (kind: MoveKind) => moves.filter((m) => m.kind === kind && m.ok && m.paymentId === paymentId)
  const captures = of("capture")
  const refunds = of("refund")
  const sum = (list: SandboxMove[]) => list.reduce((total, m) => total + (m.amount ?? 0), 0)
  return { captured: sum(captures), refunded: sum(refunds), captures, refunds }
}

/** Calls to the processor's payment API in `/__sandbox/stats` requests. */
export function processorCalls(processor: TestProcessor, stats: Record<string, number>): number {
  return processor.routes.all.reduce((total, route) => total + (stats[route] ?? 0), 0)
}
