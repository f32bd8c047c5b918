import {
  ActivityRefused,
  DOCUMENT_CODES,
  MAX_DOCUMENTS_PER_CASE,
  UPDATE_ACTIVITIES,
  documentType,
  isDate,
  type ChargebackActivity,
  type ChargebackCase,
  type DocumentOutcome,
  type DocumentType,
  type UpdateActivity,
} from "./chargebacks";
import { HttpError, mediaType, sendBody, type Headers } from "../../http";
import type { Context } from "../../server";
import { randomDigits } from "../../util";
import { isXmlNode, renderXml, xmlParser, xmlProblem, type XmlNode } from "./xml";

/**
 * The Worldpay eComm Chargeback API (release 2.x) over HTTP: retrieval and update under
 * `/chargebacks`, evidence documents under `/services/chargebacks`, XML in the
 * `http://www.vantivcnp.com/chargebacks` namespace, HTTP Basic authentication with the
 * merchant's cnpAPI user and password.
 */

export const CHARGEBACK_CONTENT_TYPE = "application/com.vantivcnp.services-v2+xml";
export const CHARGEBACK_XMLNS = "http://www.vantivcnp.com/chargebacks";

/** Worldpay's `<error>` texts, as its SDKs' tests show them. */
const NOT_FOUND = "Could not find requested object.";
const UNAUTHORIZED = "You are not authorized to access this resource. Please check your credentials.";
const BAD_REQUEST = "Bad Request. Error in request. Poorly formatted header/xml or cannot perform activity.";

const DOCUMENT_ID = /^[A-Za-z0-9._\-() ]{1,100}$/;

function xmlBody(root: string, body: XmlNode): string {
  return renderXml(root, { "@_xmlns": CHARGEBACK_XMLNS, ...body });
}

function sendXml(ctx: Context, root: string, body: XmlNode): void {
  sendBody(ctx.res, 200, xmlBody(root, body), CHARGEBACK_CONTENT_TYPE, { "Cache-Control": "no-store" });
}

/** `<errorResponse><errors><error>…</error></errors></errorResponse>` with an HTTP error status. */
function errorResponse(status: number, errors: string[], headers: Headers = {}): HttpError {
  return new HttpError(status, {
    raw: { body: xmlBody("errorResponse", { errors: { error: errors } }), contentType: CHARGEBACK_CONTENT_TYPE },
    headers,
  });
}

function badRequest(detail: string): HttpError {
  return errorResponse(400, [BAD_REQUEST, detail]);
}

/** The merchants the request's Basic credentials open; 401 when they open none. */
function authenticate(ctx: Context): string[] {
  const header = ctx.req.headers.authorization ?? "";
  const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header.trim());
  const decoded = match?.[1] ? Buffer.from(match[1], "base64").toString("utf8") : "";
  const colon = decoded.indexOf(":");
  const merchants = colon > 0 ? ctx.store.processor.merchantsFor(decoded.slice(0, colon), decoded.slice(colon + 1)) : [];
  if (merchants.length === 0) {
    throw errorResponse(401, [UNAUTHORIZED], { "WWW-Authenticate": 'Basic realm="Chargeback API", charset="UTF-8"' });
  }
  return merchants;
}

/** A case of one of these merchants; another merchant's case does not exist for them. */
function visibleCase(ctx: Context, merchants: string[], caseId: string): ChargebackCase | undefined {
  const kase = /^\d{1,19}$/.test(caseId) ? ctx.services.chargebacks.get(caseId) : undefined;
  return kase && merchants.includes(kase.merchantId) ? kase : undefined;
}

function activityNode(a: ChargebackActivity): XmlNode {
  const node: XmlNode = { activityDate: a.activityDate, activityType: a.activityType, fromQueue: a.fromQueue, toQueue: a.toQueue };
  if (a.settlementAmount !== undefined) node.settlementAmount = String(a.settlementAmount);
  if (a.settlementCurrencyType !== undefined) node.settlementCurrencyType = a.settlementCurrencyType;
  if (a.notes !== undefined) node.notes = a.notes;
  if (a.assignedTo !== undefined) node.assignedTo = a.assignedTo;
  return node;
}

