import { XMLBuilder, XMLParser } from "fast-xml-parser"
import { MAX_XML_TEXT_RUN, XmlTextRunMeter } from "../../lib/xml-text-run"
import { DisputeActivity, DisputeCaseRecord, DisputeGatewayProtocolError } from "../types"
import { chargebackAnswerError as protocolError } from "./errors"
import { asRecord, parseWorldpayXml } from "./hardened-xml"

/**
 * Worldpay eComm Chargeback API XML (release 2.x): the update request we
 * send, and the four documents it answers with (`chargebackRetrievalResponse`,
 * `chargebackUpdateResponse`, `chargebackDocumentUploadResponse`,
 * `errorResponse`), all in one namespace. Every reader throws
 * `DisputeGatewayProtocolError` and nothing else for a body it cannot read.
 */

export const CHARGEBACK_NAMESPACE = "http://www.vantivcnp.com/chargebacks"
/** Worldpay's media type for requests and answers of the Chargeback API (its SDKs send it as Content-Type and Accept). */
export const CHARGEBACK_MEDIA_TYPE = "application/com.vantivcnp.services-v2+xml"

/** `<activityType>` values of `chargebackUpdateRequest`. */
export type UpdateActivityType =
  | "ADD_NOTE"
  | "ASSIGN_TO_USER"
  | "MERCHANT_ACCEPTS_LIABILITY"
  | "MERCHANT_REPRESENT"
  | "MERCHANT_RESPOND"
  | "MERCHANT_REQUESTS_ARBITRATION"

export type UpdateRequest = {
  activityType: UpdateActivityType
  assignedTo?: string
  note?: string
  /** Minor units; `MERCHANT_REPRESENT` only. */
  representedAmount?: number
}

export type RetrievalResponse = { transactionId?: string; cases: DisputeCaseRecord[] }

/** `<chargebackDocumentUploadResponse>`, the answer of every document call but a retrieved file. */
export type DocumentResponse = {
  merchantId?: string
  caseId?: string
  /** The document concerned, or every one of the case for a list. */
  documentIds: string[]
  responseCode: string
  responseMessage?: string
}

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  suppressEmptyNode: true,
  // Escapes &, <, >, " and ': a note is free text and must not change the document.
  processEntities: true,
})

const parser = new XMLParser({
  // Ids (12-digit case ids, 16-digit transaction ids, 18-digit cnpTxnIds),
  // codes ("000") and amounts stay strings: numbers would drop leading zeros
  // and lose precision. Amounts are converted, checked, one by one below.
  parseTagValue: false,
  ignoreAttributes: true,
  trimValues: true,
  removeNSPrefix: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // Entities are decoded by `text` below, only in the values read and only
  // when they hold an "&": the parser's own decoding runs some twenty
  // replacements over every value and doubled the parse time of a busy day.
  processEntities: false,
  htmlEntities: false,
  // Repeated elements come as arrays even when one is present, so a case
  // with one activity reads like a case with ten.
  isArray: (_name, jpath) => ARRAY_PATHS.has(String(jpath)),
})

const ARRAY_PATHS = new Set([
  "chargebackRetrievalResponse.chargebackCase",
  "chargebackCase.activity",
  "chargebackDocumentUploadResponse.documentId",
  "errorResponse.errors.error",
])

/** The body of `PUT chargebacks/<caseId>`, elements in the schema's order. */
export function buildUpdateRequest(request: UpdateRequest): string {
  const element: Record<string, unknown> = {
    "@_xmlns": CHARGEBACK_NAMESPACE,
    activityType: request.activityType,
  }
  if (request.assignedTo !== undefined) {
    element.assignedTo = request.assignedTo
  }
  if (request.note !== undefined) {
    element.note = request.note
  }
  if (request.representedAmount !== undefined) {
    element.representedAmount = String(request.representedAmount)
  }
  return builder.build({
    "?xml": { "@_version": "1.0", "@_encoding": "UTF-8", "@_standalone": "yes" },
    chargebackUpdateRequest: element,
  })
}

/**
 * The document's one root element, by name. fast-xml-parser is lenient (it
 * reads a document cut off in the middle, or stray text, without complaint),
 * so the document is validated first: a retrieval answer truncated by a proxy
 * must fail, not read as fewer cases.
 */
