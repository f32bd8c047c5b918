import { appTestRunner } from "../helpers/app-runner"
import type { IFileModuleService, MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { syncServiceScanProofRequests } from "../../src/jobs/sync-servicescan-proof-requests"
import { importServiceScanDisputeCases } from "../../src/jobs/_run-dispute-case-import"
import { runAutoResponses } from "../../src/jobs/_run-auto-responses"
import { SERVICESCAN_MODULE } from "../../src/modules/servicescan"
import type ServiceScanModuleService from "../../src/modules/servicescan/service"
import type { DisputeCaseRow } from "../../src/modules/servicescan/types"
import { pdfText } from "../../src/lib/evidence-pack/__tests__/fixtures"
import { checkoutWithCard } from "../helpers/checkout"
import { lastSeq, movesSince, WORLDPAY } from "../helpers/processors"
import { reserveSandboxUrl, sandboxFetch, startTestSandbox, TestSandbox } from "../helpers/sandbox"
import { SeededStore, seedStore } from "../helpers/store"

/**
 * The reason-aware evidence pack through the real app: an order paid through
 * the sandbox's Worldpay, fulfilled and shipped with a tracking number through
 * Medusa's admin routes, then disputed as "not received" (Visa 13.1). The pack
 * the processor receives leads with the shipment, read back from the PDF, and
 * the represent note names the family, counted at the sandbox.
 */
reserveSandboxUrl()
process.env.SERVICESCAN_AUTO_RESPOND = "represent-valid-accept-invalid"
jest.setTimeout(240_000)

const APPROVE = "4457119922390123"
const HOUR = 60 * 60 * 1000
const TRACKING = "1Z999AA10123456784"

type SandboxCase = {
  activities: { activityType: string; notes: string | null }[]
  documents: { documentId: string; contentType: string; size: number }[]
}

appTestRunner({
  testSuite: ({ api, getContainer }) => {
    let sandbox: TestSandbox
    let store: SeededStore
    let container: MedusaContainer
    let locationId: string
    let shippingOptionId: string

    beforeAll(async () => {
      sandbox = await startTestSandbox()
      container = getContainer()
      store = await seedStore(container)
      // Somewhere to ship from: a stock location served by Medusa's manual fulfillment provider.
      const link = container.resolve(ContainerRegistrationKeys.LINK)
      const locations = container.resolve(Modules.STOCK_LOCATION)
      const fulfillment = container.resolve(Modules.FULFILLMENT)
      const location = await locations.createStockLocations({ name: "Warehouse" })
      locationId = location.id
      const [profile] = await fulfillment.createShippingProfiles([{ name: "Parcels", type: "default" }])
      const set = await fulfillment.createFulfillmentSets({
        name: "Warehouse shipping",
        type: "shipping",
        service_zones: [{ name: "US", geo_zones: [{ type: "country", country_code: "us" }] }],
      })
      await link.create([
        { [Modules.STOCK_LOCATION]: { stock_location_id: location.id }, [Modules.FULFILLMENT]: { fulfillment_provider_id: "manual_manual" } },
        { [Modules.STOCK_LOCATION]: { stock_location_id: location.id }, [Modules.FULFILLMENT]: { fulfillment_set_id: set.id } },
      ])
      const [option] = await fulfillment.createShippingOptions([
        {
          name: "Parcel post",
          service_zone_id: set.service_zones[0].id,
          shipping_profile_id: profile.id,
          provider_id: "manual_manual",
          price_type: "flat",
          type: { label: "Standard", description: "Parcel post", code: "standard" },
        },
      ])
      shippingOptionId = option.id
    })
    afterAll(async () => {
      await sandbox?.close()
    })

    const service = () => container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)

    it("a 'not received' case (Visa 13.1) is represented with a pack that leads with the shipment and its tracking number", async () => {
      const mark = await lastSeq(WORLDPAY)
      const { formId: scanId, result } = await checkoutWithCard(api, store, { number: APPROVE }, { scanned: true, providerId: WORLDPAY.providerId })
      if (result.type !== "order") throw new Error(`checkout failed: ${JSON.stringify(result)}`)
      const orderId = result.order.id
      const payment = movesSince(await WORLDPAY.moves(), mark).find((m) => (m.kind === "authorization" || m.kind === "sale") && m.ok)
      if (!payment) throw new Error("no approved payment at worldpay")
      for (let i = 0; i < 50 && !(await service().listPaymentRefs({ order_id: orderId })).length; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
      }

      // Fulfilled, shipped with a label and delivered, through Medusa's own admin routes.
      const {
        data: { order },
      } = await api.get(`/admin/orders/${orderId}`, store.adminHeaders)
      const items = (order.items as { id: string; quantity: number }[]).map((item) => ({ id: item.id, quantity: item.quantity }))
      const fulfilled = await api.post(
        `/admin/orders/${orderId}/fulfillments?fields=id,fulfillments.id`,
        { items, location_id: locationId, shipping_option_id: shippingOptionId },
        store.adminHeaders
      )
      expect(fulfilled.status).toBe(200)
      const fulfillmentId = (fulfilled.data.order.fulfillments as { id: string }[])[0].id
      const shipped = await api.post(
        `/admin/orders/${orderId}/fulfillments/${fulfillmentId}/shipments`,
        { items, labels: [{ tracking_number: TRACKING, tracking_url: "https://carrier.example/track", label_url: "https://carrier.example/label" }] },
        store.adminHeaders
      )
      expect(shipped.status).toBe(200)
      const delivered = await api.post(`/admin/orders/${orderId}/fulfillments/${fulfillmentId}/mark-as-delivered`, {}, store.adminHeaders)
      expect(delivered.status).toBe(200)

      // The cardholder says it never arrived.
      const raised = await sandboxFetch<{ caseId: string }>("/__sandbox/chargebacks", {
        body: { cnpTxnId: payment.id, reasonCode: "13.1", reasonCodeDescription: "Merchandise/Services Not Received" },
      })
      expect(raised.status).toBe(201)
      const caseId = raised.body.caseId
      await importServiceScanDisputeCases(container)
      const [row] = (await service().listDisputeCases({ case_id: caseId }, { take: 1 })) as DisputeCaseRow[]
      expect(row).toMatchObject({ status: "matched", order_id: orderId, reason_code: "13.1" })

      await sandboxFetch(`/__sandbox/scans/${scanId}/label`, { body: { groundTruth: "valid" } })
      await syncServiceScanProofRequests(container, { now: () => new Date(Date.now() + 4 * HOUR) })
      await runAutoResponses(container)

      // At the processor: one representment, naming the family, with one PDF.
      const atSandbox = (await sandboxFetch<SandboxCase>(`/__sandbox/chargebacks/${caseId}`)).body
      const represents = atSandbox.activities.filter((a) => a.activityType === "Merchant Represent")
      expect(represents).toHaveLength(1)
      expect(represents[0].notes).toContain("Reason family: Not received")
      expect(atSandbox.documents).toEqual([expect.objectContaining({ contentType: "application/pdf" })])

      // The pack the processor holds, read back from the store's sealed copy.
      const [answered] = (await service().listDisputeCases({ case_id: caseId }, { take: 1 })) as DisputeCaseRow[]
      expect(answered.response_status).toBe("represented")
      const sealed = await container.resolve<IFileModuleService>(Modules.FILE).getAsBuffer(answered.pack_file_id as string)
      const pdf = service().getEvidenceVault().open(sealed, answered.pack_key as string, { kind: "evidence-pack", disputeCaseId: answered.id })
      expect(atSandbox.documents[0].size).toBe(pdf.length)
      const text = pdfText(new Uint8Array(pdf)).all
      expect(text).toContain(TRACKING)
      expect(text).toContain("Delivery of the order")
      expect(text).toContain("Parcel post")
      expect(text).toContain("Reason family")
      // The shipment leads: it comes before the order section and the card verification.
      expect(text.indexOf(TRACKING)).toBeLessThan(text.indexOf("Order number"))
      expect(text).toContain(scanId)
    })
  },
})
