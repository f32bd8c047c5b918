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
    const { provider, logger } = createProvider()

    const result = await provider.capturePayment({
      data: authorizedPayment(),
      context: { idempotency_key: "capt_01JB8XKQ7YV2M3N4P5Q6R7S8T9" },
    })

    expect(cnp).toHaveLength(1)
    expect(cnp[0].type).toBe("capture")
    // No amount and no partial flag: Medusa gives the provider no capture amount, so the capture is full.
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
          captured_at: expect.any(String),
        },
      ],
    })
    expectNoSecrets(result, logger.text())
  })

  it("uses the authorization's request id whatever Medusa's capture id, so a retry is a cnpAPI duplicate", async () => {
    const cnp: CnpRequestRecord[] = []
    server.use(cnpHandler(cnp, () => cnpResponse("capture", { cnpTxnId: "84000000000000002" })))
    const { provider } = createProvider()
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
    const { provider, logger } = createProvider()
    const result = await provider.capturePayment({ data: authorizedPayment(), context: {} })
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
    const { provider, logger } = createProvider()
    const error = await provider
      .capturePayment({ data: authorizedPayment(), context: {} })
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
})