function root(xml: string, name: string): Record<string, unknown> {
  if (typeof xml !== "string" || xml.trim() === "") {
    throw protocolError(`an empty body where <${name}> was expected`)
  }
  const document = parseWorldpayXml(parser, xml, true, (refusal) => {
    switch (refusal.reason) {
      case "text-run":
        return textRunError(refusal.at)
      case "doctype":
        return protocolError("a document with a DOCTYPE, which it never sends")
      case "ill-formed":
        return protocolError(`a body that is not well-formed XML where <${name}> was expected: ${describe(refusal.cause)}`, refusal.cause)
    }
  })
  const top = asRecord(document)
  const names = top ? Object.keys(top) : []
  if (!top || names.length !== 1 || names[0] !== name) {
    throw protocolError(`<${names.join("><") || "nothing"}> where <${name}> was expected`)
  }
  // `<root/>` reads as "": an element without children.
  const element = top[name]
  if (element === "") {
    return {}
  }
  const record = asRecord(element)
  if (!record) {
    throw protocolError(`<${name}> with text where elements were expected`)
  }
  return record
}

/** A run longer than MAX_XML_TEXT_RUN: refused before fast-xml-parser sees it (see lib/xml-text-run). */
function textRunError(at: number): DisputeGatewayProtocolError {
  return protocolError(
    `a text run of more than ${MAX_XML_TEXT_RUN} characters (from character ${at}), longer than any Worldpay answer holds`
  )
}

function describe(cause: unknown): string {
  if (typeof cause === "object" && cause !== null && typeof (cause as { message?: unknown }).message === "string") {
    return (cause as { message: string }).message
  }
  return String(cause)
}

/**
 * Reads `<chargebackRetrievalResponse>`: zero or more cases, from the answer's
 * text or its bytes (UTF-8).
 *
 * A busy day's answer holds thousands of cases (10,000 are ~15 MB). Parsed
 * as one document, fast-xml-parser's tree of it took ~150 MB of heap at
 * once; so each `<chargebackCase>` is cut out and parsed on its own, and the
 * rest (the envelope) is parsed last, as a document without cases. Every
 * piece is validated: a cut in the wrong place (a `</chargebackCase>` inside
 * a comment, say) makes a piece ill-formed and the answer unreadable, never
 * silently different. Peak memory is the records plus one slice of text.
 */
export function parseRetrievalResponse(body: string | Uint8Array, options: { sliceSize?: number } = {}): RetrievalResponse {
  // The slice size only matters to the specs, which cut answers everywhere.
  const slice = options.sliceSize ?? SLICE_SIZE
  const reader = new RetrievalReader()
  if (typeof body === "string") {
    for (let start = 0; start < body.length; start += slice) {
      reader.push(body.slice(start, start + slice))
    }
  } else {
    // TextDecoder keeps a character split between two slices whole.
    const decoder = new TextDecoder("utf-8", { fatal: true })
    try {
      for (let start = 0; start < body.byteLength; start += slice) {
        reader.push(decoder.decode(body.subarray(start, start + slice), { stream: true }))
      }
      reader.push(decoder.decode())
    } catch (cause) {
      if (cause instanceof DisputeGatewayProtocolError) {
        throw cause
      }
      throw protocolError(`a body that is not UTF-8 where <chargebackRetrievalResponse> was expected`, cause)
    }
  }
  return reader.end()
}

/** How much of the answer (characters or bytes) is fed to the reader at a time. */
const SLICE_SIZE = 64 * 1024

/** `<chargebackCase` (any namespace prefix) as an opening or empty tag. */
const CASE_OPEN = /<(?:[A-Za-z_][\w.-]*:)?chargebackCase(?=[\s/>])/g
/** `</chargebackCase>` (any namespace prefix). */
const CASE_CLOSE = /<\/(?:[A-Za-z_][\w.-]*:)?chargebackCase\s*>/g
/** Longest text a closing tag can span, so a search resumed at the end of the text still finds one split by a slice. */
const CLOSE_OVERLAP = 128
/** Longest text an opening tag's `<prefix:chargebackCase` can span, kept for the next slice to complete. */
const OPEN_OVERLAP = 128

/**
 * Cuts cases out of a retrieval answer as its text arrives; see
 * `parseRetrievalResponse`. Each slice is searched once: what is kept for
 * the next one is at most an overlap (a tag the slice boundary split), never
 * the text already searched, and a case's text is gathered in parts and
 * joined once. A run of text longer than MAX_XML_TEXT_RUN is refused as it
 * arrives.
 */
