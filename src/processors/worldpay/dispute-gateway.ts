import { HttpClient, HttpStatusError, MAX_BUFFERED_BODY_BYTES, RequestOptions } from "../../lib/http"
import {
  DisputeCaseRecord,
  DisputeGateway,
  DisputeGatewayConfigurationError,
  DisputeGatewayProtocolError,
  DisputeGatewayRefusal,
  DisputeUpdateResult,
} from "../types"
import {
  buildUpdateRequest,
  CHARGEBACK_MEDIA_TYPE,
  DocumentResponse,
  parseDocumentResponse,
  parseErrorResponse,
  parseRetrievalResponse,
  parseUpdateResponse,
  UpdateRequest,
} from "./chargeback-xml"
import { disputeConfigurationError as configurationError } from "./errors"
import {
  DEFAULT_MAX_RETRIEVAL_BYTES,
  MIN_RETRIEVAL_TIMEOUT_MS,
  WORLDPAY,
  WORLDPAY_MAX_DOCUMENT_BYTES,
  WorldpayDisputeGatewayOptions,
} from "./options"

/** Document codes of `chargebackDocumentUploadResponse` this gateway acts on. */
const DOCUMENT_SUCCESS = "000"
const DOCUMENT_ALREADY_EXISTS = "005"
const DOCUMENT_NOT_FOUND = "009"

/**
 * Whether the `merchantId` of a case names the configured merchant. The Chargeback API sends it as
 * an `xs:long` (chargeback-api-v2.1.xsd), whose spelling may differ from the configured text (a
 * sign, leading zeros), so both are compared as the numbers they are.
 */
export function sameMerchantId(sent: string, configured: string): boolean {
  const a = longValue(sent)
  const b = longValue(configured)
  return a !== undefined && b !== undefined ? a === b : sent === configured
}

/** The value of an `xs:long` lexical form (white space collapsed, optional sign, digits), or undefined. */
function longValue(text: string): bigint | undefined {
  const match = /^\s*([+-]?)(\d{1,30})\s*$/.exec(text)
  return match ? (match[1] === "-" ? -BigInt(match[2]) : BigInt(match[2])) : undefined
}

/** Worldpay's case ids are numbers (`Long` in its SDKs). */
const CASE_ID = /^\d{1,19}$/
/** The document ids Worldpay takes: the file name, by its SDKs' convention. */
const DOCUMENT_ID = /^[A-Za-z0-9._\-() ]{1,100}$/
const DAY = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/
/** A media type, without parameters that could smuggle anything into the header. */
const MEDIA_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/
const MAX_NOTE_LENGTH = 4000

/**
 * Worldpay eComm's Chargeback API (release 2.x), the processor side of a
 * dispute for merchants whose payments go through Worldpay cnpAPI.
 *
 * Retrieval and update live under `/chargebacks`, evidence documents under
 * `/services/chargebacks/{upload,replace,delete,list,retrieve}`, as Worldpay's
 * SDKs call them. Authentication is HTTP Basic with the merchant's cnpAPI user
 * and password.
 *
 * Repeats: reads are retried by the HTTP core. The API has no idempotency
 * key, so an update (represent, accept liability) is sent once and a lost
 * answer surfaces as the core's connection or timeout error: the caller reads
 * the case before sending again. Document calls are the exception, because a
 * repeat provably lands in the same state (see `putDocument` and
 * `deleteDocument`).
 *
 * Errors: Worldpay's refusals about the case (400 "Cannot perform activity…",
 * a 404 on update, document codes other than success) are
 * `DisputeGatewayRefusal` with Worldpay's code; 401/403 is a
 * `DisputeGatewayConfigurationError`; an answer that cannot be read is a
 * `DisputeGatewayProtocolError`; transport failures and 5xx stay the HTTP
 * core's typed errors (`HttpConnectionError`,
 * `HttpTimeoutError`, `HttpStatusError`, `UnreadableResponseError`).
 * A malformed argument (case id, day, document id, note) is a `TypeError`,
 * thrown before anything is sent.
 */
export class WorldpayDisputeGateway implements DisputeGateway {
  readonly name = WORLDPAY

