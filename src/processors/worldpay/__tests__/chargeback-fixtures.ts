import { http, HttpResponse } from "msw"
import { createServer, Server } from "node:http"
import type { AddressInfo } from "node:net"
import { inspect } from "node:util"
import { listenStrictly } from "../../../lib/__tests__/support/msw-listen"
import type { RetryEvent } from "../../../lib/http"
import { WorldpayDisputeGateway } from "../dispute-gateway"
import type { WorldpayDisputeGatewayOptions } from "../options"
import { CHARGEBACK_MEDIA_TYPE } from "../chargeback-xml"

/**
 * Fixtures of the Worldpay dispute gateway's wire-level specs. The password
 * is a distinctive string, so a spec can prove it never leaves the
 * Authorization header.
 */

export const BASE = "https://services.worldpay.test"
export const USER = "cbk-user"
export const PASSWORD = "cbk-PASSWORD-s3cret<&>"
/** What the password looks like on the wire: inside `base64(user:password)`. */
export const BASIC = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString("base64")}`
export const MEDIA_TYPE = CHARGEBACK_MEDIA_TYPE
export const NS = "http://www.vantivcnp.com/chargebacks"
export const CASE_ID = "397892775806"

/** Every form a leaked secret could take. */
export const SECRET_FORMS = [PASSWORD, BASIC.slice("Basic ".length), Buffer.from(PASSWORD).toString("base64")]

export function gateway(overrides: Partial<WorldpayDisputeGatewayOptions> = {}) {
  const retries: RetryEvent[] = []
  const instance = new WorldpayDisputeGateway({
    url: BASE,
    user: USER,
    password: PASSWORD,
    timeoutMs: 1_000,
    maxRetries: 0,
    backoff: { baseMs: 1, capMs: 5 },
    onRetry: (event) => retries.push(event),
    ...overrides,
  })
  return { instance, retries }
}

/** A request as it went over the wire. */
export type Seen = {
  method: string
  url: URL
  headers: Headers
  body: Buffer
}

/** Records every request to the API's host and answers it. */
export function worldpay(seen: Seen[], answer: (request: Seen) => Response | Promise<Response>) {
  return http.all(`${BASE}/*`, async ({ request }) => {
    const record: Seen = {
      method: request.method,
      url: new URL(request.url),
      headers: request.headers,
      body: Buffer.from(await request.arrayBuffer()),
    }
    seen.push(record)
    return answer(record)
  })
}

/**
 * Worldpay on loopback, a real HTTP server, for the retrievals: they are read
 * through raw sockets (`largeAnswer`, lib/http/streamed-get), which MSW does
 * not see. `use` sets how it answers (as `worldpay` does for MSW) until the
 * spec ends; `base` is its URL, to pass as the gateway's `url`.
 */