class RetrievalReader {
  /** Text not searched to the end yet: an overlap, or an opening tag still waiting for its ">". */
  private pending = ""
  /** The open case's text so far, or null outside a case. */
  private caseParts: string[] | null = null
  private readonly meter = new XmlTextRunMeter()
  private readonly envelope: string[] = []
  private readonly cases: DisputeCaseRecord[] = []

  push(text: string): void {
    const overlong = this.meter.feed(text)
    if (overlong !== undefined) {
      throw textRunError(overlong)
    }
    const buffer = this.pending + text
    this.pending = ""
    let at = 0
    for (;;) {
      if (this.caseParts) {
        CASE_CLOSE.lastIndex = at
        const close = CASE_CLOSE.exec(buffer)
        if (!close) {
          const keepFrom = Math.max(at, buffer.length - CLOSE_OVERLAP)
          this.caseParts.push(buffer.slice(at, keepFrom))
          this.pending = buffer.slice(keepFrom)
          return
        }
        const end = close.index + close[0].length
        this.caseParts.push(buffer.slice(at, end))
        this.readCase(this.caseParts.join(""))
        this.caseParts = null
        at = end
        continue
      }
      CASE_OPEN.lastIndex = at
      const open = CASE_OPEN.exec(buffer)
      if (!open) {
        // Keep a "<" near the end that may begin an opening tag the next text completes
        // (only the end is searched: a complete one would have matched).
        const lt = buffer.indexOf("<", Math.max(at, buffer.length - OPEN_OVERLAP))
        const keepFrom = lt < 0 ? buffer.length : lt
        this.envelope.push(buffer.slice(at, keepFrom))
        this.pending = buffer.slice(keepFrom)
        return
      }
      this.envelope.push(buffer.slice(at, open.index))
      at = open.index
      const tagEnd = buffer.indexOf(">", open.index + open[0].length)
      if (tagEnd < 0) {
        // The tag (bounded by the meter) waits for the rest of its attributes.
        this.pending = buffer.slice(at)
        return
      }
      if (buffer[tagEnd - 1] === "/") {
        this.readCase(buffer.slice(at, tagEnd + 1))
      } else {
        this.caseParts = [buffer.slice(at, tagEnd + 1)]
      }
      at = tagEnd + 1
    }
  }

  end(): RetrievalResponse {
    if (this.caseParts) {
      throw protocolError(`a <chargebackCase> that never ends (case ${this.cases.length + 1})`)
    }
    this.envelope.push(this.pending)
    const node = root(this.envelope.join(""), "chargebackRetrievalResponse")
    if (node.chargebackCase !== undefined) {
      throw protocolError(`a <chargebackCase> that could not be read as one (case ${this.cases.length + 1})`)
    }
    return { transactionId: optionalText(node, "transactionId", "chargebackRetrievalResponse"), cases: this.cases }
  }

  private readCase(xml: string): void {
    this.cases.push(readCase(root(xml, "chargebackCase"), this.cases.length))
  }
}

/** Reads `<chargebackUpdateResponse>`. */
export function parseUpdateResponse(xml: string): { transactionId?: string } {
  const node = root(xml, "chargebackUpdateResponse")
  return { transactionId: optionalText(node, "transactionId", "chargebackUpdateResponse") }
}

/** Reads `<chargebackDocumentUploadResponse>`; its `responseCode` is required. */
export function parseDocumentResponse(xml: string): DocumentResponse {
  const where = "chargebackDocumentUploadResponse"
  const node = root(xml, where)
  const responseCode = optionalText(node, "responseCode", where)
  if (responseCode === undefined) {
    throw protocolError(`<${where}> without a <responseCode>`)
  }
  const documentIds = list(node.documentId, "documentId").map((value) => {
    const id = text(value)
    if (id === undefined || id === "") {
      throw protocolError(`<${where}> with an empty or structured <documentId>`)
    }
    return id
  })
  return {
    merchantId: optionalText(node, "merchantId", where),
    caseId: optionalText(node, "caseId", where),
    documentIds,
    responseCode,
    responseMessage: optionalText(node, "responseMessage", where),
  }
}

/**
 * The `<error>` texts of an `<errorResponse>`, or undefined when the body is
 * not one (an error page of a proxy, JSON, nothing): never throws, since it
 * only adds detail to an HTTP error that is raised anyway.
 */
