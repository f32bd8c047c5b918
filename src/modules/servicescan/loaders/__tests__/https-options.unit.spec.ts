import { resolveModuleOptions } from "../../options"

/**
 * The disputes module's service URLs (ServiceScan's disputes API and
 * Worldpay's Chargeback API) are https: the secret key and the processor's
 * password travel with every call. http is refused at boot, naming the
 * option, unless the host is loopback or `allowInsecureUrls` is set.
 */
const WORLDPAY = { type: "worldpay", user: "merchant", password: "s3cret-password" } as const

function refusal(options: unknown): string {
  try {
    resolveModuleOptions(options)
  } catch (error) {
    return (error as Error).message
  }
  throw new Error("expected resolveModuleOptions to throw")
}

describe("module options: https for every service URL", () => {
  it("http to a host on the network: refused, naming baseUrl and disputeGateway.url", () => {
    const message = refusal({ baseUrl: "http://disputes.servicescan.example", disputeGateway: { ...WORLDPAY, url: "http://services.vantivcnp.com" } })
    expect(message).toContain("baseUrl: must be an https URL")
    expect(message).toContain("disputeGateway.url: must be an https URL")
    expect(message).toContain("allowInsecureUrls")
    expect(message).not.toContain("s3cret-password")
  })

  it("https, loopback hosts and allowInsecureUrls: true are accepted", () => {
    expect(() => resolveModuleOptions({ baseUrl: "https://disputes.example", disputeGateway: { ...WORLDPAY, url: "https://services.vantivcnp.com" } })).not.toThrow()
    expect(() => resolveModuleOptions({ baseUrl: "http://127.0.0.1:4010", disputeGateway: { ...WORLDPAY, url: "http://localhost:4010" } })).not.toThrow()
    expect(
      resolveModuleOptions({ baseUrl: "http://sandbox:4010", allowInsecureUrls: true, disputeGateway: { ...WORLDPAY, url: "http://sandbox:4010" } }).allowInsecureUrls
    ).toBe(true)
  })
})