export function localWorldpay(): { readonly base: string; use(seen: Seen[], answer: (request: Seen) => Response | Promise<Response>): void } {
  let server: Server | undefined
  let base = ""
  let handler: ((request: Seen) => Response | Promise<Response>) | undefined
  let log: Seen[] = []
  beforeAll(async () => {
    server = createServer(async (req, res) => {
      const parts: Buffer[] = []
      for await (const part of req) {
        parts.push(part as Buffer)
      }
      const headers = new Headers()
      for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
        headers.append(req.rawHeaders[i], req.rawHeaders[i + 1])
      }
      const record: Seen = { method: req.method ?? "", url: new URL(req.url ?? "/", base), headers, body: Buffer.concat(parts) }
      log.push(record)
      let answer: Response
      try {
        answer = handler ? await handler(record) : new Response("no answer set for this spec", { status: 599 })
      } catch (error) {
        // A mistake in a spec's handler shows as one, not as a network failure.
        res.writeHead(500, { "content-type": "text/plain" }).end(`spec handler failed: ${(error as Error).message}`)
        return
      }
      if (answer.type === "error") {
        // `Response.error()` (MSW's `HttpResponse.error()`): the connection is reset, as MSW does.
        res.socket?.resetAndDestroy()
        return
      }
      // With a Content-Length, as Worldpay sends a retrieval, unless the spec frames it otherwise.
      const body = Buffer.from(await answer.arrayBuffer())
      const answerHeaders = Object.fromEntries(answer.headers)
      if (!answerHeaders["transfer-encoding"]) {
        answerHeaders["content-length"] = String(body.length)
      }
      res.writeHead(answer.status, answerHeaders).end(body)
    })
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve))
    base = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`
  })
  afterEach(() => {
    handler = undefined
    log = []
  })
  afterAll(async () => {
    server?.closeAllConnections()
    await new Promise((resolve) => server?.close(resolve))
  })
  return {
    get base() {
      return base
    },
    use(seen, answer) {
      log = seen
      handler = answer
    },
  }
}

/** Starts the server for a spec file; any request no handler expected fails its test. */
export const listen = listenStrictly

export function xmlAnswer(xml: string, status = 200, headers: Record<string, string> = {}): Response {
  return new HttpResponse(xml, { status, headers: { "content-type": MEDIA_TYPE, ...headers } })
}

/** `<errorResponse>` with one `<error>` per text. */
export function errorXml(...errors: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><errorResponse xmlns="${NS}"><errors>${errors
    .map((error) => `<error>${escape(error)}</error>`)
    .join("")}</errors></errorResponse>`
}

export function documentXml(fields: {
  code: string
  message?: string
  caseId?: string
  documentIds?: string[]
  merchantId?: string
}): string {
  const ids = (fields.documentIds ?? []).map((id) => `<documentId>${escape(id)}</documentId>`).join("")
  return (
    `<chargebackDocumentUploadResponse xmlns="${NS}"><merchantId>${fields.merchantId ?? "1288791"}</merchantId>` +
    `<caseId>${fields.caseId ?? CASE_ID}</caseId>${ids}<responseCode>${fields.code}</responseCode>` +
    (fields.message === undefined ? "" : `<responseMessage>${escape(fields.message)}</responseMessage>`) +
    `</chargebackDocumentUploadResponse>`
  )
}

export function updateXml(transactionId = "6997445609488924"): string {
  return `<chargebackUpdateResponse xmlns="${NS}"><transactionId>${transactionId}</transactionId></chargebackUpdateResponse>`
}

/** The fields of a case in the schema's order; undefined leaves one out. */
export type CaseFields = Partial<Record<(typeof CASE_FIELD_ORDER)[number], string | undefined>>
export type ActivityFields = Partial<
  Record<"activityDate" | "activityType" | "fromQueue" | "toQueue" | "settlementAmount" | "settlementCurrencyType" | "notes", string>
>

const CASE_FIELD_ORDER = [
  "caseId",
  "merchantId",
  "dayIssuedByBank",
  "dateReceivedByVantivCnp",
  "vantivCnpTxnId",
  "cycle",
  "orderId",
  "cardNumberLast4",
  "cardType",
  "chargebackAmount",
  "chargebackCurrencyType",
  "originalTxnDay",
  "chargebackType",
  "representedAmount",
  "representedCurrencyType",
  "reasonCode",
  "reasonCodeDescription",
  "currentQueue",
  "acquirerReferenceNumber",
  "chargebackReferenceNumber",
  "merchantTxnId",
  "bin",
  "token",
  "customerId",
  "paymentAmount",
  "replyByDay",
] as const

/** The sandbox README's example case: represented, back in Worldpay's queue. */
export const FULL_CASE: CaseFields = {
  caseId: CASE_ID,
  merchantId: "1288791",
  dayIssuedByBank: "2025-01-30",
  dateReceivedByVantivCnp: "2025-01-31",
  vantivCnpTxnId: "834262947682512345",
  cycle: "First Chargeback",
  orderId: "order_1",
  cardNumberLast4: "4444",
  cardType: "MC",
  chargebackAmount: "1999",
  chargebackCurrencyType: "USD",
  originalTxnDay: "2025-01-28",
  chargebackType: "Deposit",
  representedAmount: "1999",
  representedCurrencyType: "USD",
  reasonCode: "4837",
  reasonCodeDescription: "No Cardholder Authorization",
  currentQueue: "Vantiv",
  acquirerReferenceNumber: "82953534959521791610982",
  chargebackReferenceNumber: "3849608106",
  merchantTxnId: "pay_1",
  bin: "555555",
  token: "1111076428634444",
  customerId: "cus_1",
  paymentAmount: "1999",
  replyByDay: "2025-02-14",
}

