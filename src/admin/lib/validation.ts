import { isUuidV4 } from "../../lib/uuid"
import { currencyDecimals } from "./format"

// Checked before a request leaves the browser too: one bad scan id makes the service refuse the
// whole proof request (the server checks again).
export { isUuidV4 }

export type ScanIdParse = {
  /** Well-formed ids, lower-cased, without repeats, in input order. */
  ids: string[]
  /** Entries that are not UUIDv4, as typed. */
  invalid: string[]
  /** A message for the form, or null when the input can be sent. */
  error: string | null
}

/** Scan ids typed or pasted by an admin: one per line, or separated by commas, semicolons or spaces. */
export function parseScanIds(input: string): ScanIdParse {
  const entries = input
    .split(/[\s,;]+/)
    .map((entry) => entry.trim())
    .filter(Boolean)
  const ids: string[] = []
  const invalid: string[] = []
  for (const entry of entries) {
    if (isUuidV4(entry)) {
      const id = entry.toLowerCase()
      if (!ids.includes(id)) {
        ids.push(id)
      }
    } else {
      invalid.push(entry)
    }
  }
  let error: string | null = null
  if (invalid.length === 1) {
    error = `"${invalid[0]}" is not a valid scan id. Scan ids are UUIDv4, like 9b2f6c1e-3d4a-4f8b-a1c2-7e5d9f0b3a61.`
  } else if (invalid.length > 1) {
    error = `${invalid.length} entries are not valid scan ids: ${invalid
      .map((entry) => `"${entry}"`)
      .join(", ")}. Scan ids are UUIDv4, like 9b2f6c1e-3d4a-4f8b-a1c2-7e5d9f0b3a61.`
  } else if (ids.length === 0) {
    error = "Enter at least one scan id."
  }
  return { ids, invalid, error }
}

export type RecordChargebackForm = {
  order_id: string
  external_id: string
  amount: string
  currency_code: string
  reason: string
  reason_code: string
  /** `YYYY-MM-DD` from a date input. */
  due_by: string
}

export type FormErrors<T> = Partial<Record<keyof T, string>>

/**
 * Checks the record-chargeback form before it is sent, so an admin sees every
 * problem at once, next to its field, instead of one 400 at a time. The amount
 * check is stricter than the API's, which takes any non-negative decimal: here
 * it must be above zero, written without thousands separators (so it cannot be
 * misread), and have no more decimals than the currency's ISO 4217 minor unit,
 * the exponent the payment provider converts to minor units with.
 */
export function validateRecordChargeback(form: RecordChargebackForm): FormErrors<RecordChargebackForm> {
  const errors: FormErrors<RecordChargebackForm> = {}
  if (!form.order_id.trim()) {
    errors.order_id = "Enter the order's id (order_…)."
  }
  if (!form.external_id.trim()) {
    errors.external_id = "Enter the processor's dispute id; it keeps the chargeback from being recorded twice."
  }
  const code = form.currency_code.trim()
  if (!/^[a-z]{3}$/i.test(code)) {
    errors.currency_code = "Enter a three-letter currency code, like EUR."
  }
  // The example follows the currency when it is known: 1234 for JPY, 1234.500 for KWD.
  const exampleDecimals = errors.currency_code ? 2 : currencyDecimals(code)
  const example = exampleDecimals === 0 ? "1234" : `1234.${"5".padEnd(exampleDecimals, "0")}`
  const amount = parseAmount(form.amount)
  const separatorsAdvice = `Enter the disputed amount with digits and one decimal point, without thousands separators (like ${example}).`
  if (amount.problem === "separators") {
    errors.amount = separatorsAdvice
  } else if (amount.problem === "ambiguous") {
    errors.amount = `The comma in "${amount.text}" could be a thousands separator or a decimal comma. ${separatorsAdvice}`
  } else if (!/^\d+(\.\d+)?$/.test(amount.text) || Number(amount.text) <= 0) {
    errors.amount = "Enter the disputed amount, greater than zero."
  } else if (!errors.currency_code) {
    const decimals = currencyDecimals(code)
    const fraction = amount.text.split(".")[1] ?? ""
    if (fraction.length > decimals) {
      errors.amount =
        decimals === 0
          ? `${code.toUpperCase()} amounts have no decimals.`
          : `${code.toUpperCase()} amounts have at most ${decimals} decimals.`
    }
  }
  if (form.due_by && Number.isNaN(new Date(`${form.due_by}T00:00:00`).getTime())) {
    errors.due_by = "Enter a valid date."
  }
  return errors
}

type AmountParse = {
  /** The amount with a "." decimal point, or (when there is a problem) as typed without spaces. */
  text: string
  /** Why the separators cannot be read safely, or null. */
  problem: "separators" | "ambiguous" | null
}

/**
 * Reads the decimal separator of a typed amount. Spaces are dropped (they
 * never mark decimals). One "." is a decimal point; one "," is a decimal comma
 * as many European admins type it ("12,30"), except when exactly three digits
 * follow it: "1,250" is 1250 to an English reader and 1.25 to a German one,
 * which in KWD (three decimals) would record a thousandth of the dispute.
 * Anything with more separators ("1,234.56", "1.234.567") uses grouping, which
 * we refuse rather than guess the locale.
 */
function parseAmount(input: string): AmountParse {
  const text = input.replace(/\s/g, "")
  const separators = text.match(/[.,]/g) ?? []
  if (separators.length > 1) {
    return { text, problem: "separators" }
  }
  if (separators[0] === ",") {
    return /,\d{3}$/.test(text) ? { text, problem: "ambiguous" } : { text: text.replace(",", "."), problem: null }
  }
  return { text, problem: null }
}

/**
 * The disputed amount as the API takes it: a decimal string in major units.
 * A string, not a number, so "19.99" reaches the server's BigNumber exactly
 * instead of through a binary float. Call it on an amount that passed
 * {@link validateRecordChargeback}: one whose separators cannot be read safely
 * is returned as typed (without spaces), for the server to refuse rather than
 * to misread.
 */
export function normalizeAmount(text: string): string {
  return parseAmount(text).text
}

/**
 * A response deadline typed as a calendar date means "by the end of that day"
 * for the merchant, in their own time zone; we send that instant in ISO form.
 */
export function endOfLocalDay(date: string): string {
  const [year, month, day] = date.split("-").map(Number)
  return new Date(year, month - 1, day, 23, 59, 59, 999).toISOString()
}

/**
 * An order id typed by an admin (assigning a processor case to an order).
 * Medusa's order ids are `order_` and a ULID; the order's display number
 * ("#1042"), which is what the order list shows, is the likely mistake, so it
 * gets its own message. The server checks that the order exists.
 */
export function validateOrderId(value: string): string | null {
  const id = value.trim()
  if (!id) {
    return "Enter the order's id (order_…)."
  }
  if (/^#?\d+$/.test(id)) {
    return `"${id}" looks like the order's display number. Enter its id instead: open the order, and copy the id (order_…) from the address bar.`
  }
  if (!/^order_[0-9A-Za-z]+$/.test(id)) {
    return `"${id}" is not an order id. Order ids start with order_, like order_01JABCDEFGHJKMNPQRSTVWXYZ0.`
  }
  return null
}
