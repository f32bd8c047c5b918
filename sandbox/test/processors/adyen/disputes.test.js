// @ts-check
"use strict";

/**
 * Disputes: raised and decided through the control API, announced by notification webhooks,
 * answered through the Disputes API v30 (defense reasons, documents, defend, accept), with
 * business failures as HTTP 200 `disputeServiceResult {success: false}`.
 */

const crypto = require("node:crypto");
const { control, call, useSandbox } = require("../../helpers");
const { DISPUTES, adyenAccount, adyenCall, pay, updateMerchant, webhookReceiver } = require("./helpers");

const t = useSandbox({ adyen: { timeScale: 0.001 } });
/** @type {import("./helpers").Merchant} */
let merchant;
/** @type {Awaited<ReturnType<typeof webhookReceiver>>} */
let hook;
const who = () => ({ keys: t.sb.demo.keys, merchant });

beforeAll(async () => {
  merchant = t.sb.demo.adyen;
  hook = await webhookReceiver({ hmacKey: merchant.hmacKey });
  await updateMerchant(t.url, merchant.merchantAccount, { webhookUrl: hook.url });
});
afterAll(async () => {
  expect(hook.problems).toEqual([]);
  await hook.close();
});

const PDF = Buffer.concat([Buffer.from("%PDF-1.4\n% evidence\n"), crypto.randomBytes(2000), Buffer.from("\n%%EOF\n")]);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), crypto.randomBytes(1000), Buffer.from([0xff, 0xd9])]);
const TIFF = Buffer.concat([Buffer.from("II*\0"), crypto.randomBytes(500)]);
const MB = 1024 * 1024;

/**
 * A dispute raised on a fresh payment.
 * @param {Record<string, unknown>} [options] raise fields
 * @param {{ number?: string, manualCapture?: boolean }} [payment]
 */
