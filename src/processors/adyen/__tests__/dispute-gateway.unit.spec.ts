import { http, HttpResponse } from "msw"
import { setupServer } from "msw/node"
import { listenStrictly } from "../../../lib/__tests__/support/msw-listen"
import { DisputeGatewayConfigurationError, DisputeGatewayRefusal } from "../../types"
import { AdyenDisputeGateway } from "../dispute-gateway"
import { chooseDefenseReason } from "../dispute-wire"

const BASE = "https://ca-test.adyen.example/ca/services/DisputeService/v30"
const DISPUTE = "DZ4DPSHB4WD2WN82"
const PDF = new Uint8Array(Buffer.from("%PDF-1.4\n% evidence pack\n", "latin1"))

/** DisputeService-v30's `retrieve-defense-reasons-200` example: SupplyDefenseMaterial is LAST. */
function specReasons(available: string[] = []) {
  const type = (code: string, level: string) => ({ available: available.includes(code), defenseDocumentTypeCode: code, requirementLevel: level })
  return [
    { defenseDocumentTypes: [type("TIDorInvoice", "Optional"), type("GoodsNotReturned", "Required")], defenseReasonCode: "GoodsNotReturned", satisfied: false },
    { defenseDocumentTypes: [type("TIDorInvoice", "Optional"), type("GoodsRepairedOrReplaced", "Required")], defenseReasonCode: "GoodsRepairedOrReplaced", satisfied: false },
    { defenseDocumentTypes: [type("GoodsWereAsDescribed", "Required"), type("TIDorInvoice", "Required")], defenseReasonCode: "GoodsWereAsDescribed", satisfied: false },
    {
      defenseDocumentTypes: [type("TIDorInvoice", "Optional"), type("DefenseMaterial", "Required")],
      defenseReasonCode: "SupplyDefenseMaterial",
      satisfied: available.includes("DefenseMaterial"),
    },
  ]
}

type Seen = { path: string; body: Record<string, unknown>; apiKey: string | null }
const server = setupServer()
listenStrictly(server)

/** Answers each Disputes API operation with `answers[operation]`, recording every call. */
function adyen(answers: Record<string, () => Response>): Seen[] {
  const seen: Seen[] = []
  server.use(
    http.post(`${BASE}/:operation`, async ({ request, params }) => {
      const operation = String(params.operation)
      seen.push({ path: operation, body: (await request.json()) as Record<string, unknown>, apiKey: request.headers.get("x-api-key") })
      const answer = answers[operation]
      return answer ? answer() : HttpResponse.json({ status: 404 }, { status: 404 })
    })
  )
  return seen
}

const ok = (extra: Record<string, unknown> = {}) => () => HttpResponse.json({ disputeServiceResult: { success: true }, ...extra })
const refused = (errorMessage: string) => () => HttpResponse.json({ disputeServiceResult: { success: false, errorMessage } })

function gateway() {
  return new AdyenDisputeGateway({
    merchantAccount: "TestMerchantECOM",
    apiKey: "AQE_secret_api_key",
    environment: "test",
    disputesUrl: BASE,
    maxDocumentBytes: 2 * 1024 * 1024,
    maxRetries: 0,
  })
}

describe("chooseDefenseReason", () => {
  it("chooses SupplyDefenseMaterial by rule, though Adyen lists it last", () => {
    expect(chooseDefenseReason(specReasons())).toEqual({ reason: "SupplyDefenseMaterial", documentType: "DefenseMaterial" })
  })

  it("takes another reason that asks only for DefenseMaterial when SupplyDefenseMaterial is not offered", () => {
    const reasons = [
      ...specReasons().slice(0, 3),
      { defenseReasonCode: "CardholderAuthorised", satisfied: false, defenseDocumentTypes: [{ defenseDocumentTypeCode: "DefenseMaterial", available: false, requirementLevel: "AlternativeRequired" }] },
    ]
    expect(chooseDefenseReason(reasons)).toEqual({ reason: "CardholderAuthorised", documentType: "DefenseMaterial" })
  })

  it("chooses none when every reason needs a document card-scan evidence is not", () => {
    expect(chooseDefenseReason(specReasons().slice(0, 3))).toBeNull()
  })

  // A reason that names the family, answerable with the pack alone (DefenseMaterial as one alternative).
  const withPack = (code: string) => ({
    defenseReasonCode: code,
    satisfied: false,
    defenseDocumentTypes: [
      { defenseDocumentTypeCode: "DefenseMaterial", available: false, requirementLevel: "AlternativeRequired" },
      { defenseDocumentTypeCode: "TIDorInvoice", available: false, requirementLevel: "Optional" },
    ],
  })

  it.each([
    ["not_as_described", "GoodsWereAsDescribed"],
    ["not_received", "GoodsOrServicesDelivered"],
    ["fraud", "CardholderAuthorised"],
    ["credit_not_processed", "CreditOrRefundIssued"],
  ] as const)("prefers the reason that names the family (%s: %s) over the generic one", (family, code) => {
    const reasons = [...specReasons(), withPack("GoodsWereAsDescribed"), withPack("GoodsOrServicesDelivered"), withPack("CardholderAuthorised"), withPack("CreditOrRefundIssued")]
    expect(chooseDefenseReason(reasons, family)).toEqual({ reason: code, documentType: "DefenseMaterial" })
  })

  it("keeps SupplyDefenseMaterial when the family's reason needs a document the pack is not, or for 'other'", () => {
    // Adyen's GoodsWereAsDescribed of the spec example requires its own document type: not ours.
    expect(chooseDefenseReason(specReasons(), "not_as_described")?.reason).toBe("SupplyDefenseMaterial")
    expect(chooseDefenseReason([...specReasons(), withPack("GoodsWereAsDescribed")], "other")?.reason).toBe("SupplyDefenseMaterial")
    expect(chooseDefenseReason([...specReasons(), withPack("GoodsWereAsDescribed")], null)?.reason).toBe("SupplyDefenseMaterial")
  })
})

