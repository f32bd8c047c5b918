import { XMLBuilder, XMLParser } from "fast-xml-parser"
import { MAX_XML_TEXT_RUN } from "../../lib/xml-text-run"
import { CnpParseError } from "./errors"
import { asRecord, parseWorldpayXml, XmlRefusal } from "./hardened-xml"
import type { CnpTransactionType } from "./response-codes"

/**
 * cnpAPI online XML: one `<cnpOnlineRequest>` envelope with the merchant's
 * credentials and exactly one transaction element; the answer is a
 * `<cnpOnlineResponse>` whose `response` attribute says whether the envelope
 * was accepted ("0") and whose single child carries the transaction's own
 * `<response>` code.
 */

export const CNP_NAMESPACE = "http://www.vantivcnp.com/schema"

export type CnpCredentials = {
  merchantId: string
  user: string
  password: string
}

/** Transaction attributes common to every cnpAPI transaction element. */
export type CnpTransactionAttributes = {
  /** Merchant's transaction id (max 25), the duplicate-detection key. */
  id: string
  /** Required by the schema on every transaction. */
  reportGroup: string
  customerId?: string
}

/** The transaction element's children, in the order the cnpAPI schema requires. */
export type CnpTransaction =
  | {
      type: "authorization" | "sale"
      attributes: CnpTransactionAttributes
      orderId: string
      amount: number
      orderSource: "ecommerce"
      token: string
    }
  | {
      type: "capture"
      attributes: CnpTransactionAttributes & { partial?: boolean }
      cnpTxnId: string
      amount?: number
    }
  | {
      type: "credit" | "authReversal"
      attributes: CnpTransactionAttributes
      cnpTxnId: string
      amount?: number
    }
  | {
      type: "void"
      attributes: CnpTransactionAttributes
      cnpTxnId: string
    }
  | {
      /** Looks up earlier transactions by the `id` they were sent with. */
      type: "queryTransaction"
      attributes: CnpTransactionAttributes
      origId: string
      /** cnpAPI's code of the original's type: A authorization, S sale, AR authReversal, V void. */
      origActionType: CnpActionType
    }

/** cnpAPI's `origActionType` codes of the transaction types this gateway looks up. */
export type CnpActionType = "A" | "S" | "AR" | "V"

/** A `<queryTransactionResponse>`: the original answers found under an id (at most ten). */
export type CnpQueryResponse = {
  /** "150" found, "151" not found, "152" found but its answer not available yet (cnpAPI's query codes). */
  response: string
  message: string
  results: CnpTransactionResponse[]
}

/** What the gateway needs from a `<…Response>` element. */
export type CnpTransactionResponse = {
  type: CnpTransactionType
  id?: string
  duplicate: boolean
  cnpTxnId?: string
  orderId?: string
  response: string
  message: string
  authCode?: string
  approvedAmount?: number
  /** cnpAPI `accountInformation` / `tokenResponse` details, when the merchant's profile returns them. */
  card?: { type?: string; last4?: string }
}

export type CnpEnvelopeResponse = {
  /** "0" accepted; anything else refused as a whole (schema, authentication). */
  response: string
  message: string
  transaction?: CnpTransactionResponse
  query?: CnpQueryResponse
}

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  suppressEmptyNode: true,
  // Otherwise an attribute whose value is "true" (capture's partial) is
  // written bare (`partial`), which is not well-formed XML.
  suppressBooleanAttributes: false,
  // Escapes &, <, >, " and ' in text and attribute values: credentials are
  // arbitrary strings and must not be able to change the document.
  processEntities: true,
})

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  // Codes ("000"), ids (18+ digits) and amounts stay strings: numbers would
  // drop leading zeros and lose precision.
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  removeNSPrefix: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  processEntities: true,
  htmlEntities: false,
  // Lenient about a bare `duplicate` attribute (not well-formed, but what an
  // XML builder with boolean-attribute suppression writes); it reads as true.
  allowBooleanAttributes: true,
})

/** Builds the request document for one transaction. */
export function buildCnpRequest(
  credentials: CnpCredentials,
  version: string,
  transaction: CnpTransaction
): string {
  const { attributes } = transaction
  const element: Record<string, unknown> = {
    "@_id": attributes.id,
    "@_reportGroup": attributes.reportGroup,
  }
  if (attributes.customerId) {
    element["@_customerId"] = attributes.customerId
  }

  switch (transaction.type) {
    case "authorization":
    case "sale":
      element.orderId = transaction.orderId
      element.amount = String(transaction.amount)
      element.orderSource = transaction.orderSource
      element.token = { cnpToken: transaction.token }
      break
    case "capture":
      if (transaction.attributes.partial) {
        element["@_partial"] = "true"
      }
      element.cnpTxnId = transaction.cnpTxnId
      if (transaction.amount !== undefined) {
        element.amount = String(transaction.amount)
      }
      break
    case "credit":
    case "authReversal":
      element.cnpTxnId = transaction.cnpTxnId
      if (transaction.amount !== undefined) {
        element.amount = String(transaction.amount)
      }
      break
    case "void":
      element.cnpTxnId = transaction.cnpTxnId
      break
    case "queryTransaction":
      element.origId = transaction.origId
      element.origActionType = transaction.origActionType
      break
  }

  return builder.build({
    "?xml": { "@_version": "1.0", "@_encoding": "UTF-8" },
    cnpOnlineRequest: {
      "@_version": version,
      "@_xmlns": CNP_NAMESPACE,
      "@_merchantId": credentials.merchantId,
      authentication: { user: credentials.user, password: credentials.password },
      [transaction.type]: element,
    },
  })
}