export const FULL_ACTIVITIES: ActivityFields[] = [
  {
    activityDate: "2025-01-31",
    activityType: "Merchant Represent",
    fromQueue: "Merchant",
    toQueue: "Vantiv",
    notes: "Card scan attached",
  },
  {
    activityDate: "2025-01-31",
    activityType: "Assign To Merchant",
    fromQueue: "Vantiv",
    toQueue: "Merchant",
    settlementAmount: "1999",
    settlementCurrencyType: "USD",
  },
]

/** What the gateway makes of FULL_CASE with FULL_ACTIVITIES. */
export const FULL_RECORD = {
  caseId: CASE_ID,
  merchantId: "1288791",
  transactionId: "834262947682512345",
  orderId: "order_1",
  merchantTxnId: "pay_1",
  customerId: "cus_1",
  cardLast4: "4444",
  cardType: "MC",
  amountMinor: 1999,
  currencyCode: "USD",
  cycle: "First Chargeback",
  reasonCode: "4837",
  reasonDescription: "No Cardholder Authorization",
  queue: "Vantiv",
  awaitingMerchant: false,
  outcome: undefined,
  issuedOn: "2025-01-30",
  receivedOn: "2025-01-31",
  originalTransactionOn: "2025-01-28",
  replyBy: "2025-02-14",
  acquirerReferenceNumber: "82953534959521791610982",
  chargebackReferenceNumber: "3849608106",
  representedAmountMinor: 1999,
  activities: [
    {
      date: "2025-01-31",
      type: "Merchant Represent",
      fromQueue: "Merchant",
      toQueue: "Vantiv",
      settlementAmountMinor: undefined,
      settlementCurrencyCode: undefined,
      notes: "Card scan attached",
    },
    {
      date: "2025-01-31",
      type: "Assign To Merchant",
      fromQueue: "Vantiv",
      toQueue: "Merchant",
      settlementAmountMinor: 1999,
      settlementCurrencyCode: "USD",
      notes: undefined,
    },
  ],
}

export function caseXml(fields: CaseFields = FULL_CASE, activities: ActivityFields[] = FULL_ACTIVITIES): string {
  const children = CASE_FIELD_ORDER.filter((name) => fields[name] !== undefined)
    .map((name) => `<${name}>${escape(fields[name] ?? "")}</${name}>`)
    .join("")
  const activity = activities
    .map(
      (a) =>
        `<activity>${Object.entries(a)
          .map(([name, value]) => `<${name}>${escape(value ?? "")}</${name}>`)
          .join("")}</activity>`
    )
    .join("")
  return `<chargebackCase>${children}${activity}</chargebackCase>`
}

export function retrievalXml(cases: string[], transactionId = "4915526374820196"): string {
  return (
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<chargebackRetrievalResponse xmlns="${NS}">` +
    `<transactionId>${transactionId}</transactionId>${cases.join("")}</chargebackRetrievalResponse>`
  )
}

export function escape(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
}

/** Asserts that no form of the password appears in anything reachable from `value` (messages, causes, bodies, requests). */
export function expectNoSecret(value: unknown): void {
  const text = `${inspect(value, { depth: 10, showHidden: true })} ${JSON.stringify(value) ?? ""} ${
    value instanceof Error ? `${value.message} ${value.stack}` : ""
  }`
  for (const secret of SECRET_FORMS) {
    expect(text).not.toContain(secret)
  }
}

export async function caught(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise
  } catch (error) {
    return error as Error
  }
  throw new Error("expected a rejection")
}
