import { CheckoutSession, checkoutRefusal, hasRivalSessions, pickServiceScanSession, sessionSavedCard } from "../checkout-session"

const session = (id: string, provider_id: string, status = "pending"): CheckoutSession => ({ id, provider_id, status, data: {}, payment: null })
const ours = "pp_servicescan_servicescan"
const system = "pp_system_default"

describe("the session a cart completion pays with", () => {
  it("picks the first processable session when it is ServiceScan's, and nothing otherwise", () => {
    expect(pickServiceScanSession([session("a", ours)])?.id).toBe("a")
    expect(pickServiceScanSession([session("a", ours, "canceled"), session("b", ours)])?.id).toBe("b")
    expect(pickServiceScanSession([session("a", system)])).toBeNull()
    expect(pickServiceScanSession([])).toBeNull()
  })

  it("calls a cart ambiguous when two sessions Medusa could authorize are there, one of them ServiceScan's", () => {
    expect(hasRivalSessions([session("a", ours), session("b", system)])).toBe(true)
    expect(hasRivalSessions([session("a", system), session("b", ours)])).toBe(true)
    expect(hasRivalSessions([session("a", ours), session("b", ours, "authorized")])).toBe(true)
    // Sessions Medusa would not pick from do not count, nor two of another provider's.
    expect(hasRivalSessions([session("a", ours), session("b", ours, "canceled"), session("c", system, "error")])).toBe(false)
    expect(hasRivalSessions([session("a", system), session("b", system)])).toBe(false)
    expect(hasRivalSessions([session("a", ours), null])).toBe(false)
  })

  it("refuses a canceled payment, then a spent form, then a removed saved card; lets a live payment through", () => {
    const base = session("a", ours)
    expect(checkoutRefusal({ ...base, payment: { id: "pay_1", canceled_at: new Date() } }, ["other"], true)).toBe("canceled")
    expect(checkoutRefusal(base, ["other"], false)).toBe("formSpent")
    expect(checkoutRefusal(base, [], true)).toBe("savedCardRemoved")
    expect(checkoutRefusal(base, [], false)).toBeNull()
    // A repeated completion of a session that already paid is Medusa's to answer (with the order).
    expect(checkoutRefusal({ ...base, payment: { id: "pay_1", canceled_at: null } }, ["other"], true)).toBeNull()
  })

  it("reads a saved card only from a session without a form id", () => {
    const card = { ...session("a", ours), data: { payment_method_id: "sscard_1", form_config: { customerId: "cus_1" } } }
    expect(sessionSavedCard(card)).toEqual({ card_id: "sscard_1", customer_id: "cus_1" })
    expect(sessionSavedCard({ ...card, data: { ...card.data, form_id: "f" } })).toBeNull()
    expect(sessionSavedCard({ ...card, data: { payment_method_id: "sscard_1" } })).toEqual({ card_id: "sscard_1", customer_id: null })
  })
})
