import fc from "fast-check"
import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import { DEVICE_ID } from "../../../lib/device-id"
import { sessionDataSchema } from "../../../providers/servicescan/types"
import { boundServiceScanSessionData } from "../bound-session-data"

/**
 * The widget's `device_id` on `POST /store/payment-collections/:id/payment-sessions`: only a
 * bounded, plain id is let through to Medusa's stored session data (it is kept as evidence);
 * anything else is a 400 naming the field, before anything is stored.
 */
const FORM = { form_id: "6f1c1a52-8a4c-4d0e-9f0a-3b2b7b1e9c11", response_code: "870" }

/** What the middleware hands to `next` for `data`, once it has finished (awaited, so a late refusal counts too). */
async function refusal(data: unknown): Promise<MedusaError | undefined> {
  let out: unknown = "not called"
  const req = {
    body: { provider_id: "pp_servicescan_servicescan", data },
    originalUrl: "/store/payment-collections/paycol_01/payment-sessions",
    // A valid payload goes on to look the collection up: that is past what this spec checks.
    scope: { resolve: () => ({ graph: async () => ({ data: [] }) }) },
  } as unknown
  const next: MedusaNextFunction = (error?: unknown) => {
    out = error
  }
  await boundServiceScanSessionData(req as MedusaRequest, {} as MedusaResponse, next)
  if (out === "not called") {
    throw new Error("the middleware neither called next nor refused")
  }
  return out instanceof MedusaError ? out : undefined
}

const refusedNow = async (data: unknown) => {
  const error = await refusal(data)
  return error?.type === MedusaError.Types.INVALID_DATA && /device_id/.test(error.message) ? error : undefined
}

describe("device_id in payment session data", () => {
  it("lets the widget's UUID and other plain ids of 16 to 64 characters through", async () => {
    for (const id of ["0b5e2f4c-9d1a-4c3e-8f7a-1e2d3c4b5a69", "a".repeat(16), "A-_".repeat(21) + "z", "0123456789abcdef0123456789abcdef"]) {
      expect(await refusedNow({ ...FORM, device_id: id })).toBeUndefined()
    }
    // Empty or absent is none (outside a secure context the widget has no id).
    expect(await refusedNow({ ...FORM, device_id: "" })).toBeUndefined()
    expect(await refusedNow(FORM)).toBeUndefined()
  })

  it("refuses anything else with a 400 that names data.device_id (property)", async () => {
    const bad = fc.oneof(
      fc.string({ maxLength: 200 }).filter((s) => s !== "" && !DEVICE_ID.test(s)),
      fc.string({ minLength: 65, maxLength: 300, unit: fc.constantFrom("a", "B", "7", "-", "_") }),
      fc.string({ minLength: 1, maxLength: 15, unit: fc.constantFrom("a", "7", "-") }),
      fc.constantFrom<unknown>(42, true, {}, [], ["0b5e2f4c-9d1a-4c3e-8f7a-1e2d3c4b5a69"], { $ne: null }),
      fc.constantFrom("0b5e2f4c-9d1a-4c3e-8f7a-1e2d3c4b5a69\u0000", "<img src=x onerror=alert(1)>abcdef", "a".repeat(30) + " ", "é".repeat(20))
    )
    await fc.assert(
      fc.asyncProperty(bad, async (deviceId) => {
        const error = await refusedNow({ ...FORM, device_id: deviceId })
        expect(error?.message).toMatch(/^data\.device_id must/)
        // The refused value is never echoed back.
        if (typeof deviceId === "string" && deviceId.length > 3) {
          expect(error?.message).not.toContain(deviceId)
        }
      }),
      { numRuns: 300 }
    )
  })

  it("is read by the provider with the same rule: absent or empty is none, a bad one a refusal naming it", () => {
    expect(sessionDataSchema.parse({ ...FORM, device_id: "" }).device_id).toBeUndefined()
    expect(sessionDataSchema.parse({ ...FORM, device_id: "0b5e2f4c-9d1a-4c3e-8f7a-1e2d3c4b5a69" }).device_id).toBe("0b5e2f4c-9d1a-4c3e-8f7a-1e2d3c4b5a69")
    const parsed = sessionDataSchema.safeParse({ ...FORM, device_id: "nope" })
    expect(parsed.success ? "" : parsed.error.issues[0].message).toMatch(/^data\.device_id must be/)
  })
})