/** `<chargebackCase>`, elements in the schema's order, absent ones left out, newest activity first. */
export function caseNode(kase: ChargebackCase): XmlNode {
  const node: XmlNode = {};
  const put = (name: string, value: string | number | null) => {
    if (value !== null && value !== "") node[name] = String(value);
  };
  put("caseId", kase.caseId);
  put("merchantId", kase.merchantId);
  put("dayIssuedByBank", kase.dayIssuedByBank);
  put("dateReceivedByVantivCnp", kase.dateReceivedByVantivCnp);
  put("vantivCnpTxnId", kase.vantivCnpTxnId);
  put("cycle", kase.cycle);
  put("orderId", kase.orderId);
  put("cardNumberLast4", kase.cardNumberLast4);
  put("cardType", kase.cardType);
  put("chargebackAmount", kase.chargebackAmount);
  put("chargebackCurrencyType", kase.chargebackCurrencyType);
  put("originalTxnDay", kase.originalTxnDay);
  put("chargebackType", kase.chargebackType);
  put("representedAmount", kase.representedAmount);
  put("representedCurrencyType", kase.representedCurrencyType);
  put("reasonCode", kase.reasonCode);
  put("reasonCodeDescription", kase.reasonCodeDescription);
  put("currentQueue", kase.currentQueue);
  put("acquirerReferenceNumber", kase.acquirerReferenceNumber);
  put("chargebackReferenceNumber", kase.chargebackReferenceNumber);
  put("merchantTxnId", kase.merchantTxnId);
  put("bin", kase.bin);
  put("token", kase.token);
  put("customerId", kase.customerId);
  put("paymentAmount", kase.paymentAmount);
  put("replyByDay", kase.replyByDay);
  node.activity = [...kase.activities].reverse().map(activityNode);
  return node;
}

function sendCases(ctx: Context, cases: ChargebackCase[]): void {
  const body: XmlNode = { transactionId: randomDigits(16) };
  if (cases.length > 0) body.chargebackCase = cases.map(caseNode);
  sendXml(ctx, "chargebackRetrievalResponse", body);
}

/** The searches the API offers, by the query parameters that make each one. */
const SEARCHES: readonly (readonly string[])[] = [
  ["date"],
  ["date", "financialOnly"],
  ["actionable"],
  ["token"],
  ["cardNumber", "expirationDate"],
  ["arn"],
];

function booleanParam(value: string, name: string): boolean {
  if (value !== "true" && value !== "false") throw badRequest(`${name} must be true or false`);
  return value === "true";
}

/** `GET chargebacks?date=…|actionable=…|token=…|cardNumber=…&expirationDate=…|arn=…` */
export function listChargebacks(ctx: Context): void {
  const merchants = authenticate(ctx);
  const q = ctx.url.searchParams;
  const names = [...new Set(q.keys())].sort();
  for (const name of names) if (q.getAll(name).length > 1) throw badRequest(`${name} is given more than once`);
  const search = SEARCHES.find((s) => s.length === names.length && [...s].sort().every((n, i) => n === names[i]));
  if (!search) {
    throw badRequest("search by date (with financialOnly), actionable, token, cardNumber with expirationDate, or arn");
  }
  const param = (name: string) => q.get(name) ?? "";
  let match: (kase: ChargebackCase) => boolean;
  switch (search[0]) {
    case "date": {
      const date = param("date");
      if (!isDate(date)) throw badRequest("date must be a date, YYYY-MM-DD");
      const financialOnly = q.has("financialOnly") && booleanParam(param("financialOnly"), "financialOnly");
      match = (kase) => kase.activities.some((a) => a.activityDate === date && (!financialOnly || a.settlementAmount !== undefined));
      break;
    }
    case "actionable": {
      const actionable = booleanParam(param("actionable"), "actionable");
      match = (kase) => (kase.currentQueue === "Merchant") === actionable;
      break;
    }
    case "token": {
      const token = param("token");
      if (token === "") throw badRequest("token must not be empty");
      match = (kase) => kase.token === token;
      break;
    }
    case "cardNumber": {
      const cardNumber = param("cardNumber");
      const expirationDate = param("expirationDate");
      if (!/^\d{13,19}$/.test(cardNumber)) throw badRequest("cardNumber must be 13 to 19 digits");
      if (!/^(0[1-9]|1[0-2])\d\d$/.test(expirationDate)) throw badRequest("expirationDate must be MMYY");
      match = (kase) => kase.cardNumber === cardNumber && (kase.expDate === null || kase.expDate === expirationDate);
      break;
    }
    default: {
      const arn = param("arn");
      if (arn === "") throw badRequest("arn must not be empty");
      match = (kase) => kase.acquirerReferenceNumber === arn;
    }
  }
  sendCases(
    ctx,
    ctx.services.chargebacks.all().filter((kase) => merchants.includes(kase.merchantId) && match(kase)),
  );
}

/** `GET chargebacks/<caseId>` */
export function getChargeback(ctx: Context): void {
  const merchants = authenticate(ctx);
  const kase = visibleCase(ctx, merchants, ctx.params[0] ?? "");
  if (!kase) throw errorResponse(404, [NOT_FOUND]);
  sendCases(ctx, [kase]);
}