  private readonly http: HttpClient
  private readonly merchantId: string | undefined
  private readonly maxDocumentBytes: number
  private readonly maxRetrievalBytes: number
  private readonly retrievalTimeoutMs: number
  /** A `#private` field: not shown by `util.inspect` or `JSON.stringify` of the gateway. */
  readonly #authorization: string

  constructor(options: WorldpayDisputeGatewayOptions) {
    const url = checkUrl(options.url)
    if (typeof options.user !== "string" || options.user === "" || options.user.includes(":")) {
      // RFC 7617: the user-id of Basic credentials cannot contain a colon.
      throw configurationError("user must be a non-empty string without a colon (the merchant's cnpAPI user)")
    }
    if (typeof options.password !== "string" || options.password === "") {
      throw configurationError("password must be a non-empty string (the merchant's cnpAPI password)")
    }
    this.maxDocumentBytes = positiveInteger(options.maxDocumentBytes, "maxDocumentBytes") ?? WORLDPAY_MAX_DOCUMENT_BYTES
    this.maxRetrievalBytes = positiveInteger(options.maxRetrievalBytes, "maxRetrievalBytes") ?? DEFAULT_MAX_RETRIEVAL_BYTES
    const timeoutMs = positiveInteger(options.timeoutMs, "timeoutMs")
    this.retrievalTimeoutMs =
      positiveInteger(options.retrievalTimeoutMs, "retrievalTimeoutMs") ?? Math.max(timeoutMs ?? 0, MIN_RETRIEVAL_TIMEOUT_MS)
    this.merchantId = options.merchantId || undefined
    this.#authorization = `Basic ${Buffer.from(`${options.user}:${options.password}`, "utf8").toString("base64")}`
    this.http = new HttpClient({
      baseUrl: url,
      timeoutMs,
      maxRetries: retries(options.maxRetries),
      backoff: options.backoff,
      onRetry: options.onRetry,
    })
  }

  /** `GET chargebacks?date=<day>`: cases with an activity dated that day. */
  async listCasesByActivityDate(day: string): Promise<DisputeCaseRecord[]> {
    if (typeof day !== "string" || !DAY.test(day)) {
      throw new TypeError(`day must be a date, YYYY-MM-DD (got ${describeArgument(day)})`)
    }
    return this.ownCases(await this.retrieve({ date: day }))
  }

  /** `GET chargebacks?actionable=true`: cases in the merchant's queue. */
  async listActionableCases(): Promise<DisputeCaseRecord[]> {
    return this.ownCases(await this.retrieve({ actionable: "true" }))
  }

  /** `GET chargebacks/<caseId>`; null for a case Worldpay does not know (404) or another merchant's. */
  async getCase(caseId: string): Promise<DisputeCaseRecord | null> {
    checkCaseId(caseId)
    let xml: string
    try {
      xml = await this.xml("GET", `/chargebacks/${caseId}`)
    } catch (error) {
      if (error instanceof HttpStatusError && error.status === 404) {
        return null
      }
      throw this.mapError(error, `reading case ${caseId}`)
    }
    const { cases } = parseRetrievalResponse(xml)
    if (cases.length === 0) {
      return null
    }
    if (cases.length > 1 || cases[0].caseId !== caseId) {
      throw new DisputeGatewayProtocolError(
        `Worldpay's Chargeback API answered case ${caseId} with ${cases.length === 1 ? `case ${cases[0].caseId}` : `${cases.length} cases`}`,
        { gateway: this.name }
      )
    }
    return this.ownCases(cases)[0] ?? null
  }

  /** `GET services/chargebacks/list/<caseId>`: the document ids, in upload order. */
  async listDocuments(caseId: string): Promise<string[]> {
    checkCaseId(caseId)
    const answer = await this.document("GET", `/services/chargebacks/list/${caseId}`, `listing the documents of case ${caseId}`)
    this.refuseUnlessSuccess(answer, `list the documents of case ${caseId}`)
    return answer.documentIds
  }

