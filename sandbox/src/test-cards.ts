export interface TestCard {
  number: string;
  brand: "Visa" | "Mastercard" | "American Express";
  /** the short text of the frame's chooser */
  outcome: string;
  /** the full text of the CLI banner and README */
  label: string;
}

/**
 * The documented test cards, in one place for the frame's "Scan card" chooser, the tests and the
 * README. Behaviour itself lives in cnp.ts (declines, tokenization) and disputes.ts (fraud label).
 */
export const TEST_CARDS: readonly TestCard[] = [
  { number: "4457119922390123", brand: "Visa", outcome: "approves", label: "Approves (certification card, token 1111000276870123)" },
  { number: "4111111111111111", brand: "Visa", outcome: "approves", label: "Approves" },
  { number: "5555555555554444", brand: "Mastercard", outcome: "approves", label: "Approves" },
  { number: "378282246310005", brand: "American Express", outcome: "approves", label: "Approves" },
  { number: "4000000000009995", brand: "Visa", outcome: "insufficient funds", label: "Declines: 110 Insufficient Funds" },
  { number: "4000000000000002", brand: "Visa", outcome: "do not honor", label: "Declines: 349 Do Not Honor" },
  { number: "4000000000000069", brand: "Visa", outcome: "expired card", label: "Declines: 305 Expired Card" },
  { number: "4457119999999996", brand: "Visa", outcome: "tokenization fails", label: "Tokenization fails: 820 Credit card number was invalid" },
  { number: "4000000000000259", brand: "Visa", outcome: "scan labelled fraud", label: "Approves; its scan is labelled fraud" },
];