/** One text child of the update request; refuses repeated or structured elements. */
function field(node: XmlNode, name: string): string | undefined {
  const value = node[name];
  if (value === undefined) return undefined;
  if (typeof value === "string") return value;
  throw badRequest(`<${name}> must occur once, as text`);
}

/** `PUT chargebacks/<caseId>` with `<chargebackUpdateRequest>` */
export function updateChargeback(ctx: Context): void {
  const merchants = authenticate(ctx);
  const kase = visibleCase(ctx, merchants, ctx.params[0] ?? "");
  if (!kase) throw errorResponse(404, [NOT_FOUND]);

  const xml = ctx.body.toString("utf8");
  const problem = xmlProblem(xml);
  if (problem) throw badRequest(problem);
  const doc: unknown = xmlParser.parse(xml);
  const root = isXmlNode(doc) && Object.keys(doc).length === 1 ? doc.chargebackUpdateRequest : undefined;
  if (!isXmlNode(root)) throw badRequest("the root element must be <chargebackUpdateRequest>");
  const unknown = Object.keys(root).filter((k) => !k.startsWith("@_") && !["activityType", "assignedTo", "note", "representedAmount"].includes(k));
  if (unknown.length > 0) throw badRequest(`<${unknown[0]}> is not an element of <chargebackUpdateRequest>`);

  const activityType = field(root, "activityType");
  if (!activityType || !(UPDATE_ACTIVITIES as readonly string[]).includes(activityType)) {
    throw badRequest(`<activityType> must be one of ${UPDATE_ACTIVITIES.join(", ")}`);
  }
  const note = field(root, "note");
  if (note !== undefined && (note.length < 1 || note.length > 4000)) throw badRequest("<note> must be 1 to 4000 characters");
  const assignedTo = field(root, "assignedTo");
  if (assignedTo !== undefined && (assignedTo.length < 1 || assignedTo.length > 25)) {
    throw badRequest("<assignedTo> must be 1 to 25 characters");
  }
  const rawAmount = field(root, "representedAmount");
  if (rawAmount !== undefined && !/^\d{1,18}$/.test(rawAmount)) throw badRequest("<representedAmount> must be a whole number of minor units");

  try {
    ctx.services.chargebacks.update(kase, {
      activityType: activityType as UpdateActivity,
      note,
      assignedTo,
      representedAmount: rawAmount === undefined ? undefined : Number(rawAmount),
    });
  } catch (error) {
    if (error instanceof ActivityRefused) throw errorResponse(400, [error.message]);
    throw error;
  }
  ctx.log("info", `chargebacks: case ${kase.caseId} ${activityType} -> queue ${kase.currentQueue}`);
  sendXml(ctx, "chargebackUpdateResponse", { transactionId: randomDigits(16) });
}

// ---- documents ----------------------------------------------------------------------

/** `<chargebackDocumentUploadResponse>`: every document answer, failures included, is HTTP 200. */
function sendDocumentResponse(ctx: Context, merchantId: string, caseId: string, documentIds: string[], outcome: DocumentOutcome): void {
  const body: XmlNode = { merchantId, caseId };
  if (documentIds.length > 0) body.documentId = documentIds;
  body.responseCode = outcome[0];
  body.responseMessage = outcome[1];
  sendXml(ctx, "chargebackDocumentUploadResponse", body);
}

interface DocumentRequest {
  merchantId: string;
  caseId: string;
  kase: ChargebackCase | undefined;
  documentId: string;
}

function documentRequest(ctx: Context, withDocumentId: boolean): DocumentRequest {
  const merchants = authenticate(ctx);
  const caseId = ctx.params[0] ?? "";
  const documentId = withDocumentId ? (ctx.params[1] ?? "") : "";
  if (withDocumentId && !DOCUMENT_ID.test(documentId)) {
    throw badRequest("the document id must be 1 to 100 letters, digits, spaces or . _ - ( )");
  }
  const kase = visibleCase(ctx, merchants, caseId);
  return { merchantId: kase?.merchantId ?? merchants[0] ?? "", caseId, kase, documentId };
}

/** 012 names the limit, as Worldpay's message does ("Filesize exceeds limit of 2MB"). */
function sizeLimitText(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return Number.isInteger(mb) ? `${mb}MB` : `${bytes} bytes`;
}

/** 012 when the file is over the sandbox's limit, else null. */
function tooLarge(ctx: Context): DocumentOutcome | null {
  const limit = ctx.store.limits.maxDocumentBytes;
  return ctx.body.length > limit ? [DOCUMENT_CODES.tooLarge[0], `${DOCUMENT_CODES.tooLarge[1]} of ${sizeLimitText(limit)}`] : null;
}

