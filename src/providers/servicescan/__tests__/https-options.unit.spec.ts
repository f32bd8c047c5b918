import { MedusaError } from "@medusajs/framework/utils"
import { ServiceScanProviderService } from "../service"
import { baseOptions, CNP_PASSWORD, MERCHANT_ID } from "./helpers"

/**
 * Every service URL of the provider is https, so that the payment-token key,
 * the card token and the cnpAPI password never cross a network in clear:
 * http is refused at boot, naming the option, unless the host is loopback or
 * the owner sets the development flag `allowInsecureUrls`.
 */
function refusal(options: unknown): string {
  try {
    ServiceScanProviderService.validateOptions(options as Record<string, unknown>)
  } catch (error) {
    expect(MedusaError.isMedusaError(error)).toBe(true)
    return (error as Error).message
  }
  throw new Error("expected validateOptions to throw")
}

const worldpay = (url: string) => ({ type: "worldpay" as const, url, merchantId: MERCHANT_ID, user: "u", password: CNP_PASSWORD })

describe("provider options: https for every service URL", () => {
  it.each([
    ["checkoutUrl", { checkoutUrl: "http://checkout.servicescan.example" }],
    ["clientScriptUrl", { clientScriptUrl: "http://checkout.servicescan.example/client.js" }],
    ["gateway.url", { gateway: worldpay("http://payments.vantivcnp.com/vap/communicator/online") }],
  ])("http for %s, to a host on the network: refused at boot, naming the option", (name, override) => {
    const message = refusal(baseOptions(override))
    expect(message).toContain(`${name}: must be an https URL`)
    expect(message).toContain("allowInsecureUrls")
    expect(message).not.toContain(CNP_PASSWORD)
  })

  it("all three at once are each named", () => {
    const message = refusal(
      baseOptions({ checkoutUrl: "http://10.0.0.5", clientScriptUrl: "http://10.0.0.5/c.js", gateway: worldpay("http://10.0.0.6/online") })
    )
    expect(message.match(/must be an https URL/g)).toHaveLength(3)
  })

  it.each(["http://localhost:4010", "http://127.0.0.1:4010", "http://127.8.9.10", "http://[::1]:4010"])(
    "http to a loopback host (%s) is allowed: nothing crosses a network",
    (url) => {
      expect(() =>
        ServiceScanProviderService.validateOptions(baseOptions({ checkoutUrl: url, clientScriptUrl: `${url}/client.js`, gateway: worldpay(`${url}/cnp/online`) }))
      ).not.toThrow()
    }
  )

  it.each(["http://localhost.evil.example", "http://127.0.0.1.nip.io", "http://128.0.0.1", "http://[::2]", "http://0.0.0.0"])(
    "a host that only looks local (%s) is refused",
    (url) => {
      expect(refusal(baseOptions({ checkoutUrl: url }))).toContain("checkoutUrl: must be an https URL")
    }
  )

  it("allowInsecureUrls: true (development only) allows http anywhere; anything but a boolean is refused", () => {
    const insecure = { checkoutUrl: "http://sandbox:4010", clientScriptUrl: "http://sandbox:4010/client.js", gateway: worldpay("http://sandbox:4010/cnp/online") }
    expect(() => ServiceScanProviderService.validateOptions(baseOptions({ ...insecure, allowInsecureUrls: true }))).not.toThrow()
    expect(refusal({ ...baseOptions(insecure), allowInsecureUrls: "yes" })).toContain("allowInsecureUrls: must be true or false")
  })
})