export function parseErrorResponse(body: unknown): string[] | undefined {
  if (typeof body !== "string" || !body.includes("errorResponse")) {
    return undefined
  }
  try {
    const node = root(body, "errorResponse")
    const errors = asRecord(node.errors)
    const texts = list(errors?.error, "error")
      .map((value) => text(value))
      .filter((value): value is string => value !== undefined && value !== "")
    return texts.length > 0 ? texts : undefined
  } catch {
    return undefined
  }
}

// ---- cases -------------------------------------------------------------------------

function readCase(node: Record<string, unknown>, index: number): DisputeCaseRecord {
  const caseId = optionalText(node, "caseId", "chargebackCase")
  if (!caseId) {
    throw protocolError(`a <chargebackCase> without a <caseId> (number ${index + 1})`)
  }
  const where = `case ${caseId}`
  const field = (name: string) => optionalText(node, name, where)
  const amountMinor = amount(field("chargebackAmount"), "chargebackAmount", where)
  if (amountMinor === undefined) {
    throw protocolError(`${where} without a <chargebackAmount>`)
  }
  const currencyCode = currency(field("chargebackCurrencyType"), "chargebackCurrencyType", where)
  if (currencyCode === undefined) {
    throw protocolError(`${where} without a <chargebackCurrencyType>`)
  }
  const activities = list(node.activity, "activity").map((activity, i) => readActivity(activity, `${where}, activity ${i + 1}`))
  const queue = field("currentQueue")
  return {
    caseId,
    merchantId: field("merchantId"),
    transactionId: field("vantivCnpTxnId"),
    orderId: field("orderId"),
    merchantTxnId: field("merchantTxnId"),
    customerId: field("customerId"),
    cardLast4: field("cardNumberLast4"),
    cardType: field("cardType"),
    amountMinor,
    currencyCode,
    cycle: field("cycle"),
    reasonCode: field("reasonCode"),
    reasonDescription: field("reasonCodeDescription"),
    queue,
    awaitingMerchant: queue === MERCHANT_QUEUE,
    outcome: outcomeOf(activities),
    issuedOn: day(field("dayIssuedByBank"), "dayIssuedByBank", where),
    receivedOn: day(field("dateReceivedByVantivCnp"), "dateReceivedByVantivCnp", where),
    originalTransactionOn: day(field("originalTxnDay"), "originalTxnDay", where),
    replyBy: day(field("replyByDay"), "replyByDay", where),
    acquirerReferenceNumber: field("acquirerReferenceNumber"),
    chargebackReferenceNumber: field("chargebackReferenceNumber"),
    representedAmountMinor: amount(field("representedAmount"), "representedAmount", where),
    activities,
  }
}

/** The queue of cases that wait for the merchant: the only one that takes documents and answers. */
const MERCHANT_QUEUE = "Merchant"

/**
 * The network's decision, from the newest activity that states one. Worldpay
 * does not publish the names of these activities; the sandbox writes "Case
 * Won" and "Case Lost", and the match is loose ("won", "lost" as words) so
 * that a wording such as "Case Won By Merchant" reads the same.
 */
function outcomeOf(activities: DisputeActivity[]): DisputeCaseRecord["outcome"] {
  for (const activity of activities) {
    if (/\bcase\b.*\bwon\b/i.test(activity.type)) {
      return "won"
    }
    if (/\bcase\b.*\blost\b/i.test(activity.type)) {
      return "lost"
    }
  }
  return undefined
}

function readActivity(value: unknown, where: string): DisputeActivity {
  const node = asRecord(value)
  if (!node) {
    throw protocolError(`an empty or text-only <activity> (${where})`)
  }
  const date = day(optionalText(node, "activityDate", where), "activityDate", where)
  const type = optionalText(node, "activityType", where)
  if (date === undefined || type === undefined) {
    throw protocolError(`an <activity> without <activityDate> and <activityType> (${where})`)
  }
  return {
    date,
    type,
    fromQueue: optionalText(node, "fromQueue", where),
    toQueue: optionalText(node, "toQueue", where),
    settlementAmountMinor: amount(optionalText(node, "settlementAmount", where), "settlementAmount", where, true),
    settlementCurrencyCode: currency(optionalText(node, "settlementCurrencyType", where), "settlementCurrencyType", where),
    notes: optionalText(node, "notes", where),
  }
}

