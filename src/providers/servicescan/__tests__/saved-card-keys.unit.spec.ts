import { createCipheriv, hkdfSync, randomBytes } from "node:crypto"
import {
  openSealedToken,
  openToken,
  readAccountHolderData,
  resealSavedCards,
  SavedCard,
  savedCardIdFor,
  savedCardKeys,
  sealToken,
  ServiceScanAccountHolderData,
  tokenFingerprint,
} from "../saved-cards"
import { createProvider, CUSTOMER_ID } from "./helpers"

/**
 * Rotating the saved-cards secret: a keyring seals tokens, the fingerprints
 * stay keyed by one stable secret, and no rotation ever drops a card.
 */
const OLD = "saved-cards-old-secret-0123456789abcdef-01"
const NEW = "saved-cards-new-secret-0123456789abcdef-02"
const TOKEN = "1111000276870123"
const OTHER_CUSTOMER = "cus_01JB8XKQ7YV2M3N4P5Q6R7S8BB"

const before = savedCardKeys({ secret: OLD })
const rotated = savedCardKeys({ secret: [{ id: "2026", secret: NEW }, { id: "default", secret: OLD }], fingerprintSecret: OLD })
const after = savedCardKeys({ secret: [{ id: "2026", secret: NEW }], fingerprintSecret: OLD })

function cardUnder(keys: typeof before, token = TOKEN, customerId = CUSTOMER_ID): SavedCard {
  const fingerprint = tokenFingerprint(keys, token)
  const id = savedCardIdFor(keys, customerId, fingerprint)
  return {
    id,
    sealed_token: sealToken(keys, token, { customerId, cardId: id }),
    fingerprint,
    brand: "VI",
    last4: token.slice(-4),
    scan_id: null,
    payment_id: "pay_1",
    saved_at: "2026-01-01T00:00:00.000Z",
  }
}

/** A token as the plugin sealed it before keyrings (`v1.`, the key derived from the one secret). */
function sealedBeforeKeyrings(secret: string, token: string, customerId: string, cardId: string): string {
  const key = Buffer.from(hkdfSync("sha256", Buffer.from(secret, "utf8"), Buffer.alloc(0), "servicescan saved cards: seal v1", 32))
  const nonce = randomBytes(12)
  const cipher = createCipheriv("aes-256-gcm", key, nonce)
  cipher.setAAD(Buffer.from(`v1|${customerId}|${cardId}`, "utf8"))
  const body = Buffer.concat([cipher.update(token, "utf8"), cipher.final()])
  return `v1.${Buffer.concat([nonce, body, cipher.getAuthTag()]).toString("base64url")}`
}

const holder = (...cards: SavedCard[]): ServiceScanAccountHolderData => ({ customer_id: CUSTOMER_ID, cards })

