import { moduleIntegrationTestRunner } from "@medusajs/test-utils"
import { randomUUID } from "node:crypto"
import { join } from "node:path"
import { SERVICESCAN_MODULE } from ".."
import { findCardScanIds } from "../../../workflows/utils/card-scan-ids"
import ServiceScanModuleService from "../service"
import { MAX_SAVED_CARD_SCANS } from "../services/payment-ref"

/**
 * The scans a chargeback on a saved-card payment borrows from the card's
 * earlier payments: the newest `MAX_SAVED_CARD_SCANS`, against real
 * PostgreSQL, so a card used on thousands of orders cannot blow up a proof
 * request or an evidence pack.
 */
jest.setTimeout(60_000)

moduleIntegrationTestRunner<ServiceScanModuleService>({
  moduleName: SERVICESCAN_MODULE,
  resolve: join(__dirname, ".."),
  pathToMigrations: join(__dirname, "..", "migrations"),
  moduleOptions: { baseUrl: "http://127.0.0.1:9", secretKey: "sk_test_servicescan_demo" },
  testSuite: ({ service }) => {
    /** `count` earlier orders paid with the card of `fingerprint`, one at a time (each its own created_at), oldest first. */
    async function paymentsWithCard(fingerprint: string, count: number, tag: string) {
      const made: { order_id: string; scan_id: string }[] = []
      for (let i = 0; i < count; i++) {
        const ref = { order_id: `order_${tag}_${i}`, scan_id: randomUUID() }
        await service.recordPaymentRefs([
          { payment_id: `pay_${tag}_${i}`, processor_transaction_id: `txn_${tag}_${i}`, processor_order_id: null, token_fingerprint: fingerprint, ...ref },
        ])
        made.push(ref)
      }
      return made
    }

    it("answers only the newest scans of a card used on many orders, oldest first, excluding the disputed order", async () => {
      const earlier = await paymentsWithCard("fp_busy", 3 * MAX_SAVED_CARD_SCANS, "busy")
      const other = await paymentsWithCard("fp_other", 2, "other")
      const disputed = earlier[earlier.length - 1]

      const scans = await service.listScansOfCards({
        fingerprints: ["fp_busy"],
        before: new Date(Date.now() + 60_000),
        exclude_order_ids: [disputed.order_id],
      })
      expect(scans).toHaveLength(MAX_SAVED_CARD_SCANS)
      // The disputed order itself does not take a place in the cap: the ten before it.
      const expected = earlier.slice(-MAX_SAVED_CARD_SCANS - 1, -1)
      expect(scans).toEqual(expected.map((ref) => ({ ...ref, token_fingerprint: "fp_busy" })))
      expect(scans.map((scan) => scan.scan_id)).not.toContain(other[0].scan_id)

      // Only payments before the disputed authorization count.
      const [middle] = await service.listPaymentRefs({ order_id: earlier[4].order_id }, { select: ["created_at"] })
      const before = await service.listScansOfCards({ fingerprints: ["fp_busy"], before: new Date(middle.created_at), exclude_order_ids: [] })
      expect(before.map((scan) => scan.order_id)).toEqual(earlier.slice(0, 4).map((ref) => ref.order_id))
    })

    it("caps what a saved-card order's chargeback carries, through the step's own lookup", async () => {
      const earlier = await paymentsWithCard("fp_saved", MAX_SAVED_CARD_SCANS + 15, "saved")
      const order = {
        id: "order_saved_disputed",
        payment_collections: [
          {
            payments: [
              {
                provider_id: "pp_servicescan_servicescan",
                data: { source: "saved_card", token_fingerprint: "fp_saved", authorized_at: new Date(Date.now() + 60_000).toISOString() },
              },
            ],
          },
        ],
      }
      const found = await findCardScanIds(service, [order])
      expect(found[order.id]).toEqual(earlier.slice(-MAX_SAVED_CARD_SCANS).map((ref) => ref.scan_id))
    })
  },
})
