import { http, HttpResponse } from "msw"
import { setupServer } from "msw/node"
import { listenStrictly } from "../../__tests__/support/msw-listen"
import { HttpAuthError, HttpStatusError, UnreadableResponseError } from "../../http"
import { CheckoutClient } from "../checkout-client"

const CHECKOUT = "https://checkout.servicescan.test"
const KEY = "ptk_live_SECRET_0000"
const FORM = "3f1c2b9e-7a4d-4c21-9b8e-0d5f6a7b8c9d"

const server = setupServer()
listenStrictly(server)

const client = (overrides: Partial<ConstructorParameters<typeof CheckoutClient>[0]> = {}) =>
  new CheckoutClient({
    checkoutUrl: CHECKOUT,
    paymentTokenApiKey: KEY,
    processor: "worldpay",
    maxRetries: 1,
    backoff: { baseMs: 1, capMs: 2 },
    ...overrides,
  })

describe("CheckoutClient.exchangeFormId", () => {
  it("GETs /api/v1/<processor>/form/<form_id> with the payment-token key and returns the token", async () => {
    const seen: Request[] = []
    server.use(
      http.get(`${CHECKOUT}/api/v1/:processor/form/:formId`, ({ request }) => {
        seen.push(request)
        return HttpResponse.json({ token: "1111000276870123" })
      })
    )
    await expect(client().exchangeFormId(FORM)).resolves.toEqual({ token: "1111000276870123" })
    expect(seen).toHaveLength(1)
    expect(new URL(seen[0].url).pathname).toBe(`/api/v1/worldpay/form/${FORM}`)
    expect(seen[0].headers.get("x-api-key")).toBe(KEY)
    expect(seen[0].method).toBe("GET")
  })

  it("keeps a path prefix of the checkout URL and escapes the segments", async () => {
    server.use(
      http.get(`${CHECKOUT}/svc/api/v1/my%20proc/form/a%2Fb`, () => HttpResponse.json({ token: "t" }))
    )
    const prefixed = client({ checkoutUrl: `${CHECKOUT}/svc/`, processor: "my proc" })
    await expect(prefixed.exchangeFormId("a/b")).resolves.toEqual({ token: "t" })
  })

  it("retries a 5xx once (GET is idempotent) but not a 404", async () => {
    let calls = 0
    server.use(
      http.get(`${CHECKOUT}/api/v1/worldpay/form/:id`, ({ params }) => {
        calls++
        if (params.id === "missing") return HttpResponse.json({ error: "Form not found" }, { status: 404 })
        return calls === 1 ? new HttpResponse(null, { status: 502 }) : HttpResponse.json({ token: "t" })
      })
    )
    await expect(client().exchangeFormId(FORM)).resolves.toEqual({ token: "t" })
    calls = 0
    const error = await client().exchangeFormId("missing").catch((e: unknown) => e)
    expect(error).toBeInstanceOf(HttpStatusError)
    expect(error).toMatchObject({ status: 404, serviceMessage: "Form not found" })
    expect(calls).toBe(1)
  })

  it("types an auth failure, and never puts the key in the error", async () => {
    server.use(
      http.get(`${CHECKOUT}/api/v1/worldpay/form/:id`, () => new HttpResponse("Invalid API key provided", { status: 403 }))
    )
    const error = await client().exchangeFormId(FORM).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(HttpAuthError)
    expect(JSON.stringify(error)).not.toContain(KEY)
    expect((error as Error).message).not.toContain(KEY)
  })

  it.each([{}, { token: "" }, { token: 1111000276870123 }, "not json", { token: { nested: "1111000276870123" } }])(
    "rejects a 2xx without a token string (%j), without echoing the body",
    async (body) => {
      server.use(
        http.get(`${CHECKOUT}/api/v1/worldpay/form/:id`, () =>
          typeof body === "string" ? HttpResponse.text(body) : HttpResponse.json(body)
        )
      )
      const error = await client().exchangeFormId(FORM).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(UnreadableResponseError)
      expect(JSON.stringify(error)).not.toContain("1111000276870123")
      expect(String((error as UnreadableResponseError).body)).not.toContain("1111000276870123")
    }
  )
})
