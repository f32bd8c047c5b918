import { MedusaError } from "@medusajs/framework/utils"
import { HttpResponse } from "msw"
import { setupServer } from "msw/node"
import { hashId } from "../ids"
import {
  authorizedPayment,
  capturedPayment,
  CnpRequestRecord,
  cnpResponse,
  createProvider,
  expectNoSecrets,
} from "./helpers"
import { cnpHandler, listen } from "./msw"

const server = setupServer()
listen(server)

const REFUND_1 = "ref_01JB8XKQ7YV2M3N4P5Q6R7S8R1"
const REFUND_2 = "ref_01JB8XKQ7YV2M3N4P5Q6R7S8R2"

describe("refundPayment", () => {
  it("credits the capture in minor units, with a request id per refund, and can repeat", async () => {
    const cnp: CnpRequestRecord[] = []
    let n = 0
    server.use(cnpHandler(cnp, () => cnpResponse("credit", { cnpTxnId: `9900${++n}` })))
    const { provider, logger } = createProvider()

    const first = await provider.refundPayment({
      data: capturedPayment(),
      amount: 2.5,
      context: { idempotency_key: REFUND_1 },
    })
    const second = await provider.refundPayment({
      data: first.data,
      amount: { value: "3.25", precision: 20 },
      context: { idempotency_key: REFUND_2 },
    })

    expect(cnp.map((r) => [r.type, r.txn])).toEqual([
      [
        "credit",
        {
          "@_id": hashId(`${capturedPayment().request_id}:refund:0:250`),
          "@_reportGroup": "Default Report Group",
          cnpTxnId: "84000000000000002",
          amount: "250",
        },
      ],
      [
        "credit",
        {
          "@_id": hashId(`${capturedPayment().request_id}:refund:1:325`),
          "@_reportGroup": "Default Report Group",
          cnpTxnId: "84000000000000002",
          amount: "325",
        },
      ],
    ])
    expect(cnp[0].txn["@_id"]).toHaveLength(25)
    expect(second.data?.refunds).toEqual([
      expect.objectContaining({ cnp_txn_id: "99001", amount_minor: 250, capture_cnp_txn_id: "84000000000000002", idempotency_key: REFUND_1 }),
      expect.objectContaining({ cnp_txn_id: "99002", amount_minor: 325, idempotency_key: REFUND_2 }),
    ])
    expect(second.data?.status).toBe("captured")
    expectNoSecrets(second, logger.text())
  })

  it.each([
    ["jpy", 1500, 400, "400"],
    ["kwd", "3.125", "1.005", "1005"],
  ])("sends %s refunds in minor units", async (currency, amount, refund, minor) => {
    const cnp: CnpRequestRecord[] = []
    server.use(cnpHandler(cnp, () => cnpResponse("credit")))
    const { provider } = createProvider()
    const amountMinor = Number(currency === "jpy" ? amount : 3125)
    const data = capturedPayment({
      currency_code: currency,
      amount: String(amount),
      amount_minor: amountMinor,
      captures: [{ cnp_txn_id: "cap1", amount_minor: amountMinor, request_id: "r", captured_at: "t" }],
    })
    await provider.refundPayment({ data, amount: refund, context: { idempotency_key: REFUND_1 } })
    expect(cnp[0].txn.amount).toBe(minor)
  })

  it("returns a refund Medusa retries without calling again", async () => {
    const cnp: CnpRequestRecord[] = []
    server.use(cnpHandler(cnp, () => cnpResponse("credit")))
    const { provider } = createProvider()
    const once = await provider.refundPayment({ data: capturedPayment(), amount: 1, context: { idempotency_key: REFUND_1 } })
    const again = await provider.refundPayment({ data: once.data, amount: 1, context: { idempotency_key: REFUND_1 } })
    expect(cnp).toHaveLength(1)
    expect(again.data).toEqual(once.data)
  })

  it("refunds a sale (automatic capture) against the sale's transaction", async () => {
    const cnp: CnpRequestRecord[] = []
    server.use(cnpHandler(cnp, () => cnpResponse("credit")))
    const { provider } = createProvider()
    const sale = capturedPayment({
      capture_mode: "automatic",
      cnp_txn_id: "5550001",
      captures: [{ cnp_txn_id: "5550001", amount_minor: 1050, request_id: "r", captured_at: "t" }],
    })
    await provider.refundPayment({ data: sale, amount: 10.5, context: { idempotency_key: REFUND_1 } })
    expect(cnp[0].txn).toMatchObject({ cnpTxnId: "5550001", amount: "1050" })
  })

  it("absorbs a one-unit rounding overshoot on the last partial refund", async () => {
    const cnp: CnpRequestRecord[] = []
    server.use(cnpHandler(cnp, () => cnpResponse("credit")))
    const { provider } = createProvider()
    const data = capturedPayment({
      amount: "1.01",
      amount_minor: 101,
      captures: [{ cnp_txn_id: "cap1", amount_minor: 101, request_id: "r", captured_at: "t" }],
    })
    const first = await provider.refundPayment({ data, amount: "0.505", context: { idempotency_key: REFUND_1 } })
    await provider.refundPayment({ data: first.data, amount: "0.505", context: { idempotency_key: REFUND_2 } })
    expect(cnp.map((r) => r.txn.amount)).toEqual(["51", "50"])
  })

  it("sends a retry after an unknown outcome under the lost attempt's request id, though Medusa made a new Refund", async () => {
    const cnp: CnpRequestRecord[] = []
    let answered = 0
    server.use(
      cnpHandler(cnp, () => (answered++ === 0 ? new HttpResponse("upstream timed out", { status: 504 }) : cnpResponse("credit")))
    )
    const { provider } = createProvider({ maxRetries: 0 })
    const data = capturedPayment()
    const lost = await provider.refundPayment({ data, amount: 2.5, context: { idempotency_key: REFUND_1 } }).catch((e: unknown) => e)
    expect(lost).toMatchObject({ outcomeUnknown: true })
    // Medusa deleted REFUND_1 and retries with a new Refund, from the same payment data.
    await provider.refundPayment({ data, amount: 2.5, context: { idempotency_key: REFUND_2 } })
    expect(cnp.map((r) => r.txn["@_id"])).toEqual([cnp[0].txn["@_id"], cnp[0].txn["@_id"]])
  })

  it("tries a refund again under a fresh id when the processor replays an earlier decline of that id", async () => {
    const cnp: CnpRequestRecord[] = []
    server.use(
      cnpHandler(cnp, (request) =>
        cnp.length === 1
          ? cnpResponse("credit", { response: "365", message: "Total credit amount exceeds capture amount", duplicate: true })
          : cnpResponse("credit", { id: String(request.txn["@_id"]), cnpTxnId: "99123" })
      )
    )
    const { provider } = createProvider()
    const data = capturedPayment()
    const result = await provider.refundPayment({ data, amount: 2.5, context: { idempotency_key: REFUND_2 } })
    const ids = cnp.map((r) => r.txn["@_id"])
    expect(ids).toEqual([hashId(`${data.request_id}:refund:0:250`), hashId(`${data.request_id}:refund:0:250:after-decline:1`)])
    expect(result.data?.refunds).toEqual([expect.objectContaining({ cnp_txn_id: "99123", request_id: ids[1] })])
  })

  it("does not retry a first-hand decline", async () => {
    const cnp: CnpRequestRecord[] = []
    server.use(cnpHandler(cnp, () => cnpResponse("credit", { response: "365", message: "Total credit amount exceeds capture amount" })))
    const { provider } = createProvider()
    await expect(provider.refundPayment({ data: capturedPayment(), amount: 1, context: { idempotency_key: REFUND_1 } })).rejects.toMatchObject({
      processorResponse: { code: "365" },
    })
    expect(cnp).toHaveLength(1)
  })

  it("maps a processor refusal (365) to a merchant-facing error with the raw code", async () => {
    server.use(
      cnpHandler([], () => cnpResponse("credit", { response: "365", message: "Total credit amount exceeds capture amount" }))
    )
    const { provider } = createProvider()
    await expect(
      provider.refundPayment({ data: capturedPayment(), amount: 1, context: { idempotency_key: REFUND_1 } })
    ).rejects.toMatchObject({
      type: MedusaError.Types.NOT_ALLOWED,
      message: "Worldpay did not refund the payment (365 Total credit amount exceeds capture amount).",
      processorResponse: { code: "365" },
    })
  })

  it("refuses refunds of uncaptured payments, over-refunds and zero amounts before any call", async () => {
    const { provider } = createProvider()
    await expect(
      provider.refundPayment({ data: authorizedPayment(), amount: 1, context: {} })
    ).rejects.toMatchObject({ type: MedusaError.Types.NOT_ALLOWED, message: expect.stringContaining("cancel it instead") })
    await expect(
      provider.refundPayment({ data: capturedPayment(), amount: 20, context: {} })
    ).rejects.toMatchObject({ type: MedusaError.Types.NOT_ALLOWED, message: expect.stringContaining("exceeds") })
    await expect(
      provider.refundPayment({ data: capturedPayment(), amount: 0, context: {} })
    ).rejects.toMatchObject({ type: MedusaError.Types.INVALID_DATA })
  })
})