  /**
   * Adds a document (`POST services/chargebacks/upload/…`); when the id is
   * taken (code 005) replaces its content (`PUT services/chargebacks/replace/…`).
   *
   * Both are retried by the HTTP core after a timeout, a reset or a 5xx,
   * although they write: a repeated upload whose first attempt landed meets
   * 005 and becomes a replace with the same bytes, and a repeated replace
   * writes the same bytes again. Either way the case ends with exactly this
   * document under this id, as after one attempt.
   */
  async putDocument(caseId: string, documentId: string, file: { bytes: Uint8Array; contentType: string }): Promise<void> {
    checkCaseId(caseId)
    checkDocumentId(documentId)
    if (!file || !ArrayBuffer.isView(file.bytes)) {
      throw new TypeError("file.bytes must be a Uint8Array")
    }
    if (typeof file.contentType !== "string" || !MEDIA_TYPE.test(file.contentType)) {
      throw new TypeError(`file.contentType must be a media type such as application/pdf (got ${describeArgument(file.contentType)})`)
    }
    if (file.bytes.byteLength > this.maxDocumentBytes) {
      // Worldpay's own code for it, without sending megabytes it would refuse.
      throw new DisputeGatewayRefusal(
        `Worldpay refuses documents over ${this.maxDocumentBytes} bytes (code 012); ${documentId} for case ${caseId} has ${file.bytes.byteLength}, not sent`,
        { gateway: this.name, code: "012" }
      )
    }
    const path = (action: string) => `/services/chargebacks/${action}/${caseId}/${encodeURIComponent(documentId)}`
    const send = (method: "POST" | "PUT", action: string) =>
      this.document(method, path(action), `${action === "upload" ? "uploading" : "replacing"} ${documentId} for case ${caseId}`, {
        body: file.bytes,
        contentType: file.contentType,
        idempotent: true,
      })

    const uploaded = await send("POST", "upload")
    if (uploaded.responseCode !== DOCUMENT_ALREADY_EXISTS) {
      this.refuseUnlessSuccess(uploaded, `upload ${documentId} for case ${caseId}`)
      return
    }
    const replaced = await send("PUT", "replace")
    this.refuseUnlessSuccess(replaced, `replace ${documentId} for case ${caseId}`)
  }

  /**
   * `DELETE services/chargebacks/delete/<caseId>/<documentId>`. A document
   * that is not there (009) counts as deleted, which also makes a repeat
   * after a lost answer harmless: the core may retry it.
   */
  async deleteDocument(caseId: string, documentId: string): Promise<void> {
    checkCaseId(caseId)
    checkDocumentId(documentId)
    const answer = await this.document(
      "DELETE",
      `/services/chargebacks/delete/${caseId}/${encodeURIComponent(documentId)}`,
      `deleting ${documentId} of case ${caseId}`,
      { idempotent: true }
    )
    if (answer.responseCode === DOCUMENT_NOT_FOUND) {
      return
    }
    this.refuseUnlessSuccess(answer, `delete ${documentId} of case ${caseId}`)
  }

  /**
   * `GET services/chargebacks/retrieve/<caseId>/<documentId>`: the file as
   * Worldpay holds it (Worldpay converts documents to TIFF), or null when the
   * case has no such document (009). Not part of `DisputeGateway`.
   */
  async retrieveDocument(caseId: string, documentId: string): Promise<{ bytes: Uint8Array; contentType: string } | null> {
    checkCaseId(caseId)
    checkDocumentId(documentId)
    const context = `retrieving ${documentId} of case ${caseId}`
    let response
    try {
      response = await this.http.request<Buffer>({
        method: "GET",
        path: `/services/chargebacks/retrieve/${caseId}/${encodeURIComponent(documentId)}`,
        headers: this.headers({ accept: `application/pdf, image/*, ${CHARGEBACK_MEDIA_TYPE};q=0.9` }),
        responseType: "bytes",
        // A converted TIFF can be larger than what was uploaded.
        maxBytes: Math.max(MAX_BUFFERED_BODY_BYTES, 4 * this.maxDocumentBytes),
      })
    } catch (error) {
      throw this.mapError(error, context)
    }
    const contentType = (response.headers.get("content-type") ?? "application/octet-stream").split(";")[0].trim()
    if (/xml$/i.test(contentType)) {
      // A refusal comes as XML instead of the file.
      const answer = parseDocumentResponse(response.data.toString("utf8"))
      if (answer.responseCode === DOCUMENT_NOT_FOUND) {
        return null
      }
      this.refuseUnlessSuccess(answer, `retrieve ${documentId} of case ${caseId}`)
      throw new DisputeGatewayProtocolError(
        `Worldpay's Chargeback API answered ${context} with a success code instead of the file`,
        { gateway: this.name }
      )
    }
    return { bytes: response.data, contentType }
  }

