import { MedusaError } from "@medusajs/framework/utils"
import { setupServer } from "msw/node"
import { ServiceScanPaymentError } from "../errors"
import {
  authorizedPayment,
  capturedPayment,
  CNP_PASSWORD,
  CnpRequestRecord,
  cnpResponse,
  createProvider,
  expectNoSecrets,
  logEntries,
  SESSION_REQUEST_ID,
} from "./helpers"
import { cnpHandler, listen } from "./msw"

const server = setupServer()
listen(server)

describe("capturePayment", () => {
  it("captures the whole authorization with cnpAPI capture and records the capture's transaction id", async () => {
    const cnp: CnpRequestRecord[] = []
    server.use(cnpHandler(cnp, () => cnpResponse("capture", { cnpTxnId: "84000000000000002" })))
    const { provider, logger } = createProvider({}, { capt_01JB8XKQ7YV2M3N4P5Q6R7S8T9: "10.5" })

    const result = await provider.capturePayment({
      data: authorizedPayment(),
      context: { idempotency_key: "capt_01JB8XKQ7YV2M3N4P5Q6R7S8T9" },
    })

    expect(cnp).toHaveLength(1)
    expect(cnp[0].type).toBe("capture")
    // A Capture of the whole authorization: no amount and no partial flag, cnpAPI captures all of it.
    expect(cnp[0].txn).toEqual({
      "@_id": SESSION_REQUEST_ID,
      "@_reportGroup": "Default Report Group",
      cnpTxnId: "84000000000000001",
    })
    expect((cnp[0].root.authentication as { password: string }).password).toBe(CNP_PASSWORD)
    expect(result.data).toMatchObject({
      status: "captured",
      cnp_txn_id: "84000000000000001",
      captures: [
        {
          cnp_txn_id: "84000000000000002",
          amount_minor: 1050,
          request_id: SESSION_REQUEST_ID,
          idempotency_key: "capt_01JB8XKQ7YV2M3N4P5Q6R7S8T9",
          captured_at: expect.any(String),
        },
      ],
    })
    expectNoSecrets(result, logger.text())
  })

  it("uses the authorization's request id for a whole capture whatever Medusa's capture id, so a retry is a cnpAPI duplicate", async () => {
    const cnp: CnpRequestRecord[] = []
    server.use(cnpHandler(cnp, () => cnpResponse("capture", { cnpTxnId: "84000000000000002" })))
    const { provider } = createProvider({}, { capt_A: 10.5, capt_B: 10.5 })
    await provider.capturePayment({ data: authorizedPayment(), context: { idempotency_key: "capt_A" } })
    await provider.capturePayment({ data: authorizedPayment(), context: { idempotency_key: "capt_B" } })
    expect(cnp.map((r) => r.txn["@_id"])).toEqual([SESSION_REQUEST_ID, SESSION_REQUEST_ID])
  })

  it("succeeds without a call when the payment is already captured (sale, or a later partial capture in Medusa)", async () => {
    const { provider } = createProvider()
    const data = capturedPayment()
    await expect(provider.capturePayment({ data, context: {} })).resolves.toEqual({ data })
  })

  it("counts 'authorization amount depleted' (111) as already captured", async () => {
    server.use(
      cnpHandler([], () =>
        cnpResponse("capture", { response: "111", message: "Authorization amount has already been depleted" })
      )
    )
    const { provider, logger } = createProvider({}, { capt_A: 10.5 })
    const result = await provider.capturePayment({ data: authorizedPayment(), context: { idempotency_key: "capt_A" } })
    expect(result.data).toMatchObject({ status: "captured", captures: [{ cnp_txn_id: "" }] })
    expect(logEntries(logger)).toEqual([
      expect.objectContaining({ level: "warn", event: "already_captured", processor_code: "111" }),
    ])
  })

  it.each([
    ["306", "Authorization no longer available"],
    ["360", "No transaction found with specified transaction Id"],
  ])("refuses to count %s as captured: there is no money behind it", async (code, message) => {
    server.use(cnpHandler([], () => cnpResponse("capture", { response: code, message })))
    const { provider, logger } = createProvider({}, { capt_A: 10.5 })
    const error = await provider
      .capturePayment({ data: authorizedPayment(), context: { idempotency_key: "capt_A" } })
      .catch((e: ServiceScanPaymentError) => e)
    expect(error).toBeInstanceOf(ServiceScanPaymentError)
    expect(error).toMatchObject({
      type: MedusaError.Types.NOT_ALLOWED,
      message: `Worldpay did not capture the payment (${code} ${message}).`,
      processorResponse: { code, message },
    })
    expect(logEntries(logger)).toEqual([
      expect.objectContaining({ operation: "capture", processor_code: code, event: "failed" }),
    ])
  })

  it("refuses a canceled payment and data without an authorization", async () => {
    const { provider } = createProvider()
    await expect(
      provider.capturePayment({ data: authorizedPayment({ status: "canceled" }), context: {} })
    ).rejects.toMatchObject({ type: MedusaError.Types.NOT_ALLOWED })
    await expect(provider.capturePayment({ data: { form_id: "x" }, context: {} })).rejects.toMatchObject({
      type: MedusaError.Types.INVALID_DATA,
      message: expect.stringContaining("holds no ServiceScan authorization"),
    })
  })

  describe("partial captures", () => {
    it("sends exactly the Capture's amount, with partial=\"true\" and an id of its own", async () => {
      const cnp: CnpRequestRecord[] = []
      server.use(cnpHandler(cnp, () => cnpResponse("capture", { cnpTxnId: "84000000000000002" })))
      const { provider } = createProvider({}, { capt_A: "2.5" })

      const result = await provider.capturePayment({ data: authorizedPayment(), context: { idempotency_key: "capt_A" } })

      expect(cnp).toHaveLength(1)
      expect(cnp[0].txn).toEqual({
        "@_id": expect.not.stringMatching(SESSION_REQUEST_ID),
        "@_reportGroup": "Default Report Group",
        "@_partial": "true",
        cnpTxnId: "84000000000000001",
        amount: "250",
      })
      expect(result.data).toMatchObject({
        // Still an authorization with money left on it: more captures, or a refund of this one, may follow.
        status: "authorized",
        captures: [{ cnp_txn_id: "84000000000000002", amount_minor: 250, idempotency_key: "capt_A" }],
      })
    })

    it("captures until the authorization is used up, each capture its own request, then counts it captured", async () => {
      const cnp: CnpRequestRecord[] = []
      let n = 0
      server.use(cnpHandler(cnp, () => cnpResponse("capture", { cnpTxnId: `8400000000000001${n++}` })))
      const { provider } = createProvider({}, { capt_A: "2.5", capt_B: "2.5", capt_C: "5.5" })

      const first = await provider.capturePayment({ data: authorizedPayment(), context: { idempotency_key: "capt_A" } })
      const second = await provider.capturePayment({ data: first.data, context: { idempotency_key: "capt_B" } })
      const third = await provider.capturePayment({ data: second.data, context: { idempotency_key: "capt_C" } })

      expect(cnp.map((r) => r.txn.amount)).toEqual(["250", "250", "550"])
      // Two captures of the same amount are two requests: the count so far is part of the id.
      expect(new Set(cnp.map((r) => r.txn["@_id"])).size).toBe(3)
      expect(third.data).toMatchObject({ status: "captured" })
      expect((third.data as { captures: unknown[] }).captures).toHaveLength(3)
      // Nothing is left to capture: a further Capture makes no call.
      await provider.capturePayment({ data: third.data, context: { idempotency_key: "capt_C" } })
      expect(cnp).toHaveLength(3)
    })

    it("sends a retried partial capture (a new Medusa Capture of the same amount) under the same id", async () => {
      const cnp: CnpRequestRecord[] = []
      server.use(cnpHandler(cnp, () => cnpResponse("capture", { cnpTxnId: "84000000000000002" })))
      const { provider } = createProvider({}, { capt_A: "4", capt_A2: "4" })
      await provider.capturePayment({ data: authorizedPayment(), context: { idempotency_key: "capt_A" } })
      await provider.capturePayment({ data: authorizedPayment(), context: { idempotency_key: "capt_A2" } })
      expect(cnp[0].txn["@_id"]).toBe(cnp[1].txn["@_id"])
    })

    it("refuses, before any call, a capture whose amount cannot be read or exceeds what remains", async () => {
      const cnp: CnpRequestRecord[] = []
      server.use(cnpHandler(cnp, () => cnpResponse("capture", {})))
      const { provider } = createProvider({}, { capt_big: "10.52" })
      await expect(
        provider.capturePayment({ data: authorizedPayment(), context: { idempotency_key: "capt_unknown" } })
      ).rejects.toMatchObject({ type: MedusaError.Types.NOT_ALLOWED, message: expect.stringContaining("nothing was captured") })
      await expect(provider.capturePayment({ data: authorizedPayment(), context: {} })).rejects.toMatchObject({
        type: MedusaError.Types.NOT_ALLOWED,
      })
      await expect(
        provider.capturePayment({ data: authorizedPayment(), context: { idempotency_key: "capt_big" } })
      ).rejects.toMatchObject({ type: MedusaError.Types.NOT_ALLOWED, message: expect.stringContaining("exceeds") })
      expect(cnp).toHaveLength(0)
    })

    it("refuses a capture typed one minor unit over what remains: nothing is trimmed that Medusa would record", async () => {
      const cnp: CnpRequestRecord[] = []
      server.use(cnpHandler(cnp, () => cnpResponse("capture", {})))
      const { provider } = createProvider({}, { capt_last: "3.51" })
      const data = authorizedPayment({
        captures: [{ cnp_txn_id: "84000000000000002", amount_minor: 700, request_id: "X", captured_at: "2025-01-01T00:00:00Z" }],
      })
      await expect(provider.capturePayment({ data, context: { idempotency_key: "capt_last" } })).rejects.toMatchObject({
        type: MedusaError.Types.NOT_ALLOWED,
      })
      expect(cnp).toHaveLength(0)
    })

    it("trims a last capture finer than the currency that overshoots what remains by one minor unit (Medusa's full precision)", async () => {
      const cnp: CnpRequestRecord[] = []
      server.use(cnpHandler(cnp, () => cnpResponse("capture", {})))
      const { provider } = createProvider({}, { capt_last: "3.505" })
      const data = authorizedPayment({
        captures: [{ cnp_txn_id: "84000000000000002", amount_minor: 700, request_id: "X", captured_at: "2025-01-01T00:00:00Z" }],
      })
      const result = await provider.capturePayment({ data, context: { idempotency_key: "capt_last" } })
      expect(cnp[0].txn.amount).toBe("350")
      expect(result.data).toMatchObject({ status: "captured" })
    })

    it("refuses to cancel a partly captured payment: the captured part is refunded instead", async () => {
      const cnp: CnpRequestRecord[] = []
      server.use(cnpHandler(cnp, () => cnpResponse("capture", {})))
      const { provider } = createProvider()
      const data = authorizedPayment({
        captures: [{ cnp_txn_id: "84000000000000002", amount_minor: 700, request_id: "X", captured_at: "2025-01-01T00:00:00Z" }],
      })
      await expect(provider.cancelPayment({ data, context: {} })).rejects.toMatchObject({
        type: MedusaError.Types.NOT_ALLOWED,
        message: expect.stringContaining("refund what was captured"),
      })
      expect(cnp).toHaveLength(0)
    })
  })
})
