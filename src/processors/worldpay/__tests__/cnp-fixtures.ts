import { http, HttpResponse } from "msw"
import { XMLBuilder, XMLParser } from "fast-xml-parser"

/**
 * cnpAPI on the wire, for the specs of the Worldpay payment gateway and of
 * the provider that drives it: the endpoint and credentials, requests as
 * Worldpay reads them, answers as it writes them, and an MSW handler that
 * records and answers. The password is a distinctive string, so a spec can
 * prove it never leaks.
 */

export const CNP_URL = "https://cnp.worldpay.test/vap/communicator/online"
export const CNP_USER = "merchant-user"
export const CNP_PASSWORD = "cnp-PASSWORD-secret-42<&>"
export const MERCHANT_ID = "1288791"
/** A cnpAPI token: it keeps the card's last four digits. */
export const TOKEN = "1111000276870123"

const xmlParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  parseTagValue: false,
  parseAttributeValue: false,
  removeNSPrefix: false,
})

/** A parsed cnpAPI request as the processor received it. */
export type CnpRequestRecord = {
  raw: string
  headers: Headers
  root: Record<string, unknown>
  type: string
  txn: Record<string, unknown>
}

export function parseCnpRequest(raw: string, headers: Headers): CnpRequestRecord {
  const document = xmlParser.parse(raw) as Record<string, unknown>
  const root = document.cnpOnlineRequest as Record<string, unknown>
  const type = Object.keys(root).find((key) => !key.startsWith("@_") && key !== "authentication")
  if (!type) {
    throw new Error(`no transaction in ${raw}`)
  }
  return { raw, headers, root, type, txn: root[type] as Record<string, unknown> }
}

const xmlBuilder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  suppressEmptyNode: true,
  suppressBooleanAttributes: false,
})

/** A cnpAPI response document, as Worldpay (and the sandbox) writes it. */
export function cnpResponse(
  type: string,
  fields: {
    response?: string
    message?: string
    cnpTxnId?: string
    id?: string
    duplicate?: boolean
    orderId?: string
    authCode?: string
    extra?: Record<string, unknown>
  } = {},
  envelope: { response?: string; message?: string } = {}
): string {
  const element: Record<string, unknown> = {}
  if (fields.id) element["@_id"] = fields.id
  element["@_reportGroup"] = "Default Report Group"
  if (fields.duplicate) element["@_duplicate"] = "true"
  element.cnpTxnId = fields.cnpTxnId ?? "84000000000000099"
  if (fields.orderId) element.orderId = fields.orderId
  element.response = fields.response ?? "000"
  element.responseTime = "2025-01-01T00:00:00"
  element.message = fields.message ?? "Approved"
  if (fields.authCode) element.authCode = fields.authCode
  Object.assign(element, fields.extra ?? {})
  return xmlBuilder.build({
    "?xml": { "@_version": "1.0", "@_encoding": "UTF-8" },
    cnpOnlineResponse: {
      "@_version": "12.30",
      "@_xmlns": "http://www.vantivcnp.com/schema",
      "@_response": envelope.response ?? "0",
      "@_message": envelope.message ?? "Valid Format",
      ...(envelope.response && envelope.response !== "0" ? {} : { [`${type}Response`]: element }),
    },
  })
}

/**
 * A cnpAPI `<queryTransactionResponse>`: the original answers found (150), or
 * none (151), under `<results_max10>`.
 */
export function cnpQueryResponse(
  found: Array<{ type: string; cnpTxnId?: string; response?: string; message?: string }>,
  response = found.length ? "150" : "151"
): string {
  const results: Record<string, unknown[]> = {}
  for (const original of found) {
    ;(results[`${original.type}Response`] ??= []).push({
      "@_reportGroup": "Default Report Group",
      cnpTxnId: original.cnpTxnId ?? "84000000000000099",
      response: original.response ?? "000",
      responseTime: "2025-01-01T00:00:00",
      message: original.message ?? "Approved",
    })
  }
  return xmlBuilder.build({
    "?xml": { "@_version": "1.0", "@_encoding": "UTF-8" },
    cnpOnlineResponse: {
      "@_version": "12.30",
      "@_xmlns": "http://www.vantivcnp.com/schema",
      "@_response": "0",
      "@_message": "Valid Format",
      queryTransactionResponse: {
        "@_reportGroup": "Default Report Group",
        response,
        responseTime: "2025-01-01T00:00:00",
        message: found.length ? "Original transaction found" : "Original transaction not found",
        matchCount: String(found.length),
        ...(found.length ? { results_max10: results } : {}),
      },
    },
  })
}

/** Records and answers cnpAPI requests. */
export function cnpHandler(
  requests: CnpRequestRecord[],
  answer: (request: CnpRequestRecord) => string | Response = (request) =>
    request.type === "queryTransaction"
      ? // A processor with no record of the looked-up transaction (the provider asks after a duplicate approval).
        cnpQueryResponse([])
      : cnpResponse(request.type, { id: String(request.txn["@_id"] ?? "") })
) {
  return http.post(CNP_URL, async ({ request }) => {
    const record = parseCnpRequest(await request.text(), request.headers)
    requests.push(record)
    const result = answer(record)
    return typeof result === "string"
      ? new HttpResponse(result, { headers: { "content-type": "text/xml; charset=utf-8" } })
      : result
  })
}
