import { http, HttpResponse } from "msw"
import { listenStrictly } from "../../../lib/__tests__/support/msw-listen"
import { CHECKOUT_URL, TOKEN } from "./helpers"

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

/** Records and answers cnpAPI requests (with the Worldpay gateway's own fixtures). */
export { cnpHandler } from "../../../processors/worldpay/__tests__/cnp-fixtures"

/** Starts the server for a spec file; any request no handler expected fails its test. */
export const listen = listenStrictly