describe("AdyenDisputeGateway", () => {
  it("represents: supplies the pack as DefenseMaterial, then defends with SupplyDefenseMaterial (never the first reason)", async () => {
    const seen = adyen({ retrieveApplicableDefenseReasons: ok({ defenseReasons: specReasons() }), supplyDefenseDocument: ok(), defendDispute: ok() })
    const instance = gateway()

    await instance.putDocument(DISPUTE, "evidence-pack.pdf", { bytes: PDF, contentType: "application/pdf" })
    await instance.represent(DISPUTE)

    expect(seen.map((call) => call.path)).toEqual([
      "retrieveApplicableDefenseReasons",
      "supplyDefenseDocument",
      "retrieveApplicableDefenseReasons",
      "defendDispute",
    ])
    expect(seen.every((call) => call.apiKey === "AQE_secret_api_key")).toBe(true)
    expect(seen[1].body).toEqual({
      disputePspReference: DISPUTE,
      merchantAccountCode: "TestMerchantECOM",
      defenseDocuments: [{ content: Buffer.from(PDF).toString("base64"), contentType: "application/pdf", defenseDocumentTypeCode: "DefenseMaterial" }],
    })
    expect(seen[3].body).toEqual({ disputePspReference: DISPUTE, merchantAccountCode: "TestMerchantECOM", defenseReasonCode: "SupplyDefenseMaterial" })
  })

  it("represents a fraud case with the defense reason that names the family, when Adyen offers one the pack answers", async () => {
    const cardholder = {
      defenseReasonCode: "CardholderAuthorised",
      satisfied: false,
      defenseDocumentTypes: [{ defenseDocumentTypeCode: "DefenseMaterial", available: true, requirementLevel: "AlternativeRequired" }],
    }
    const seen = adyen({ retrieveApplicableDefenseReasons: ok({ defenseReasons: [...specReasons(["DefenseMaterial"]), cardholder] }), defendDispute: ok() })
    await gateway().represent(DISPUTE, { reasonFamily: "fraud" })
    expect(seen.find((call) => call.path === "defendDispute")?.body).toMatchObject({ defenseReasonCode: "CardholderAuthorised" })
  })

  it("turns a business failure (HTTP 200, success:false) into a DisputeGatewayRefusal with Adyen's words", async () => {
    adyen({ acceptDispute: refused("Dispute expired.") })
    const error = await gateway().acceptLiability(DISPUTE).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(DisputeGatewayRefusal)
    expect((error as Error).message).toBe("Adyen refused acceptDispute: Dispute expired.")
  })

  it("counts a repeat of an answer Adyen already took as done: defended, accepted, document gone", async () => {
    const seen = adyen({
      retrieveApplicableDefenseReasons: ok({ defenseReasons: specReasons(["DefenseMaterial"]) }),
      defendDispute: refused("Dispute has already been defended."),
      acceptDispute: refused("Dispute has already been accepted."),
      deleteDisputeDefenseDocument: refused("Defense document not found."),
    })
    await expect(gateway().represent(DISPUTE)).resolves.toEqual({})
    await expect(gateway().acceptLiability(DISPUTE)).resolves.toEqual({})
    await expect(gateway().deleteDocument(DISPUTE, "DefenseMaterial")).resolves.toBeUndefined()
    expect(seen.find((call) => call.path === "deleteDisputeDefenseDocument")?.body).toEqual({
      disputePspReference: DISPUTE,
      merchantAccountCode: "TestMerchantECOM",
      defenseDocumentType: "DefenseMaterial",
    })
  })

  it("refuses to supply when no reason fits card-scan evidence, naming what was offered, and sends nothing more", async () => {
    const seen = adyen({ retrieveApplicableDefenseReasons: ok({ defenseReasons: specReasons().slice(0, 1) }) })
    const error = await gateway()
      .putDocument(DISPUTE, "pack", { bytes: PDF, contentType: "application/pdf" })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(DisputeGatewayRefusal)
    expect((error as Error).message).toContain("offered: GoodsNotReturned")
    expect(seen).toHaveLength(1)
  })

  it("lists the document types supplied, from the reasons' `available`", async () => {
    adyen({ retrieveApplicableDefenseReasons: ok({ defenseReasons: specReasons(["DefenseMaterial"]) }) })
    await expect(gateway().listDocuments(DISPUTE)).resolves.toEqual(["DefenseMaterial"])
  })

  it("reports 401 as a configuration error that names the role to check and never the key", async () => {
    adyen({
      acceptDispute: () =>
        HttpResponse.json({ status: 401, errorCode: "000", message: "HTTP Status Response - Unauthorized", errorType: "security" }, { status: 401 }),
    })
    const error = await gateway().acceptLiability(DISPUTE).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(DisputeGatewayConfigurationError)
    expect((error as Error).message).toContain("API dispute management")
    expect((error as Error).message).not.toContain("AQE_secret_api_key")
  })

  it("has no read of a dispute: lists are empty and getCase is null, without a call", async () => {
    const instance = gateway()
    await expect(instance.listActionableCases()).resolves.toEqual([])
    await expect(instance.listCasesByActivityDate()).resolves.toEqual([])
    await expect(instance.getCase(DISPUTE)).resolves.toBeNull()
  })

  it("refuses a malformed dispute reference before sending anything", async () => {
    await expect(gateway().acceptLiability("../x")).rejects.toThrow(TypeError)
  })
})
