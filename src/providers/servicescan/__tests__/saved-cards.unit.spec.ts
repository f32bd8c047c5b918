import {
  deriveSavedCardKeys,
  isSavedCardId,
  MAX_SAVED_CARDS,
  openToken,
  publicSavedCard,
  SavedCard,
  savedCardIdFor,
  sealToken,
  ServiceScanAccountHolderData,
  tokenFingerprint,
  withoutSavedCard,
  withSavedCard,
} from "../saved-cards"

const SECRET = "saved-cards-secret-for-unit-specs-0123456789"
const TOKEN = "1111000276870123"
const keys = deriveSavedCardKeys(SECRET)
const binding = { customerId: "cus_01A", cardId: "sscard_AAAAAAAAAAAAAAAAAAAAAA" }

function card(overrides: Partial<SavedCard> = {}): SavedCard {
  const fingerprint = overrides.fingerprint ?? tokenFingerprint(keys, TOKEN)
  const id = overrides.id ?? savedCardIdFor(keys, "cus_01A", fingerprint)
  return {
    id,
    sealed_token: sealToken(keys, TOKEN, { customerId: "cus_01A", cardId: id }),
    fingerprint,
    brand: "VI",
    last4: "0123",
    scan_id: "3f1c2b9e-7a4d-4c21-9b8e-0d5f6a7b8c9d",
    payment_id: "pay_1",
    saved_at: "2026-01-01T00:00:00.000Z",
    ...overrides,
  }
}

describe("sealed tokens", () => {
  it("open for the customer and card they were sealed for", () => {
    const sealed = sealToken(keys, TOKEN, binding)
    expect(sealed).not.toContain(TOKEN)
    expect(openToken(keys, sealed, binding)).toBe(TOKEN)
  })

  it("never open for another customer, another card, another secret, or once altered", () => {
    const sealed = sealToken(keys, TOKEN, binding)
    expect(openToken(keys, sealed, { ...binding, customerId: "cus_01B" })).toBeUndefined()
    expect(openToken(keys, sealed, { ...binding, cardId: "sscard_BBBBBBBBBBBBBBBBBBBBBB" })).toBeUndefined()
    expect(openToken(deriveSavedCardKeys(`${SECRET}-rotated`), sealed, binding)).toBeUndefined()
    const raw = Buffer.from(sealed.slice(3), "base64url")
    raw[14] ^= 1
    expect(openToken(keys, `v1.${raw.toString("base64url")}`, binding)).toBeUndefined()
    expect(openToken(keys, "v2.abc", binding)).toBeUndefined()
    expect(openToken(keys, "v1.", binding)).toBeUndefined()
  })

  it("are sealed with a fresh nonce each time", () => {
    expect(sealToken(keys, TOKEN, binding)).not.toBe(sealToken(keys, TOKEN, binding))
  })
})

describe("fingerprints and card ids", () => {
  it("are stable for a token, keyed by the secret, and never contain the token", () => {
    const fingerprint = tokenFingerprint(keys, TOKEN)
    expect(tokenFingerprint(keys, TOKEN)).toBe(fingerprint)
    expect(tokenFingerprint(keys, "1111000276870124")).not.toBe(fingerprint)
    expect(tokenFingerprint(deriveSavedCardKeys(`${SECRET}-other`), TOKEN)).not.toBe(fingerprint)
    expect(fingerprint).not.toContain(TOKEN.slice(-4))
  })

  it("give the same card the same id for one customer, and another id for another customer", () => {
    const fingerprint = tokenFingerprint(keys, TOKEN)
    const id = savedCardIdFor(keys, "cus_01A", fingerprint)
    expect(isSavedCardId(id)).toBe(true)
    expect(savedCardIdFor(keys, "cus_01A", fingerprint)).toBe(id)
    expect(savedCardIdFor(keys, "cus_01B", fingerprint)).not.toBe(id)
  })
})

describe("the account holder's cards", () => {
  const empty: ServiceScanAccountHolderData = { customer_id: "cus_01A", cards: [] }

  it("keep a card saved twice once", () => {
    const first = card()
    const again = card({ saved_at: "2026-02-01T00:00:00.000Z", scan_id: null })
    const data = withSavedCard(withSavedCard(empty, first), again)
    expect(data.cards).toHaveLength(1)
  })

  it(`keep at most ${MAX_SAVED_CARDS}, dropping the one saved longest ago`, () => {
    let data = empty
    for (let i = 0; i < MAX_SAVED_CARDS + 2; i++) {
      const fingerprint = tokenFingerprint(keys, `11110002768${String(70000 + i)}`)
      data = withSavedCard(data, card({ fingerprint, saved_at: `2026-01-${String(i + 1).padStart(2, "0")}T00:00:00.000Z` }))
    }
    expect(data.cards).toHaveLength(MAX_SAVED_CARDS)
    expect(data.cards[0].saved_at).toBe("2026-01-03T00:00:00.000Z")
  })

  it("lose a removed card and keep the others, and keys they do not know", () => {
    const other = card({ fingerprint: tokenFingerprint(keys, "1111000276879999") })
    const data = withSavedCard(withSavedCard({ ...empty, note: "kept" } as ServiceScanAccountHolderData, card()), other)
    const after = withoutSavedCard(data, card().id)
    expect(after.cards.map((c) => c.id)).toEqual([other.id])
    expect((after as Record<string, unknown>).note).toBe("kept")
  })

  it("show a shopper the brand and last four, never the token or its fingerprint", () => {
    const shown = publicSavedCard(card())
    expect(shown).toEqual({ brand: "Visa", last4: "0123", saved_at: "2026-01-01T00:00:00.000Z" })
    expect(JSON.stringify(shown)).not.toContain(card().fingerprint)
  })
})