describe("refundPayment after partial captures", () => {
  it("refunds more than one capture holds as one credit per capture, and a retry sends the same ids", async () => {
    const cnp: CnpRequestRecord[] = []
    let n = 0
    server.use(cnpHandler(cnp, () => cnpResponse("credit", { cnpTxnId: `8500000000000000${n++}` })))
    const { provider } = createProvider()
    const data = authorizedPayment({
      captures: [
        { cnp_txn_id: "84000000000000002", amount_minor: 300, request_id: "A", captured_at: "2025-01-01T00:01:00Z" },
        { cnp_txn_id: "84000000000000003", amount_minor: 300, request_id: "B", captured_at: "2025-01-01T00:02:00Z" },
      ],
    })

    const result = await provider.refundPayment({ data, amount: 5, context: { idempotency_key: "ref_1" } })

    expect(cnp.map((r) => [r.txn.cnpTxnId, r.txn.amount])).toEqual([
      ["84000000000000002", "300"],
      ["84000000000000003", "200"],
    ])
    expect((result.data as { refunds: unknown[] }).refunds).toEqual([
      expect.objectContaining({ capture_cnp_txn_id: "84000000000000002", amount_minor: 300, idempotency_key: "ref_1" }),
      expect.objectContaining({ capture_cnp_txn_id: "84000000000000003", amount_minor: 200, idempotency_key: "ref_1" }),
    ])
    // Medusa retries a failed refund under a new Refund id with the data it had: the same credits go out under the same ids.
    await provider.refundPayment({ data, amount: 5, context: { idempotency_key: "ref_2" } })
    expect(cnp.slice(2).map((r) => r.txn["@_id"])).toEqual(cnp.slice(0, 2).map((r) => r.txn["@_id"]))
  })
})