describe("saved-card keys", () => {
  it("a token sealed before keyrings opens with the one secret, and with any ring that holds it", () => {
    const card = cardUnder(before)
    const legacy = sealedBeforeKeyrings(OLD, TOKEN, CUSTOMER_ID, card.id)
    const binding = { customerId: CUSTOMER_ID, cardId: card.id }
    expect(openToken(before, legacy, binding)).toBe(TOKEN)
    expect(openSealedToken(rotated, legacy, binding)).toMatchObject({ ok: true, keyId: "default" })
    // Without the secret it was sealed under, it cannot be told from a card whose key was removed: kept.
    expect(openSealedToken(after, legacy, binding)).toEqual({ ok: false, reason: "unknown-key" })
    expect(openToken(before, legacy, { ...binding, customerId: OTHER_CUSTOMER })).toBeUndefined()
  })

  it("fingerprints and card ids do not change when the seal rotates", () => {
    expect(tokenFingerprint(rotated, TOKEN)).toBe(tokenFingerprint(before, TOKEN))
    expect(tokenFingerprint(after, TOKEN)).toBe(tokenFingerprint(before, TOKEN))
    const card = cardUnder(before)
    expect(savedCardIdFor(after, CUSTOMER_ID, card.fingerprint)).toBe(card.id)
  })

  it("re-sealing moves every card to the newest key, keeping its id, after which the old key can go", () => {
    const old = cardUnder(before)
    const legacyCard = { ...cardUnder(before, "1111000276870456"), saved_at: "2026-01-02T00:00:00.000Z" }
    legacyCard.sealed_token = sealedBeforeKeyrings(OLD, "1111000276870456", CUSTOMER_ID, legacyCard.id)
    const result = resealSavedCards(rotated, holder(old, legacyCard))
    expect(result).toMatchObject({ resealed: 2, unopened: [], dropped: 0 })
    expect(result.cards.map((card) => card.id)).toEqual([old.id, legacyCard.id])
    expect(result.cards.every((card) => card.sealed_token.startsWith("k1.2026."))).toBe(true)
    expect(openToken(after, result.cards[0].sealed_token, { customerId: CUSTOMER_ID, cardId: old.id })).toBe(TOKEN)
    expect(openToken(after, result.cards[1].sealed_token, { customerId: CUSTOMER_ID, cardId: legacyCard.id })).toBe("1111000276870456")
    // Nothing left to do the second time.
    expect(resealSavedCards(rotated, holder(...result.cards))).toMatchObject({ resealed: 0, cards: result.cards })
  })

  it("keeps, never drops, a card whose key is not configured; drops one its own key refuses", () => {
    const orphan = cardUnder(before)
    const kept = resealSavedCards(after, holder(orphan))
    expect(kept).toEqual({ cards: [orphan], resealed: 0, unopened: ["default"], dropped: 0 })
    // A secret replaced under the same id is a missing key too.
    const replaced = savedCardKeys({ secret: NEW, fingerprintSecret: OLD })
    expect(resealSavedCards(replaced, holder(orphan))).toMatchObject({ cards: [orphan], dropped: 0 })
    // Another customer's card, copied into this record: its key is here, and refuses it.
    const copied = cardUnder(rotated, TOKEN, OTHER_CUSTOMER)
    expect(resealSavedCards(rotated, holder(copied))).toMatchObject({ cards: [], dropped: 1 })
  })

  it("recomputes fingerprints when the fingerprint secret changes, keeping card ids", () => {
    const card = cardUnder(before)
    const newFingerprints = savedCardKeys({ secret: [{ id: "2026", secret: NEW }, { id: "default", secret: OLD }], fingerprintSecret: NEW })
    const result = resealSavedCards(newFingerprints, holder(card))
    expect(result.resealed).toBe(1)
    expect(result.cards[0]).toMatchObject({ id: card.id, fingerprint: tokenFingerprint(newFingerprints, TOKEN) })
    expect(result.cards[0].fingerprint).not.toBe(card.fingerprint)
  })

  describe("through the provider", () => {
    const rotatedOptions = { savedCards: { secret: [{ id: "2026", secret: NEW }, { id: "default", secret: OLD }], fingerprintSecret: OLD } }
    const afterOptions = { savedCards: { secret: [{ id: "2026", secret: NEW }], fingerprintSecret: OLD } }

    it("a rotation keeps every card listed and usable; a write re-seals them; the old secret can then go", async () => {
      const card = cardUnder(before)
      const { provider: rotatedProvider, logger } = createProvider(rotatedOptions)
      const data = holder(card)
      expect(await rotatedProvider.listPaymentMethods({ context: { account_holder: { data } } })).toEqual([
        { id: card.id, data: expect.objectContaining({ last4: "0123" }) },
      ])
      const written = readAccountHolderData((await rotatedProvider.updateAccountHolder({ context: { account_holder: { data } } })).data)
      expect(written?.cards.map((c) => c.id)).toEqual([card.id])
      expect(written?.cards[0].sealed_token.startsWith("k1.2026.")).toBe(true)
      expect(logger.text()).toMatch(/saved_cards_resealed/)
      expect(logger.text()).not.toContain(NEW)
      expect(logger.text()).not.toContain(OLD)

      const { provider: afterProvider } = createProvider(afterOptions)
      expect(await afterProvider.listPaymentMethods({ context: { account_holder: { data: written ?? {} } } })).toHaveLength(1)
    })

    it("a secret changed without keeping the old one hides the cards and keeps them, with a warning naming the key", async () => {
      const card = cardUnder(before)
      const { provider, logger } = createProvider({ savedCards: { secret: NEW } })
      const data = holder(card)
      expect(await provider.listPaymentMethods({ context: { account_holder: { data } } })).toEqual([])
      const written = readAccountHolderData((await provider.updateAccountHolder({ context: { account_holder: { data } } })).data)
      expect(written?.cards).toEqual([card])
      expect(logger.text()).toMatch(/saved_cards_unopened/)
      expect(logger.text()).toMatch(/default/)
      // The old secret back: the card is usable again.
      const { provider: restored } = createProvider({ savedCards: { secret: OLD } })
      expect(await restored.listPaymentMethods({ context: { account_holder: { data: written ?? {} } } })).toHaveLength(1)
    })
  })
})