  /** `MERCHANT_REPRESENT`: contests the chargeback, for all of it or `amountMinor`. Sent once, never repeated by the gateway. */
  async represent(caseId: string, input: { note: string; amountMinor?: number }): Promise<DisputeUpdateResult> {
    const amount = input?.amountMinor
    if (amount !== undefined && !(Number.isSafeInteger(amount) && amount > 0)) {
      throw new TypeError(`amountMinor must be a positive whole number of minor units (got ${describeArgument(amount)})`)
    }
    return this.update(caseId, { activityType: "MERCHANT_REPRESENT", note: checkNote(input?.note), representedAmount: amount })
  }

  /** `MERCHANT_ACCEPTS_LIABILITY`. Sent once, never repeated by the gateway. */
  async acceptLiability(caseId: string, input: { note: string }): Promise<DisputeUpdateResult> {
    return this.update(caseId, { activityType: "MERCHANT_ACCEPTS_LIABILITY", note: checkNote(input?.note) })
  }

  // ---- requests ------------------------------------------------------------------------

  /**
   * `PUT chargebacks/<caseId>`. Never retried: a repeated note adds a second
   * note, and a repeated represent whose first attempt landed is refused
   * ("Cannot perform activity") although it succeeded. After a lost answer
   * the caller reads the case's activities instead.
   */
  private async update(caseId: string, request: UpdateRequest): Promise<DisputeUpdateResult> {
    checkCaseId(caseId)
    let xml: string
    try {
      xml = await this.xml("PUT", `/chargebacks/${caseId}`, {
        body: buildUpdateRequest(request),
        contentType: `${CHARGEBACK_MEDIA_TYPE}; charset=utf-8`,
        idempotent: false,
      })
    } catch (error) {
      throw this.mapError(error, `sending ${request.activityType} for case ${caseId}`, caseId)
    }
    const { transactionId } = parseUpdateResponse(xml)
    return transactionId === undefined ? {} : { transactionId }
  }

  /**
   * A retrieval, read as bytes and parsed case by case (see
   * `parseRetrievalResponse`): the answer is held once, outside the JS heap,
   * and never as one string or one tree. `maxRetrievalBytes` bounds it.
   */
  private async retrieve(query: Record<string, string>): Promise<DisputeCaseRecord[]> {
    let body: Buffer
    try {
      const response = await this.http.request<Buffer>({
        method: "GET",
        path: "/chargebacks",
        query,
        headers: this.headers({}),
        responseType: "bytes",
        maxBytes: this.maxRetrievalBytes,
        // Megabytes of XML: read through pooled buffers, not Node's per-chunk ones (lib/http/client).
        largeAnswer: true,
        timeoutMs: this.retrievalTimeoutMs,
      })
      body = response.data
    } catch (error) {
      const search = Object.entries(query)
        .map(([name, value]) => `${name}=${value}`)
        .join("&")
      throw this.mapError(error, `retrieving cases (${search})`)
    }
    return parseRetrievalResponse(body).cases
  }

  /** A request answered with Chargeback API XML; the raw text of a 2xx answer. */
  private async xml(
    method: RequestOptions["method"],
    path: string,
    extra: Pick<RequestOptions, "idempotent"> & { body?: string | Uint8Array; contentType?: string } = {}
  ): Promise<string> {
    const { contentType, ...rest } = extra
    const response = await this.http.request<string>({
      method,
      path,
      headers: this.headers(contentType ? { "content-type": contentType } : {}),
      responseType: "text",
      ...rest,
    })
    return response.data
  }

  /** A document call: its `chargebackDocumentUploadResponse` (every answer is HTTP 200 with a code). */
  private async document(
    method: RequestOptions["method"],
    path: string,
    context: string,
    extra: { body?: Uint8Array; contentType?: string; idempotent?: boolean } = {}
  ): Promise<DocumentResponse> {
    let xml: string
    try {
      xml = await this.xml(method, path, extra)
    } catch (error) {
      throw this.mapError(error, context)
    }
    return parseDocumentResponse(xml)
  }

