import { CARD_BRANDS } from "../../lib/card-brands"
import { cardLabel as packCardLabel } from "../../lib/evidence-pack/document"
import { publicSavedCard, type SavedCard } from "../../providers/servicescan/saved-cards"
import { cardLabel } from "../lib/format"

/**
 * One card-brand table (lib/card-brands.ts) for everything that names a card:
 * the admin, the store API's saved cards (which the storefront widget shows as
 * sent: it keeps no table) and the evidence pack. They once disagreed: the
 * admin showed "JC •••• 1234" where the storefront said "JCB".
 */
const savedCard = (brand: string): SavedCard => ({
  id: "sscard_AAAAAAAAAAAAAAAAAAAAAA",
  sealed_token: "sealed",
  fingerprint: "fingerprint",
  brand,
  last4: "1234",
  scan_id: "3f1c2b9e-7a4d-4c21-9b8e-0d5f6a7b8c9d",
  payment_id: "pay_1",
  saved_at: "2026-01-01T00:00:00.000Z",
})

it.each(Object.entries(CARD_BRANDS))("%s is %s in the admin, the store API and the evidence pack alike", (code, brand) => {
  expect(cardLabel(code, "1234")).toBe(`${brand} •••• 1234`)
  expect(publicSavedCard(savedCard(code)).brand).toBe(brand)
  expect(packCardLabel(code, "1234")).toBe(`${brand} (${code}) ending in 1234`)
})

it("names JCB as the storefront does", () => {
  expect(cardLabel("JC", "1234")).toBe("JCB •••• 1234")
})
