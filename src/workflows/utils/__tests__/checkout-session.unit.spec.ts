import {
  checkoutLockKey,
  CheckoutSession,
  checkoutRefusal,
  hasRivalSessions,
  NEW_SESSION_REQUIRED,
  pickServiceScanSession,
  refusalName,
  SAVED_CARD_OWNER_REQUIRED,
  savedCardSessionRefusal,
  sessionSavedCard,
} from "../checkout-session"

const session = (id: string, provider_id: string, status = "pending"): CheckoutSession => ({
  id,
  provider_id,
  payment_collection_id: "pay_col_1",
  status,
  data: {},
  payment: null,
})
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
    expect(sessionSavedCard(card)).toEqual({ card_id: "sscard_1", customer_id: "cus_1", expires_at: null })
    expect(sessionSavedCard({ ...card, data: { ...card.data, form_id: "f" } })).toBeNull()
    expect(sessionSavedCard({ ...card, data: { payment_method_id: "sscard_1" } })).toEqual({ card_id: "sscard_1", customer_id: null, expires_at: null })
  })
})

describe("who may complete a session with a saved card, and until when", () => {
  const now = new Date("2026-01-01T12:00:00.000Z")
  const card = (expires_at?: string): CheckoutSession => ({
    ...session("a", ours),
    data: { payment_method_id: "sscard_1", form_config: { customerId: "cus_owner" }, saved_card: { id: "sscard_1", expires_at } },
  })

  it("refuses a guest and another customer, in that order of asking, whatever the deadline", () => {
    expect(savedCardSessionRefusal(card("2026-01-01T12:10:00.000Z"), null, now)).toBe("savedCardSignIn")
    expect(savedCardSessionRefusal(card("2026-01-01T12:10:00.000Z"), "cus_other", now)).toBe("savedCardNotYours")
    expect(refusalName("savedCardSignIn")).toBe(SAVED_CARD_OWNER_REQUIRED)
    expect(refusalName("savedCardNotYours")).toBe(SAVED_CARD_OWNER_REQUIRED)
  })

  it("lets the owner pay before the deadline, and asks them to choose the card again at it, after it, or without one", () => {
    expect(savedCardSessionRefusal(card("2026-01-01T12:00:00.001Z"), "cus_owner", now)).toBeNull()
    expect(savedCardSessionRefusal(card("2026-01-01T12:00:00.000Z"), "cus_owner", now)).toBe("savedCardChooseAgain")
    expect(savedCardSessionRefusal(card("2025-12-31T12:00:00.000Z"), "cus_owner", now)).toBe("savedCardChooseAgain")
    expect(savedCardSessionRefusal(card(), "cus_owner", now)).toBe("savedCardChooseAgain")
    expect(savedCardSessionRefusal(card("not a date"), "cus_owner", now)).toBe("savedCardChooseAgain")
    // The storefront starts a new session by itself: the card chosen again.
    expect(refusalName("savedCardChooseAgain")).toBe(NEW_SESSION_REQUIRED)
  })

  it("says nothing of a session with a form, or one that already holds a payment", () => {
    expect(savedCardSessionRefusal({ ...session("a", ours), data: { form_id: "f" } }, null, now)).toBeNull()
    expect(savedCardSessionRefusal({ ...card(), payment: { id: "pay_1", canceled_at: null } }, null, now)).toBeNull()
  })

  it("locks one completion at a time per form id, or per session for a saved card", () => {
    expect(checkoutLockKey({ id: "payses_1", data: { form_id: "ABC" } })).toBe("servicescan:checkout:abc")
    expect(checkoutLockKey(card())).toBe("servicescan:checkout:a")
  })
})
