import { createHmac } from "node:crypto"
import { signWebhookPayload, verifyWebhookSignature } from "../webhook-signature"

const SECRET = "whsec_unit_0123456789abcdef"
const BODY = '{"external_id":"dp_1","amount":"10.50"}'
const NOW = 1_800_000_000

const verify = (header: string | string[] | undefined, payload: string | Buffer = BODY, nowSeconds = NOW) =>
  verifyWebhookSignature({ payload, header, secret: SECRET, toleranceSeconds: 300, nowSeconds })

describe("webhook signature", () => {
  it("signs `<t>.<raw body>` with HMAC-SHA256, as documented", () => {
    const expected = createHmac("sha256", SECRET).update(`${NOW}.${BODY}`).digest("hex")
    expect(signWebhookPayload(BODY, SECRET, NOW)).toBe(`t=${NOW},v1=${expected}`)
  })

  it("accepts a fresh signature of the exact bytes, as a string or a Buffer", () => {
    const header = signWebhookPayload(BODY, SECRET, NOW)
    expect(verify(header)).toEqual({ ok: true, timestamp: NOW })
    expect(verify(header, Buffer.from(BODY))).toEqual({ ok: true, timestamp: NOW })
    expect(verify([header])).toEqual({ ok: true, timestamp: NOW })
  })

  it("accepts any of several v1 signatures (secret rotation) and ignores unknown schemes", () => {
    const good = signWebhookPayload(BODY, SECRET, NOW).split(",")[1]
    const old = signWebhookPayload(BODY, "whsec_old_secret_000000000", NOW).split(",")[1]
    expect(verify(`t=${NOW},${old},${good},v0=abc`)).toEqual({ ok: true, timestamp: NOW })
  })

  it("rejects a changed body, another secret and a re-used signature with a new timestamp", () => {
    const header = signWebhookPayload(BODY, SECRET, NOW)
    expect(verify(header, BODY.replace("10.50", "99.00"))).toEqual({ ok: false, reason: "mismatch" })
    expect(verify(signWebhookPayload(BODY, "whsec_other_0123456789", NOW))).toEqual({ ok: false, reason: "mismatch" })
    const replayed = header.replace(`t=${NOW}`, `t=${NOW + 60}`)
    expect(verify(replayed, BODY, NOW + 60)).toEqual({ ok: false, reason: "mismatch" })
  })

  it("enforces the 5-minute replay window both ways", () => {
    const header = signWebhookPayload(BODY, SECRET, NOW)
    expect(verify(header, BODY, NOW + 300)).toMatchObject({ ok: true })
    expect(verify(header, BODY, NOW + 301)).toEqual({ ok: false, reason: "stale" })
    expect(verify(header, BODY, NOW - 301)).toEqual({ ok: false, reason: "stale" })
  })

  it.each([
    [undefined, "missing"],
    ["", "missing"],
    ["v1=abc", "malformed"],
    [`t=${NOW}`, "malformed"],
    [`t=soon,v1=${"a".repeat(64)}`, "malformed"],
    [`t=${NOW},v1=${"z".repeat(64)}`, "malformed"],
    [`t=${NOW},v1=${"a".repeat(63)}`, "malformed"],
  ])("classifies the header %p as %s", (header, reason) => {
    expect(verify(header)).toEqual({ ok: false, reason })
  })
})
