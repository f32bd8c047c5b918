import * as crypto from "node:crypto";
import { TEST_CARDS } from "../../test-cards";
import { cardType } from "../../util";
import { referenceFrom } from "./state";

/**
 * What Adyen does with each of the sandbox's test cards. The cards and what they are meant to do
 * are the sandbox's one list (test-cards.ts, shared with Worldpay, the frame and the README);
 * this file only says how Adyen expresses each outcome.
 */

/** `refusalReasonCode` (a string, as Adyen sends it), `refusalReason`, and the raw acquirer answer. */
export interface Refusal {
  code: string;
  reason: string;
  raw: string;
}

/** docs.adyen.com/development-resources/refusal-reasons */
export const REFUSALS = {
  refused: { code: "2", reason: "Refused", raw: "05 : Do not honor" },
  expiredCard: { code: "6", reason: "Expired Card", raw: "54 : Expired card" },
  notEnoughBalance: { code: "12", reason: "Not enough balance", raw: "51 : Insufficient funds" },
} as const satisfies Record<string, Refusal>;

export type CardBehaviour = { kind: "authorise" } | { kind: "refuse"; refusal: Refusal } | { kind: "untokenizable" };

/** The outcomes test-cards.ts names, in Adyen's terms. */
const BY_OUTCOME: Readonly<Record<string, CardBehaviour>> = {
  approves: { kind: "authorise" },
  "scan labelled fraud": { kind: "authorise" },
  "insufficient funds": { kind: "refuse", refusal: REFUSALS.notEnoughBalance },
  "do not honor": { kind: "refuse", refusal: REFUSALS.refused },
  "expired card": { kind: "refuse", refusal: REFUSALS.expiredCard },
  "tokenization fails": { kind: "untokenizable" },
};

/**
 * Built when the module loads, so a test card added with an outcome Adyen has no rule for stops
 * the sandbox at once instead of quietly approving.
 */
const BY_CARD: ReadonlyMap<string, CardBehaviour> = new Map(
  TEST_CARDS.map((card) => {
    const behaviour = BY_OUTCOME[card.outcome];
    if (!behaviour) throw new Error(`test card ${card.number} has the outcome "${card.outcome}", for which the Adyen simulation has no rule`);
    return [card.number, behaviour];
  }),
);

/** Any other card behaves like 4111111111111111: it authorises. */
export function behaviourOf(cardNumber: string): CardBehaviour {
  return BY_CARD.get(cardNumber) ?? { kind: "authorise" };
}

const BRANDS = { VI: "visa", MC: "mc", AX: "amex", DI: "discover" } as const;

/** Adyen's payment method variant for a card number ("card" when the sandbox cannot tell). */
export function brandOf(cardNumber: string): string {
  const type = cardType(cardNumber);
  return type ? BRANDS[type] : "card";
}

/**
 * The stored payment method id: 16 characters like Adyen's, the same for the same card stored for
 * the same shopper at the same merchant (Adyen answers `alreadyExisting` then), different otherwise.
 */
export function storedPaymentMethodId(merchantAccount: string, shopperReference: string, cardNumber: string): string {
  return referenceFrom(crypto.createHash("sha256").update(`${merchantAccount}\n${shopperReference}\n${cardNumber}`).digest());
}

/** `MM/YY` or `MM/YYYY` as the form took it, as Adyen's expiryMonth ("03") and expiryYear ("2030"). */
export function parseExpiry(expiry: string): { month: string; year: string } | null {
  const match = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(expiry);
  if (!match) return null;
  const [, month = "", year = ""] = match;
  return { month: month.padStart(2, "0"), year: year.length === 2 ? `20${year}` : year };
}

/** A card is good through the end of its expiry month (UTC). */
export function expired(month: string, year: string, now: Date): boolean {
  return Number(year) * 12 + Number(month) < now.getUTCFullYear() * 12 + now.getUTCMonth() + 1;
}