  private headers(extra: Record<string, string>): Record<string, string> {
    return { accept: CHARGEBACK_MEDIA_TYPE, ...extra, authorization: this.#authorization }
  }

  private ownCases(cases: DisputeCaseRecord[]): DisputeCaseRecord[] {
    const merchantId = this.merchantId
    return merchantId ? cases.filter((kase) => kase.merchantId === undefined || sameMerchantId(kase.merchantId, merchantId)) : cases
  }

  private refuseUnlessSuccess(answer: DocumentResponse, action: string): void {
    if (answer.responseCode === DOCUMENT_SUCCESS) {
      return
    }
    const message = answer.responseMessage ? `${answer.responseCode} ${answer.responseMessage}` : answer.responseCode
    throw new DisputeGatewayRefusal(`Worldpay refused to ${action}: ${message}`, {
      gateway: this.name,
      code: answer.responseCode,
    })
  }

  /**
   * The one place where the API's HTTP errors get their meaning. Whatever is
   * not a refusal or a configuration problem stays the HTTP core's typed error.
   */
  private mapError(error: unknown, context: string, caseId?: string): unknown {
    if (!(error instanceof HttpStatusError)) {
      return error
    }
    const errors = parseErrorResponse(error.body)
    const detail = errors ? `: ${errors.join(" ")}` : ""
    if (error.status === 401 || error.status === 403) {
      return new DisputeGatewayConfigurationError(
        `Worldpay's Chargeback API refused the credentials while ${context} (HTTP ${error.status}): check the dispute gateway's user and password ` +
          "(the merchant's cnpAPI credentials) and that Worldpay enabled the Chargeback API for them",
        { gateway: this.name, status: error.status, cause: error }
      )
    }
    if (error.status === 400) {
      return new DisputeGatewayRefusal(`Worldpay refused ${context}${detail || " (HTTP 400)"}`, {
        gateway: this.name,
        code: "400",
        cause: error,
      })
    }
    if (error.status === 404 && caseId !== undefined) {
      return new DisputeGatewayRefusal(`Worldpay does not know case ${caseId} (HTTP 404 while ${context})${detail}`, {
        gateway: this.name,
        code: "404",
        cause: error,
      })
    }
    if (error.status === 413) {
      return new DisputeGatewayRefusal(`Worldpay refused ${context}: the request is too large (HTTP 413)`, {
        gateway: this.name,
        code: "413",
        cause: error,
      })
    }
    return error
  }
}

function checkUrl(value: unknown): string {
  let url: URL
  try {
    url = new URL(String(value))
  } catch {
    throw configurationError("url must be an absolute http(s) URL such as https://services.vantivcnp.com")
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw configurationError("url must be an http(s) URL such as https://services.vantivcnp.com")
  }
  if (url.username || url.password) {
    // Credentials in a URL end up in every error message that names the request.
    throw configurationError("url must not carry credentials: give them as user and password")
  }
  if (url.search || url.hash) {
    throw configurationError("url must be a base URL, without a query or fragment")
  }
  return url.toString()
}

function positiveInteger(value: unknown, name: string): number | undefined {
  if (value === undefined) {
    return undefined
  }
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) {
    throw configurationError(`${name} must be a positive integer`)
  }
  return value
}

function retries(value: unknown): number | undefined {
  if (value !== undefined && (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0)) {
    throw configurationError("maxRetries must be a whole number, 0 or more")
  }
  return value
}

function checkCaseId(caseId: unknown): asserts caseId is string {
  if (typeof caseId !== "string" || !CASE_ID.test(caseId)) {
    throw new TypeError(`caseId must be Worldpay's numeric case id (got ${describeArgument(caseId)})`)
  }
}

function checkDocumentId(documentId: unknown): asserts documentId is string {
  if (typeof documentId !== "string" || !DOCUMENT_ID.test(documentId) || /^\.+$/.test(documentId)) {
    throw new TypeError(
      `documentId must be 1 to 100 letters, digits, spaces or . _ - ( ), as Worldpay takes them (got ${describeArgument(documentId)})`
    )
  }
}

function checkNote(note: unknown): string {
  if (typeof note !== "string" || note.trim() === "" || note.length > MAX_NOTE_LENGTH) {
    throw new TypeError(`note must be 1 to ${MAX_NOTE_LENGTH} characters`)
  }
  return note
}

function describeArgument(value: unknown): string {
  if (typeof value === "string") {
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
  }
  return typeof value === "number" ? String(value) : typeof value
}