async function raise(options = {}, payment = {}) {
  const paid = await pay(t.url, who(), { manualCapture: false, ...payment });
  const res = await control(t.url, "/adyen/disputes", { paymentPspReference: paid.body.pspReference, ...options });
  if (res.status !== 201) throw new Error(`raise failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { payment: paid, dispute: res.body };
}

/**
 * @param {string} operation
 * @param {string} disputePspReference
 * @param {Record<string, unknown>} [body]
 */
function disputeApi(operation, disputePspReference, body = {}) {
  return adyenCall(t.url, `${DISPUTES}/${operation}`, { merchant, body: { disputePspReference, merchantAccountCode: merchant.merchantAccount, ...body } });
}

/**
 * @param {string} psp
 * @param {Buffer} bytes
 * @param {string} [contentType]
 * @param {string} [type]
 */
function supply(psp, bytes, contentType = "application/pdf", type = "DefenseMaterial") {
  return disputeApi("supplyDefenseDocument", psp, { defenseDocuments: [{ content: bytes.toString("base64"), contentType, defenseDocumentTypeCode: type }] });
}

/** @param {string} psp */
async function disputeState(psp) {
  return (await control(t.url, `/adyen/disputes/${psp}`)).body;
}

/**
 * @param {string} psp
 * @param {number} count
 */
async function eventsFor(psp, count) {
  const items = await hook.waitFor((all) => all.filter((i) => i.pspReference === psp).length >= count);
  return items.filter((i) => i.pspReference === psp);
}

describe("raising a dispute", () => {
  test("NOTIFICATION_OF_CHARGEBACK then CHARGEBACK, under the dispute's own pspReference", async () => {
    const { payment, dispute } = await raise();
    expect(dispute).toMatchObject({
      pspReference: expect.stringMatching(/^[A-Z0-9]{16}$/),
      paymentPspReference: payment.body.pspReference,
      merchantReference: payment.request.reference,
      amount: { currency: "USD", value: 1000 },
      reasonCode: "10.4",
      schemeCode: "visa",
      status: "Unresponded",
      defendable: true,
      expired: false,
      documents: [],
      defense: null,
    });
    const [noc, chargeback] = await eventsFor(dispute.pspReference, 2);
    expect(noc?.eventCode).toBe("NOTIFICATION_OF_CHARGEBACK");
    expect(chargeback).toMatchObject({
      eventCode: "CHARGEBACK",
      originalReference: payment.body.pspReference,
      merchantReference: payment.request.reference,
      amount: { currency: "USD", value: 1000 },
      success: "true",
      reason: "Other Fraud-Card Absent Environment",
      paymentMethod: "visa",
      additionalData: expect.objectContaining({
        chargebackReasonCode: " 10.4",
        chargebackSchemeCode: "visa",
        defendable: "true",
        disputeStatus: "Unresponded",
        defensePeriodEndsAt: dispute.defensePeriodEndsAt,
      }),
    });
    expect(dispute.defensePeriodEndsAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/);
    expect(Date.parse(dispute.defensePeriodEndsAt) - Date.now()).toBeGreaterThan(13 * 86_400_000);
  });

  test("options: no leading space, no NOTIFICATION_OF_CHARGEBACK, a Mastercard reason, part of the amount", async () => {
    const { dispute } = await raise({ padReasonCode: false, notificationOfChargeback: false, amount: 250 }, { number: "5555555555554444" });
    expect(dispute).toMatchObject({ reasonCode: "4837", schemeCode: "mc", amount: { value: 250 } });
    const [only] = await eventsFor(dispute.pspReference, 1);
    expect(only).toMatchObject({ eventCode: "CHARGEBACK", additionalData: expect.objectContaining({ chargebackReasonCode: "4837" }) });
    expect(dispute.events.map((/** @type {{ eventCode: string }} */ e) => e.eventCode)).toEqual(["CHARGEBACK"]);
  });

  test("refused with the reason: an unknown payment, a refused payment, too much, an unknown reason code", async () => {
    expect((await control(t.url, "/adyen/disputes", { paymentPspReference: "NOPE000000000000" })).status).toBe(404);
    const refused = await pay(t.url, who(), { number: "4000000000000002" });
    expect((await control(t.url, "/adyen/disputes", { paymentPspReference: refused.body.pspReference })).status).toBe(409);
    const paid = await pay(t.url, who(), { manualCapture: false, value: 500 });
    const psp = paid.body.pspReference;
    expect((await control(t.url, "/adyen/disputes", { paymentPspReference: psp, amount: 501 })).body.error).toMatch(/amount/);
    expect((await control(t.url, "/adyen/disputes", { paymentPspReference: psp, reasonCode: "99.9" })).body.error).toMatch(/reason is required/);
    expect((await control(t.url, "/adyen/disputes", { paymentPspReference: psp, reasonCode: "99.9", reason: "Something Else" })).status).toBe(201);
    expect((await control(t.url, "/adyen/disputes", { paymentPspReference: psp, colour: "red" })).body.error).toMatch(/Unknown field: colour/);
    expect((await control(t.url, "/adyen/disputes", { paymentPspReference: psp, defensePeriodEndsAt: "tomorrow" })).body.error).toMatch(/defensePeriodEndsAt/);
  });
});

describe("retrieveApplicableDefenseReasons", () => {
  test("a card-absent fraud dispute offers the spec example's reasons, SupplyDefenseMaterial last with a required DefenseMaterial", async () => {
    const { dispute } = await raise();
    const res = await disputeApi("retrieveApplicableDefenseReasons", dispute.pspReference);
    expect(res.status).toBe(200);
    // DisputeService-v30.json's retrieve-defense-reasons-200 example, exactly.
    expect(res.body).toEqual({
      defenseReasons: [
        {
          defenseDocumentTypes: [
            { available: false, defenseDocumentTypeCode: "TIDorInvoice", requirementLevel: "Optional" },
            { available: false, defenseDocumentTypeCode: "GoodsNotReturned", requirementLevel: "Required" },
          ],
          defenseReasonCode: "GoodsNotReturned",
          satisfied: false,
        },
        {
          defenseDocumentTypes: [
            { available: false, defenseDocumentTypeCode: "TIDorInvoice", requirementLevel: "Optional" },
            { available: false, defenseDocumentTypeCode: "GoodsRepairedOrReplaced", requirementLevel: "Required" },
          ],
          defenseReasonCode: "GoodsRepairedOrReplaced",
          satisfied: false,
        },
        {
          defenseDocumentTypes: [
            { available: false, defenseDocumentTypeCode: "GoodsWereAsDescribed", requirementLevel: "Required" },
            { available: false, defenseDocumentTypeCode: "TIDorInvoice", requirementLevel: "Required" },
          ],
          defenseReasonCode: "GoodsWereAsDescribed",
          satisfied: false,
        },
        {
          defenseDocumentTypes: [
            { available: false, defenseDocumentTypeCode: "TIDorInvoice", requirementLevel: "Optional" },
            { available: false, defenseDocumentTypeCode: "DefenseMaterial", requirementLevel: "Required" },
          ],
          defenseReasonCode: "SupplyDefenseMaterial",
          satisfied: false,
        },
      ],
      disputeServiceResult: { success: true },
    });
  });

  test("Mastercard 4837 and 4853 offer the same reasons", async () => {
    for (const reasonCode of ["4837", "4853"]) {
      const { dispute } = await raise({ reasonCode }, { number: "5555555555554444" });
      const res = await disputeApi("retrieveApplicableDefenseReasons", dispute.pspReference);
      expect(res.body.defenseReasons.map((/** @type {{ defenseReasonCode: string }} */ r) => r.defenseReasonCode)).toEqual([
        "GoodsNotReturned",
        "GoodsRepairedOrReplaced",
        "GoodsWereAsDescribed",
        "SupplyDefenseMaterial",
      ]);
    }
  });
});

describe("defense documents", () => {
  test("a supplied PDF is available, satisfies its reason, and is shown and downloadable at the control API", async () => {
    const { dispute } = await raise();
    const res = await supply(dispute.pspReference, PDF);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ disputeServiceResult: { success: true } });
    const reasons = (await disputeApi("retrieveApplicableDefenseReasons", dispute.pspReference)).body.defenseReasons;
    expect(reasons[3]).toMatchObject({ defenseReasonCode: "SupplyDefenseMaterial", satisfied: true, defenseDocumentTypes: [{ available: false }, { available: true, defenseDocumentTypeCode: "DefenseMaterial" }] });
    expect(reasons.filter((/** @type {{ satisfied: boolean }} */ r) => r.satisfied)).toHaveLength(1);
    const state = await disputeState(dispute.pspReference);
    expect(state.documents).toEqual([
      {
        name: "DefenseMaterial.pdf",
        defenseDocumentTypeCode: "DefenseMaterial",
        contentType: "application/pdf",
        size: PDF.length,
        sha256: crypto.createHash("sha256").update(PDF).digest("hex"),
        suppliedAt: expect.any(String),
        url: `/__sandbox/adyen/disputes/${dispute.pspReference}/documents/DefenseMaterial`,
      },
    ]);
    const download = await call(t.url, state.documents[0].url);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("application/pdf");
    expect(download.bytes.equals(PDF)).toBe(true);
    expect((await call(t.url, `/__sandbox/adyen/disputes/${dispute.pspReference}/documents/TIDorInvoice`)).status).toBe(404);
  });

  test("JPEG and TIFF up to 10 MB are taken; a PDF over 2 MB, another type, or content that is not what it says is not", async () => {
    const { dispute } = await raise();
    const psp = dispute.pspReference;
    expect((await supply(psp, JPEG, "image/jpeg", "TIDorInvoice")).body.disputeServiceResult).toEqual({ success: true });
    expect((await supply(psp, TIFF, "image/tiff", "TIDorInvoice")).body.disputeServiceResult).toEqual({ success: true });
    const bigJpeg = Buffer.concat([JPEG, Buffer.alloc(3 * MB)]);
    expect((await supply(psp, bigJpeg, "image/jpeg")).body.disputeServiceResult).toEqual({ success: true });
    /** @param {{ body: Record<string, any> }} res */
    const failure = (res) => res.body.disputeServiceResult;
    const bigPdf = Buffer.concat([PDF, Buffer.alloc(2 * MB)]);
    expect(failure(await supply(psp, bigPdf))).toEqual({ success: false, errorMessage: expect.stringMatching(/size exceeds the limit of 2 MB/) });
    expect(failure(await supply(psp, Buffer.from("plain text"), "text/plain"))).toEqual({ success: false, errorMessage: expect.stringMatching(/content type/) });
    expect(failure(await supply(psp, JPEG, "application/pdf"))).toEqual({ success: false, errorMessage: expect.stringMatching(/not a application\/pdf file/) });
    expect(failure(await supply(psp, PDF, "application/pdf", "Receipt"))).toEqual({ success: false, errorMessage: expect.stringMatching(/Invalid defense document type code/) });
    const notBase64 = await disputeApi("supplyDefenseDocument", psp, { defenseDocuments: [{ content: "not base64!", contentType: "application/pdf", defenseDocumentTypeCode: "DefenseMaterial" }] });
    expect(failure(notBase64)).toEqual({ success: false, errorMessage: "Invalid document content: not base64." });
    expect(failure(await disputeApi("supplyDefenseDocument", psp, { defenseDocuments: [] }))).toEqual({ success: false, errorMessage: "No defense documents supplied." });
    // The big JPEG is the DefenseMaterial on file: nothing refused replaced it.
    expect((await disputeState(psp)).documents.find((/** @type {{ defenseDocumentTypeCode: string }} */ d) => d.defenseDocumentTypeCode === "DefenseMaterial").contentType).toBe("image/jpeg");
  });

  test("a request with one bad document stores none of them", async () => {
    const { dispute } = await raise();
    const res = await disputeApi("supplyDefenseDocument", dispute.pspReference, {
      defenseDocuments: [
        { content: PDF.toString("base64"), contentType: "application/pdf", defenseDocumentTypeCode: "DefenseMaterial" },
        { content: PDF.toString("base64"), contentType: "application/msword", defenseDocumentTypeCode: "TIDorInvoice" },
      ],
    });
    expect(res.body.disputeServiceResult.success).toBe(false);
    expect((await disputeState(dispute.pspReference)).documents).toEqual([]);
  });

  test("deleteDisputeDefenseDocument takes defenseDocumentType; a second delete finds nothing", async () => {
    const { dispute } = await raise();
    await supply(dispute.pspReference, PDF);
    const wrongField = await disputeApi("deleteDisputeDefenseDocument", dispute.pspReference, { defenseDocumentTypeCode: "DefenseMaterial" });
    expect(wrongField.status).toBe(400);
    expect(wrongField.body).toMatchObject({ status: 400, errorCode: "702" });
    const deleted = await disputeApi("deleteDisputeDefenseDocument", dispute.pspReference, { defenseDocumentType: "DefenseMaterial" });
    expect(deleted.body).toEqual({ disputeServiceResult: { success: true } });
    expect((await disputeState(dispute.pspReference)).documents).toEqual([]);
    const again = await disputeApi("deleteDisputeDefenseDocument", dispute.pspReference, { defenseDocumentType: "DefenseMaterial" });
    expect(again.body).toEqual({ disputeServiceResult: { success: false, errorMessage: "Defense document not found." } });
  });
});

describe("defendDispute and acceptDispute", () => {
  test("defending needs the reason's required documents; then the defense is recorded and the dispute closes to changes", async () => {
    const { dispute } = await raise();
    const psp = dispute.pspReference;
    const early = await disputeApi("defendDispute", psp, { defenseReasonCode: "SupplyDefenseMaterial" });
    expect(early.status).toBe(200);
    expect(early.body).toEqual({ disputeServiceResult: { success: false, errorMessage: "Required defense documents are missing: DefenseMaterial." } });
    const unknown = await disputeApi("defendDispute", psp, { defenseReasonCode: "CompellingEvidence" });
    expect(unknown.body.disputeServiceResult).toEqual({ success: false, errorMessage: "Defense reason code is not applicable to this dispute." });
    const other = await disputeApi("defendDispute", psp, { defenseReasonCode: "GoodsWereAsDescribed" });
    expect(other.body.disputeServiceResult).toEqual({ success: false, errorMessage: "Required defense documents are missing: GoodsWereAsDescribed, TIDorInvoice." });
    await supply(psp, PDF);
    const defended = await disputeApi("defendDispute", psp, { defenseReasonCode: "SupplyDefenseMaterial" });
    expect(defended.body).toEqual({ disputeServiceResult: { success: true } });
    expect(await disputeState(psp)).toMatchObject({ status: "Responded", defense: { defenseReasonCode: "SupplyDefenseMaterial", defendedAt: expect.any(String) } });
    const closed = { success: false, errorMessage: "Dispute has already been defended." };
    expect((await disputeApi("defendDispute", psp, { defenseReasonCode: "SupplyDefenseMaterial" })).body.disputeServiceResult).toEqual(closed);
    expect((await supply(psp, PDF, "application/pdf", "TIDorInvoice")).body.disputeServiceResult).toEqual(closed);
    expect((await disputeApi("deleteDisputeDefenseDocument", psp, { defenseDocumentType: "DefenseMaterial" })).body.disputeServiceResult).toEqual(closed);
    expect((await disputeApi("acceptDispute", psp)).body.disputeServiceResult).toEqual(closed);
  });

  test("an expired dispute cannot be defended; a dispute that is not defendable offers no reasons", async () => {
    const { dispute: expired } = await raise({ defensePeriodEndsAt: "2020-01-01T00:00:00+01:00" });
    expect(expired.expired).toBe(true);
    const [chargeback] = (await eventsFor(expired.pspReference, 2)).filter((i) => i.eventCode === "CHARGEBACK");
    expect(chargeback?.additionalData.defendable).toBe("false");
    expect((await supply(expired.pspReference, PDF)).body.disputeServiceResult).toEqual({ success: false, errorMessage: "Dispute expired." });
    expect((await disputeApi("defendDispute", expired.pspReference, { defenseReasonCode: "SupplyDefenseMaterial" })).body.disputeServiceResult).toEqual({
      success: false,
      errorMessage: "Dispute expired.",
    });
    const { dispute: fixed } = await raise({ defendable: false });
    const notDefendable = { success: false, errorMessage: "Dispute is not defendable." };
    expect((await disputeApi("retrieveApplicableDefenseReasons", fixed.pspReference)).body).toEqual({ disputeServiceResult: notDefendable });
    expect((await disputeApi("defendDispute", fixed.pspReference, { defenseReasonCode: "SupplyDefenseMaterial" })).body.disputeServiceResult).toEqual(notDefendable);
  });

  test("accepting closes the dispute to a defense", async () => {
    const { dispute } = await raise();
    expect((await disputeApi("acceptDispute", dispute.pspReference)).body).toEqual({ disputeServiceResult: { success: true } });
    expect(await disputeState(dispute.pspReference)).toMatchObject({ status: "Accepted", acceptedAt: expect.any(String) });
    expect((await disputeApi("acceptDispute", dispute.pspReference)).body.disputeServiceResult).toEqual({ success: false, errorMessage: "Dispute has already been accepted." });
    expect((await supply(dispute.pspReference, PDF)).body.disputeServiceResult.success).toBe(false);
  });
});

describe("errors of the Disputes API", () => {
  test("an unknown dispute, or another merchant's, is a business failure: 200 with success false", async () => {
    const expected = { disputeServiceResult: { success: false, errorMessage: "Error retrieving dispute." } };
    expect((await disputeApi("acceptDispute", "DZ4DPSHB4WD2WN82")).body).toEqual(expected);
    const account = await adyenAccount(t.url);
    const theirs = await pay(t.url, { keys: account.keys, merchant: account.adyen }, { manualCapture: false });
    const raised = await control(t.url, "/adyen/disputes", { paymentPspReference: theirs.body.pspReference });
    expect((await disputeApi("acceptDispute", raised.body.pspReference)).body).toEqual(expected);
  });

  test("401 without credentials, 403/901 for another merchant account, 422 for a missing field, 400/702 for unreadable JSON", async () => {
    const { dispute } = await raise();
    const url = `${DISPUTES}/acceptDispute`;
    const body = { disputePspReference: dispute.pspReference, merchantAccountCode: merchant.merchantAccount };
    expect((await adyenCall(t.url, url, { body })).body).toEqual({ status: 401, errorCode: "000", message: "HTTP Status Response - Unauthorized", errorType: "security" });
    expect((await adyenCall(t.url, url, { merchant, basic: true, body })).status).toBe(200);
    const forbidden = await adyenCall(t.url, url, { merchant, body: { ...body, merchantAccountCode: "SomebodyElseECOM" } });
    expect(forbidden.body).toMatchObject({ status: 403, errorCode: "901", message: "Invalid Merchant Account" });
    const missing = await adyenCall(t.url, url, { merchant, body: { merchantAccountCode: merchant.merchantAccount } });
    expect(missing.body).toMatchObject({ status: 422, errorCode: "000", message: "Required field 'disputePspReference' is not provided." });
    expect((await adyenCall(t.url, url, { merchant, raw: "{" })).body).toMatchObject({ status: 400, errorCode: "702" });
  });
});

describe("the scheme's decision", () => {
  test("won: CHARGEBACK_REVERSED keyed by the dispute's pspReference; a later pre-arbitration can still be lost", async () => {
    const { dispute } = await raise();
    await supply(dispute.pspReference, PDF);
    await disputeApi("defendDispute", dispute.pspReference, { defenseReasonCode: "SupplyDefenseMaterial" });
    const won = await control(t.url, `/adyen/disputes/${dispute.pspReference}/decide`, { outcome: "won" });
    expect(won.status).toBe(200);
    expect(won.body.status).toBe("Won");
    const reversed = (await eventsFor(dispute.pspReference, 3)).find((i) => i.eventCode === "CHARGEBACK_REVERSED");
    expect(reversed).toMatchObject({ success: "true", amount: { value: 1000 }, additionalData: expect.objectContaining({ disputeStatus: "Won" }) });
    // As in the spec's examples: the receiver keys disputes by pspReference.
    expect(reversed).not.toHaveProperty("originalReference");
    expect((await control(t.url, `/adyen/disputes/${dispute.pspReference}/decide`, { outcome: "CHARGEBACK_REVERSED" })).status).toBe(409);
    const lost = await control(t.url, `/adyen/disputes/${dispute.pspReference}/decide`, { outcome: "PREARBITRATION_LOST", originalReference: true });
    expect(lost.body.status).toBe("Lost");
    const last = (await eventsFor(dispute.pspReference, 4)).at(-1);
    expect(last).toMatchObject({ eventCode: "PREARBITRATION_LOST", originalReference: dispute.paymentPspReference, additionalData: expect.objectContaining({ disputeStatus: "Lost" }) });
    expect((await control(t.url, `/adyen/disputes/${dispute.pspReference}/decide`, { outcome: "PREARBITRATION_WON" })).status).toBe(409);
  });

  test("an accepted dispute takes no decision; an unknown outcome is refused", async () => {
    const { dispute } = await raise();
    expect((await control(t.url, `/adyen/disputes/${dispute.pspReference}/decide`, { outcome: "draw" })).status).toBe(400);
    await disputeApi("acceptDispute", dispute.pspReference);
    expect((await control(t.url, `/adyen/disputes/${dispute.pspReference}/decide`, { outcome: "won" })).status).toBe(409);
    expect((await control(t.url, "/adyen/disputes/NOPE/decide", { outcome: "won" })).status).toBe(404);
  });

  test("any other dispute event can be sent: SECOND_CHARGEBACK, REQUEST_FOR_INFORMATION, codes outside the enum", async () => {
    const { dispute } = await raise();
    await control(t.url, `/adyen/disputes/${dispute.pspReference}/notify`, { eventCode: "REQUEST_FOR_INFORMATION" });
    await control(t.url, `/adyen/disputes/${dispute.pspReference}/notify`, { eventCode: "SECOND_CHARGEBACK", disputeStatus: "Pending", originalReference: false });
    const events = await eventsFor(dispute.pspReference, 4);
    expect(events[2]).toMatchObject({ eventCode: "REQUEST_FOR_INFORMATION", additionalData: expect.objectContaining({ rfiReasonCode: "10.4", rfiSchemeCode: "visa" }) });
    expect(events[3]).toMatchObject({ eventCode: "SECOND_CHARGEBACK", additionalData: expect.objectContaining({ disputeStatus: "Pending" }) });
    expect(events[3]).not.toHaveProperty("originalReference");
    // A webhook Adyen sends whose code is outside the spec's own eventCode enum: receivers must acknowledge it.
    await control(t.url, `/adyen/disputes/${dispute.pspReference}/notify`, { eventCode: "PREARBITRATION_DECLINED" });
    expect((await eventsFor(dispute.pspReference, 5))[4]?.eventCode).toBe("PREARBITRATION_DECLINED");
    const unknown = hook.problems.filter((p) => p.startsWith("PREARBITRATION_DECLINED is not"));
    expect(unknown).toHaveLength(1);
    hook.problems.splice(0, hook.problems.length, ...hook.problems.filter((p) => !unknown.includes(p)));
    expect((await control(t.url, `/adyen/disputes/${dispute.pspReference}/notify`, { eventCode: "bad code" })).status).toBe(400);
    expect((await control(t.url, `/adyen/disputes/${dispute.pspReference}/notify`, { eventCode: "X", disputeStatus: "Maybe" })).status).toBe(400);
  });

  test("the list filters by payment", async () => {
    const { payment, dispute } = await raise();
    const listed = (await control(t.url, `/adyen/disputes?paymentPspReference=${payment.body.pspReference}`)).body;
    expect(listed.items.map((/** @type {{ pspReference: string }} */ d) => d.pspReference)).toEqual([dispute.pspReference]);
    expect((await control(t.url, `/adyen/payments/${payment.body.pspReference}`)).body.disputes).toEqual([dispute.pspReference]);
  });
});
