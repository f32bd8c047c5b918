import { http, HttpResponse, passthrough } from "msw"
import { setupServer } from "msw/node"
import { inspect } from "node:util"
import { waitFor } from "../../../../integration-tests/helpers/wait"
import { HttpTimeoutError } from "../../../lib/http"
import { DisputeGatewayConfigurationError, isDisputeGateway } from "../../types"
import type { WorldpayDisputeGatewayOptions } from "../options"
import {
  BASIC,
  caseXml,
  caught,
  expectNoSecret,
  gateway,
  listen,
  localWorldpay,
  PASSWORD,
  retrievalXml,
  SECRET_FORMS,
  Seen,
  USER,
  xmlAnswer,
} from "./chargeback-fixtures"

const server = setupServer()
listen(server)
const local = localWorldpay()

/** Lets single calls through MSW to the local server, where the retrievals (raw sockets, unseen by MSW) go too. */
function allCallsToLocal(): void {
  server.use(http.all(`${local.base}/*`, () => passthrough()))
}

describe("WorldpayDisputeGateway", () => {
  it("implements DisputeGateway under the name worldpay", () => {
    const { instance } = gateway()
    expect(isDisputeGateway(instance)).toBe(true)
    expect(instance.name).toBe("worldpay")
  })

  it("keeps the credentials out of inspection and serialisation of the gateway", () => {
    const { instance } = gateway()
    for (const text of [inspect(instance, { depth: 10, showHidden: true }), JSON.stringify(instance), String(Object.values(instance))]) {
      for (const secret of SECRET_FORMS) {
        expect(text).not.toContain(secret)
      }
    }
  })

  it("the secret check catches each form of the password (so the specs that use it can fail)", () => {
    for (const leak of [{ message: PASSWORD }, new Error(`auth ${BASIC}`), { nested: { deeper: Buffer.from(PASSWORD).toString("base64") } }]) {
      expect(() => expectNoSecret(leak)).toThrow()
    }
  })

  it.each<[string, Partial<WorldpayDisputeGatewayOptions>, string]>([
    ["a relative url", { url: "services.vantivcnp.com" }, "url must be an absolute http(s) URL such as https://services.vantivcnp.com"],
    ["an ftp url", { url: "ftp://services.vantivcnp.com" }, "url must be an http(s) URL such as https://services.vantivcnp.com"],
    ["credentials in the url", { url: `https://${USER}:${encodeURIComponent(PASSWORD)}@services.vantivcnp.com` }, "url must not carry credentials: give them as user and password"],
    ["a query in the url", { url: "https://services.vantivcnp.com/?a=1" }, "url must be a base URL, without a query or fragment"],
    ["an empty user", { user: "" }, "user must be a non-empty string without a colon (the merchant's cnpAPI user)"],
    ["a user with a colon", { user: "a:b" }, "user must be a non-empty string without a colon (the merchant's cnpAPI user)"],
    ["an empty password", { password: "" }, "password must be a non-empty string (the merchant's cnpAPI password)"],
    ["a zero maxDocumentBytes", { maxDocumentBytes: 0 }, "maxDocumentBytes must be a positive integer"],
    ["a fractional timeout", { timeoutMs: 1.5 }, "timeoutMs must be a positive integer"],
    ["a negative maxRetrievalBytes", { maxRetrievalBytes: -1 }, "maxRetrievalBytes must be a positive integer"],
    ["a negative maxRetries", { maxRetries: -1 }, "maxRetries must be a whole number, 0 or more"],
  ])("refuses %s with a configuration error that names the option, never its secret value", (_label, overrides, message) => {
    let error: unknown
    try {
      gateway(overrides)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(DisputeGatewayConfigurationError)
    expect((error as Error).message).toBe(`Worldpay dispute gateway: ${message}`)
    expectNoSecret(error)
  })

  it("appends the API's paths to a base URL with a path (a proxy in front of Worldpay)", async () => {
    const seen: Seen[] = []
    local.use(seen, () => xmlAnswer(retrievalXml([caseXml()])))
    await gateway({ url: `${local.base}/worldpay/` }).instance.listActionableCases()
    expect(seen.map((request) => request.url.toString())).toEqual([`${local.base}/worldpay/chargebacks?actionable=true`])
  })

  it("keeps the credentials out of transport errors: a timeout, with retry events", async () => {
    server.use(http.get("https://services.worldpay.test/chargebacks/1", () => new Promise<Response>(() => undefined)))
    const { instance, retries } = gateway({ timeoutMs: 50, maxRetries: 1 })
    const error = await caught(instance.getCase("1"))
    expect(error).toBeInstanceOf(HttpTimeoutError)
    expect(retries).toHaveLength(1)
    expectNoSecret(error)
    expectNoSecret(retries)
  })

  it("gives retrievals a longer per-attempt timeout than single calls", async () => {
    const seen: Seen[] = []
    allCallsToLocal()
    local.use(seen, async () => {
      await new Promise((resolve) => setTimeout(resolve, 150))
      return xmlAnswer(retrievalXml([]))
    })
    const { instance } = gateway({ url: local.base, timeoutMs: 50, retrievalTimeoutMs: 2_000 })
    await expect(instance.listActionableCases()).resolves.toEqual([])
    expect(seen).toHaveLength(1)
    expect(seen[0].url.pathname).toBe("/chargebacks")
    await expect(instance.getCase("1")).rejects.toBeInstanceOf(HttpTimeoutError)
    // The single call did reach the server, once: under load the client's timer can fire before the server logs it.
    const paths = await waitFor(async () => seen.map((request) => request.url.pathname), (read) => read.length >= 2, 2_000)
    expect(paths).toEqual(["/chargebacks", "/chargebacks/1"])
  })

  it("never logs: the gateway writes nothing to the console, even on failures", async () => {
    const spies = (["log", "info", "warn", "error", "debug"] as const).map((level) => jest.spyOn(console, level).mockImplementation(() => undefined))
    try {
      allCallsToLocal()
      const seen: Seen[] = []
      local.use(seen, () => HttpResponse.json({ error: "Service unavailable" }, { status: 503 }))
      const { instance } = gateway({ url: local.base, maxRetries: 1 })
      expect(await caught(instance.listActionableCases())).toMatchObject({ status: 503 })
      expect(await caught(instance.represent("1", { note: "x" }))).toBeInstanceOf(Error)
      // The retrieval was asked twice (one retry), the update once (never repeated).
      expect(seen.map((request) => request.method)).toEqual(["GET", "GET", "PUT"])
      for (const spy of spies) {
        expect(spy).not.toHaveBeenCalled()
      }
    } finally {
      for (const spy of spies) {
        spy.mockRestore()
      }
    }
  })
})