// ---- values ------------------------------------------------------------------------

/**
 * Whole minor units, as Worldpay writes every amount; anything else (a
 * decimal point, an exponent, more digits than a safe integer holds) is not a
 * value we can trust with money. Settlement amounts may be negative.
 */
function amount(value: string | undefined, name: string, where: string, signed = false): number | undefined {
  if (value === undefined) {
    return undefined
  }
  const pattern = signed ? /^-?\d{1,15}$/ : /^\d{1,15}$/
  if (!pattern.test(value)) {
    throw protocolError(`<${name}> "${clip(value)}" (${where}), not a whole number of minor units`)
  }
  const number = Number(value)
  // "-0" reads as 0.
  return number === 0 ? 0 : number
}

function currency(value: string | undefined, name: string, where: string): string | undefined {
  if (value === undefined) {
    return undefined
  }
  if (!/^[A-Za-z]{3}$/.test(value)) {
    throw protocolError(`<${name}> "${clip(value)}" (${where}), not an ISO 4217 code`)
  }
  return value.toUpperCase()
}

/** `YYYY-MM-DD`; an `xs:date` with a time zone keeps its day. */
function day(value: string | undefined, name: string, where: string): string | undefined {
  if (value === undefined) {
    return undefined
  }
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:Z|[+-]\d{2}:\d{2})?$/.exec(value)
  const month = match ? Number(match[2]) : 0
  const date = match ? Number(match[3]) : 0
  if (!match || month < 1 || month > 12 || date < 1 || date > 31) {
    throw protocolError(`<${name}> "${clip(value)}" (${where}), not a date`)
  }
  return `${match[1]}-${match[2]}-${match[3]}`
}

/**
 * A child's text; undefined when absent or empty (`<orderId/>`): absent values
 * are undefined, never "". A repeated or structured child is unreadable.
 */
function optionalText(node: Record<string, unknown>, name: string, where: string): string | undefined {
  const value = node[name]
  if (value === undefined) {
    return undefined
  }
  const result = text(value)
  if (result === undefined) {
    throw protocolError(`<${name}> (${where}) ${Array.isArray(value) ? "more than once" : "with child elements"}, expected one text value`)
  }
  return result === "" ? undefined : result
}

function text(value: unknown): string | undefined {
  if (typeof value === "string") {
    return value.includes("&") ? decodeEntities(value) : value
  }
  // Mixed content or an element with only a comment inside reads as `{ "#text": … }` or `{}`.
  const record = asRecord(value)
  if (record) {
    const keys = Object.keys(record)
    if (keys.length === 0) {
      return ""
    }
    if (keys.length === 1 && typeof record["#text"] === "string") {
      return text(record["#text"])
    }
  }
  return undefined
}

const ENTITY = /&(?:(lt|gt|amp|quot|apos)|#([0-9]{1,7})|#x([0-9A-Fa-f]{1,6}));/g
const NAMED_ENTITIES: Readonly<Record<string, string>> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" }

/**
 * XML's five entities and its character references (`&#13;`, `&#x2019;`,
 * which XML writers such as JAXB emit). A reference to a character XML does
 * not allow stays as it was written. (Inside CDATA, where nothing is a
 * reference, an "&amp;" would be decoded too; Worldpay sends no CDATA.)
 */
function decodeEntities(value: string): string {
  return value.replace(ENTITY, (match: string, name?: string, decimal?: string, hex?: string) => {
    if (name) {
      return NAMED_ENTITIES[name]
    }
    const code = decimal !== undefined ? Number(decimal) : parseInt(hex ?? "", 16)
    const allowed =
      code === 0x9 ||
      code === 0xa ||
      code === 0xd ||
      (code >= 0x20 && code <= 0xd7ff) ||
      (code >= 0xe000 && code <= 0xfffd) ||
      (code >= 0x10000 && code <= 0x10ffff)
    return allowed ? String.fromCodePoint(code) : match
  })
}

/** A repeated element as an array (`isArray` makes it one); text where elements belong is unreadable. */
function list(value: unknown, name: string): unknown[] {
  if (value === undefined) {
    return []
  }
  if (!Array.isArray(value)) {
    throw protocolError(`<${name}> where it was not expected`)
  }
  return value
}

function clip(value: string): string {
  return value.length > 40 ? `${value.slice(0, 40)}…` : value
}
