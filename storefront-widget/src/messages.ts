/**
 * The validation response codes the hosted form passes to its callback
 * (Worldpay eProtect's browser-side codes). `870` means the form is valid.
 */
export type ServiceScanResponseCode =
  | "870"
  | "871"
  | "872"
  | "873"
  | "874"
  | "875"
  | "876"
  | "881"
  | "882"
  | "883"
  | "886"
  | "889";

/**
 * Every text the package shows to shoppers. Pass a full replacement (another
 * language) or a partial override wherever a `messages` option is accepted;
 * missing keys fall back to the English defaults.
 */
export interface ServiceScanMessages extends Record<ServiceScanResponseCode, string> {
  /** Any response code not listed above. */
  unknown: string;
  /** `title` given to the form's iframe when the client script did not set one. */
  frameTitle: string;
  /** Shown when the client script could not be loaded. */
  loadFailed: string;
  /** Shown for a decline when Medusa gave no message of its own. */
  declined: string;
  /** Shown when Medusa refused the request (HTTP 4xx) without a message of its own. */
  rejected: string;
  /** Shown when Medusa is still completing this cart (HTTP 409): the payment may already be under way. */
  inProgress: string;
  /** Shown when the hosted form or Medusa could not be reached. */
  network: string;
  /** Legend of the saved-card choice. */
  payWith: string;
  /** A saved card whose brand is unknown. */
  card: string;
  /** Between a saved card's brand and its last four digits. */
  endingIn: string;
  /** The choice that shows the card form. */
  newCard: string;
  /** The checkbox that saves the form's card to the shopper's account. */
  saveCard: string;
}

/** The default (English) messages. Copy and translate it to localise the widget. */
export const serviceScanMessages: ServiceScanMessages = {
  870: "Your card details are complete.",
  871: "That card number isn't valid. Please check it for typos.",
  872: "That card number is too short. Please enter all the digits.",
  873: "That card number is too long. Please check it.",
  874: "The card number can only contain digits.",
  875: "We couldn't secure your card details. Please try again.",
  876: "That card number isn't valid. Please check it or use another card.",
  881: "The security code (CVV) can only contain digits.",
  882: "The security code (CVV) is too short.",
  883: "The security code (CVV) is too long.",
  886: "The expiry date isn't valid. Enter it as MM/YY.",
  889: "We couldn't check your card details. Please try again.",
  unknown: "We couldn't check your card details. Please try again.",
  frameTitle: "Secure card payment form",
  loadFailed: "The card form couldn't load. Please check your connection and reload the page.",
  declined: "Your card was declined. Please try another card.",
  rejected: "We couldn't place your order. Please review your cart and try again.",
  inProgress: "Your order is still being processed. Please wait a moment, then try again.",
  network: "We couldn't reach the payment service. Please check your connection and try again.",
  payWith: "Pay with",
  card: "Card",
  endingIn: "ending in",
  newCard: "Use another card",
  saveCard: "Save this card",
};

/** Merges overrides over the defaults; shared so every entry point falls back the same way. */
export const withMessages = (messages?: Partial<ServiceScanMessages>): ServiceScanMessages =>
  messages ? { ...serviceScanMessages, ...messages } : serviceScanMessages;

/**
 * A plain-language message for a form response code, for showing to the shopper.
 *
 * @param code - The code from the form callback (`"871"` or `871`); anything unknown gets `messages.unknown`.
 * @param messages - Replacement texts (e.g. another language); missing keys fall back to English.
 */
export function describeResponseCode(
  code: string | number | null | undefined,
  messages?: Partial<ServiceScanMessages>,
): string {
  const m = withMessages(messages);
  const key = String(code);
  // Only 3-digit codes index the table: keys like "unknown" or "toString" must not leak through.
  return (/^\d{3}$/.test(key) && m[key as ServiceScanResponseCode]) || m.unknown;
}