/** The file's format: PDF or a common image, agreeing with the declared media type; null for 013. */
function fileType(ctx: Context): DocumentType | null {
  return documentType(ctx.body, mediaType(ctx.req));
}

/** `POST services/chargebacks/upload/<caseId>/<documentId>`, the file as the body */
export function uploadDocument(ctx: Context): void {
  const r = documentRequest(ctx, true);
  const answer = (outcome: DocumentOutcome) => sendDocumentResponse(ctx, r.merchantId, r.caseId, [r.documentId], outcome);
  if (!r.kase) return answer(DOCUMENT_CODES.caseNotFound);
  // In the order Worldpay's certification tests meet them: 005 before 012 before 008.
  const refusal = ctx.services.chargebacks.documentRefusal(r.kase);
  if (refusal) return answer(refusal);
  if (r.kase.documents.has(r.documentId)) return answer(DOCUMENT_CODES.alreadyExists);
  const oversize = tooLarge(ctx);
  if (oversize) return answer(oversize);
  if (r.kase.documents.size >= MAX_DOCUMENTS_PER_CASE) return answer(DOCUMENT_CODES.maxDocuments);
  const type = fileType(ctx);
  if (!type) return answer(DOCUMENT_CODES.invalidContent);
  r.kase.documents.set(r.documentId, {
    documentId: r.documentId,
    contentType: type,
    bytes: Buffer.from(ctx.body),
    uploadedAt: new Date().toISOString(),
    replacedAt: null,
  });
  ctx.log("info", `chargebacks: case ${r.caseId} document ${r.documentId} uploaded (${ctx.body.length} bytes, ${type})`);
  answer(DOCUMENT_CODES.success);
}

/** `PUT services/chargebacks/replace/<caseId>/<documentId>` */
export function replaceDocument(ctx: Context): void {
  const r = documentRequest(ctx, true);
  const answer = (outcome: DocumentOutcome) => sendDocumentResponse(ctx, r.merchantId, r.caseId, [r.documentId], outcome);
  if (!r.kase) return answer(DOCUMENT_CODES.caseNotFound);
  const refusal = ctx.services.chargebacks.documentRefusal(r.kase);
  if (refusal) return answer(refusal);
  const existing = r.kase.documents.get(r.documentId);
  if (!existing) return answer(DOCUMENT_CODES.documentNotFound);
  const oversize = tooLarge(ctx);
  if (oversize) return answer(oversize);
  const type = fileType(ctx);
  if (!type) return answer(DOCUMENT_CODES.invalidContent);
  existing.bytes = Buffer.from(ctx.body);
  existing.contentType = type;
  existing.replacedAt = new Date().toISOString();
  answer(DOCUMENT_CODES.success);
}

/** `DELETE services/chargebacks/delete/<caseId>/<documentId>` */
export function deleteDocument(ctx: Context): void {
  const r = documentRequest(ctx, true);
  const answer = (outcome: DocumentOutcome) => sendDocumentResponse(ctx, r.merchantId, r.caseId, [r.documentId], outcome);
  if (!r.kase) return answer(DOCUMENT_CODES.caseNotFound);
  const refusal = ctx.services.chargebacks.documentRefusal(r.kase);
  if (refusal) return answer(refusal);
  if (!r.kase.documents.delete(r.documentId)) return answer(DOCUMENT_CODES.documentNotFound);
  answer(DOCUMENT_CODES.success);
}

/** `GET services/chargebacks/retrieve/<caseId>/<documentId>`: the file itself, or an XML refusal. */
export function retrieveDocument(ctx: Context): void {
  const r = documentRequest(ctx, true);
  const answer = (outcome: DocumentOutcome) => sendDocumentResponse(ctx, r.merchantId, r.caseId, [r.documentId], outcome);
  if (!r.kase) return answer(DOCUMENT_CODES.caseNotFound);
  const document = r.kase.documents.get(r.documentId);
  if (!document) return answer(DOCUMENT_CODES.documentNotFound);
  sendBody(ctx.res, 200, document.bytes, document.contentType, {
    "Content-Disposition": `attachment; filename="${document.documentId}"`,
    "Cache-Control": "no-store",
  });
}

/** `GET services/chargebacks/list/<caseId>` */
export function listDocuments(ctx: Context): void {
  const r = documentRequest(ctx, false);
  if (!r.kase) return sendDocumentResponse(ctx, r.merchantId, r.caseId, [], DOCUMENT_CODES.caseNotFound);
  sendDocumentResponse(ctx, r.merchantId, r.caseId, [...r.kase.documents.keys()], DOCUMENT_CODES.success);
}