const RESPONSE_ELEMENTS: Readonly<Record<string, CnpTransactionType>> = {
  authorizationResponse: "authorization",
  saleResponse: "sale",
  captureResponse: "capture",
  creditResponse: "credit",
  voidResponse: "void",
  authReversalResponse: "authReversal",
}

/**
 * Parses a `<cnpOnlineResponse>` (or the older `<litleOnlineResponse>`).
 * @throws CnpParseError when the document is not one.
 */
export function parseCnpResponse(xml: string): CnpEnvelopeResponse {
  const document = parseWorldpayXml(parser, xml, { allowBooleanAttributes: true }, (refusal) => new CnpParseError(refusalMessage(refusal)))
  const root = asRecord(asRecord(document)?.cnpOnlineResponse ?? asRecord(document)?.litleOnlineResponse)
  if (!root) {
    throw new CnpParseError("the response has no <cnpOnlineResponse> element")
  }
  const response = attribute(root, "response")
  if (response === undefined) {
    throw new CnpParseError("<cnpOnlineResponse> has no response attribute")
  }
  const message = attribute(root, "message") ?? ""
  const queryNode = asRecord(root.queryTransactionResponse) ?? asRecord(root.queryTransactionUnavailableResponse)
  if (queryNode) {
    return { response, message, query: readQuery(queryNode) }
  }
  const names = Object.keys(root).filter((key) => key in RESPONSE_ELEMENTS)
  if (names.length > 1) {
    throw new CnpParseError(`the response holds ${names.length} transactions, expected one`)
  }
  if (names.length === 0) {
    return { response, message }
  }
  const type = RESPONSE_ELEMENTS[names[0]]
  const node = asRecord(root[names[0]])
  if (!node) {
    throw new CnpParseError(`<${names[0]}> is empty`)
  }
  return { response, message, transaction: readTransaction(type, node) }
}

function refusalMessage(refusal: XmlRefusal): string {
  switch (refusal.reason) {
    case "text-run":
      return `the response has a text run of more than ${MAX_XML_TEXT_RUN} characters (from character ${refusal.at}), longer than any cnpAPI answer holds`
    case "doctype":
      return "the response carries a DOCTYPE"
    case "ill-formed":
      return `the response is not well-formed XML: ${refusal.cause instanceof Error ? refusal.cause.message : String(refusal.cause)}`
  }
}

function readTransaction(type: CnpTransactionType, node: Record<string, unknown>): CnpTransactionResponse {
  const response = text(node.response)
  if (!response) {
    throw new CnpParseError(`<${type}Response> has no <response> code`)
  }
  const approved = text(node.approvedAmount)
  const card = readCard(node)
  return {
    type,
    id: attribute(node, "id"),
    duplicate: attribute(node, "duplicate") === "true",
    cnpTxnId: text(node.cnpTxnId) ?? text(node.litleTxnId),
    orderId: text(node.orderId),
    response,
    message: text(node.message) ?? "",
    authCode: text(node.authCode) || undefined,
    approvedAmount: approved && /^\d{1,15}$/.test(approved) ? Number(approved) : undefined,
    card,
  }
}

/**
 * The originals a `<queryTransactionResponse>` found, from `<results_max10>`
 * (one child per original answer, e.g. `<authorizationResponse>`; several of
 * one type come as an array). `<queryTransactionUnavailableResponse>` (the
 * original is known but its answer is not ready) has no results.
 */
function readQuery(node: Record<string, unknown>): CnpQueryResponse {
  const response = text(node.response)
  if (!response) {
    throw new CnpParseError("<queryTransactionResponse> has no <response> code")
  }
  const results: CnpTransactionResponse[] = []
  const found = asRecord(node.results_max10) ?? {}
  for (const [name, value] of Object.entries(found)) {
    const type = RESPONSE_ELEMENTS[name]
    if (!type) {
      continue
    }
    for (const item of Array.isArray(value) ? value : [value]) {
      const record = asRecord(item)
      if (record) {
        results.push(readTransaction(type, record))
      }
    }
  }
  return { response, message: text(node.message) ?? "", results }
}

/**
 * cnpAPI reports the card in `<accountInformation>` (type and a masked
 * number) when the merchant's profile enables it, and in `<tokenResponse>`
 * (type and BIN) when the transaction registered a token. Only the brand and
 * the last four digits are kept.
 */
function readCard(node: Record<string, unknown>): CnpTransactionResponse["card"] {
  const account = asRecord(node.accountInformation)
  const token = asRecord(node.tokenResponse)
  const type = text(account?.type) ?? text(token?.type)
  const number = text(account?.number)
  const last4 = number && /\d{4}$/.test(number) ? number.slice(-4) : undefined
  return type || last4 ? { type: type || undefined, last4 } : undefined
}

function attribute(node: Record<string, unknown>, name: string): string | undefined {
  const value = node[`@_${name}`]
  if (typeof value === "boolean") {
    return String(value)
  }
  return typeof value === "string" ? value : undefined
}

function text(value: unknown): string | undefined {
  if (typeof value === "string") {
    return value
  }
  const record = asRecord(value)
  if (record && typeof record["#text"] === "string") {
    return record["#text"]
  }
  return undefined
}
