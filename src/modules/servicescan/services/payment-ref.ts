import type { Context, DAL, InferTypeOf } from "@medusajs/framework/types"
import { MedusaInternalService } from "@medusajs/framework/utils"
import { PaymentRef } from "../models"
import type { PaymentRefSqlRepository } from "../repositories/payment-ref"
import type { CardScan, PaymentRefInput, PaymentRefMatch } from "../types"

type ListFilters = Parameters<PaymentRefService["list"]>[0]
type ListConfig = Parameters<PaymentRefService["list"]>[1]

type InjectedDependencies = {
  baseRepository: DAL.RepositoryService
  paymentRefSqlRepository: PaymentRefSqlRepository
}

/**
 * The most scans of earlier payments with a saved card that one chargeback
 * carries (the newest). They show the card in its holder's hands; the newest
 * few show it as well as thousands would, while each one costs a row, an entry
 * in the proof request, a verdict and an image in a pack the processor caps
 * at 2 MB. A card used on thousands of orders must not blow any of these up.
 */
export const MAX_SAVED_CARD_SCANS = 10

/**
 * How the processor names this store's payments (the PaymentRef model; its
 * CRUD is Medusa's): recorded when an order is placed, read to find the order
 * a processor's case disputes and the scans a card left on earlier orders.
 */
export class PaymentRefService extends MedusaInternalService(PaymentRef)<InjectedDependencies, typeof PaymentRef> {
  protected readonly baseRepository_: DAL.RepositoryService
  protected readonly sql_: PaymentRefSqlRepository

  constructor(dependencies: InjectedDependencies) {
    super(dependencies)
    this.baseRepository_ = dependencies.baseRepository
    this.sql_ = dependencies.paymentRefSqlRepository
  }

  /**
   * The orders of this store's payments that the cases name: by the disputed
   * transaction's processor id first, then by the order reference it carried.
   */
  async findPaymentRefs(
    cases: { case_id: string; processor_transaction_id: string | null; processor_order_id: string | null }[]
  ): Promise<Map<string, PaymentRefMatch>> {
    const txnIds = [...new Set(cases.map((c) => c.processor_transaction_id).filter((id): id is string => !!id))]
    const byTxn = txnIds.length ? await this.listRefs({ processor_transaction_id: txnIds }) : []
    const txn = new Map(byTxn.map((ref) => [ref.processor_transaction_id, ref]))
    // The order reference only for the cases their transaction id did not find: usually none.
    const orderRefs = [
      ...new Set(
        cases
          .filter((c) => !(c.processor_transaction_id && txn.has(c.processor_transaction_id)))
          .map((c) => c.processor_order_id)
          .filter((id): id is string => !!id)
      ),
    ]
    const byOrderRef = orderRefs.length ? await this.listRefs({ processor_order_id: orderRefs }) : []
    const order = new Map(byOrderRef.map((ref) => [ref.processor_order_id ?? "", ref]))
    const matches = new Map<string, PaymentRefMatch>()
    for (const c of cases) {
      const ref =
        (c.processor_transaction_id ? txn.get(c.processor_transaction_id) : undefined) ??
        (c.processor_order_id ? order.get(c.processor_order_id) : undefined)
      if (ref) {
        matches.set(c.case_id, { order_id: ref.order_id, payment_id: ref.payment_id, scan_id: ref.scan_id ?? null })
      }
    }
    return matches
  }

  /**
   * The scans of payments made with the same card (the same token
   * fingerprint) as a payment with a saved card: evidence that the card's
   * holder had the card in hand. Only payments recorded before `before` (the
   * disputed payment's authorization) and of other orders than `exclude_order_ids`;
   * the newest `MAX_SAVED_CARD_SCANS` of them, oldest first.
   */
  async listScansOfCards(input: { fingerprints: string[]; before: Date; exclude_order_ids: string[] }): Promise<CardScan[]> {
    const fingerprints = [...new Set(input.fingerprints.filter(Boolean))]
    if (!fingerprints.length) {
      return []
    }
    const excluded = [...new Set(input.exclude_order_ids)]
    // Excluded in the query, not after it: the cap must count only scans that are kept.
    const rows = await this.listRefs(
      {
        token_fingerprint: fingerprints,
        scan_id: { $ne: null },
        created_at: { $lt: input.before },
        ...(excluded.length ? { order_id: { $nin: excluded } } : {}),
      },
      { select: ["scan_id", "order_id", "token_fingerprint"], take: MAX_SAVED_CARD_SCANS, order: { created_at: "DESC", id: "DESC" } }
    )
    const scans: CardScan[] = []
    for (const row of rows.reverse()) {
      if (row.scan_id && row.token_fingerprint) {
        scans.push({ scan_id: row.scan_id, order_id: row.order_id, token_fingerprint: row.token_fingerprint })
      }
    }
    return scans
  }

  /** The orders whose payments carried these scans (a scan's id is its payment's form id). */
  async listScanOrders(scanIds: string[]): Promise<{ scan_id: string; order_id: string }[]> {
    const ids = [...new Set(scanIds.map((id) => id.toLowerCase()))]
    if (!ids.length) {
      return []
    }
    const orders: { scan_id: string; order_id: string }[] = []
    for (const row of await this.listRefs({ scan_id: ids }, { select: ["scan_id", "order_id"], take: null })) {
      if (row.scan_id) {
        orders.push({ scan_id: row.scan_id, order_id: row.order_id })
      }
    }
    return orders
  }

  /**
   * Records how the processor names payments, in the caller's transaction; a
   * payment already recorded is left as it is. Answers the payment ids this
   * call added, which is what a compensation removes. One statement: it runs
   * for every order placed, where reading the known ones first, then creating
   * the rest through the ORM, took three round trips and two entity passes.
   * (So no `payment_ref` created events are emitted; nothing listens for them.)
   */
  async record(refs: PaymentRefInput[], sharedContext: Context): Promise<string[]> {
    return await this.sql_.insertMissing(refs, sharedContext)
  }

  /** Payment refs as plain rows, as the module's generated list answers them. */
  private async listRefs(filters: ListFilters, config: ListConfig = { take: null }): Promise<InferTypeOf<typeof PaymentRef>[]> {
    return await this.baseRepository_.serialize<InferTypeOf<typeof PaymentRef>[]>(await this.list(filters, config))
  }
}
