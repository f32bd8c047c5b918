import { http, HttpResponse } from "msw"
import { listenStrictly } from "../../../lib/__tests__/support/msw-listen"
import { CHECKOUT_URL, CNP_URL, type CnpRequestRecord, cnpQueryResponse, cnpResponse, parseCnpRequest, TOKEN } from "./helpers"

/**
 * MSW handlers for the two remote parties of the provider: the service's token
 * exchange and Worldpay's cnpAPI. Each records what it received, so specs can
 * assert the wire.
 */

/** Records and answers the token exchange. */
export function exchangeHandler(
  requests: Request[],
  answer: () => Response | Promise<Response> = () => HttpResponse.json({ token: TOKEN })
) {
  return http.get(`${CHECKOUT_URL}/api/v1/:processor/form/:formId`, async ({ request }) => {
    requests.push(request.clone())
    return answer()
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

/** Starts the server for a spec file; any request no handler expected fails its test. */
export const listen = listenStrictly
