import { collectOrderScanIds, savedCardPayments } from "../collect-order-scan-ids"

const A = "3f0c9a52-8d4e-4b7a-9c1d-2e5f6a7b8c9d"
const B = "a1b2c3d4-e5f6-4789-8abc-def012345678"

describe("collectOrderScanIds", () => {
  it("takes the scan id of every ServiceScan payment, lower-cased, once", () => {
    expect(
      collectOrderScanIds({
        payment_collections: [
          { payments: [{ provider_id: "pp_servicescan_servicescan", data: { scan_id: A.toUpperCase() } }] },
          {
            payments: [
              { provider_id: "pp_servicescan_eu", data: { scan_id: B } },
              { provider_id: "pp_servicescan_servicescan", data: { scan_id: A } },
            ],
          },
        ],
      })
    ).toEqual([A, B])
  })

  it("ignores other providers, missing data and ids that are not UUIDv4", () => {
    expect(
      collectOrderScanIds({
        payment_collections: [
          {
            payments: [
              { provider_id: "pp_system_default", data: { scan_id: A } },
              { provider_id: "pp_servicescan_servicescan", data: null },
              { provider_id: "pp_servicescan_servicescan", data: { scan_id: "form_123" } },
              { provider_id: "pp_servicescan_servicescan", data: { scan_id: "3f0c9a52-8d4e-1b7a-9c1d-2e5f6a7b8c9d" } },
              null,
            ],
          },
          null,
        ],
      })
    ).toEqual([])
    expect(collectOrderScanIds(undefined)).toEqual([])
  })

  it("takes, for a payment with a saved card, the scan of the form that saved the card", () => {
    expect(
      collectOrderScanIds({
        payment_collections: [
          {
            payments: [
              {
                provider_id: "pp_servicescan_servicescan",
                data: { scan_id: null, source: "saved_card", saved_card: { id: "sscard_x", scan_id: B.toUpperCase() } },
              },
              { provider_id: "pp_servicescan_servicescan", data: { scan_id: A, saved_card: { scan_id: "not-a-uuid" } } },
            ],
          },
        ],
      })
    ).toEqual([B, A])
  })
})

describe("savedCardPayments", () => {
  it("names the token fingerprint and authorization time of each payment with a saved card, and nothing else", () => {
    expect(
      savedCardPayments({
        payment_collections: [
          {
            payments: [
              {
                provider_id: "pp_servicescan_servicescan",
                data: { source: "saved_card", token_fingerprint: "fp1", authorized_at: "2026-01-02T03:04:05.000Z" },
              },
              { provider_id: "pp_servicescan_servicescan", data: { source: "form", token_fingerprint: "fp2", authorized_at: "2026-01-02T03:04:05.000Z" } },
              { provider_id: "pp_servicescan_servicescan", data: { source: "saved_card", authorized_at: "2026-01-02T03:04:05.000Z" } },
              { provider_id: "pp_servicescan_servicescan", data: { source: "saved_card", token_fingerprint: "fp3", authorized_at: "never" } },
              { provider_id: "pp_system_default", data: { source: "saved_card", token_fingerprint: "fp4", authorized_at: "2026-01-02T03:04:05.000Z" } },
            ],
          },
        ],
      })
    ).toEqual([{ fingerprint: "fp1", authorized_at: new Date("2026-01-02T03:04:05.000Z") }])
  })
})
