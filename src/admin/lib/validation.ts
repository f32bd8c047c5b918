import { isUuidV4 } from "../../lib/uuid"
import { formsEn } from "../i18n/forms"
import { currencyDecimals } from "./format"

/** A form check's message key (`forms.check.*` of the admin's translations). */
export type CheckKey = keyof typeof formsEn.check

/**
 * Words a check's message in the admin's language (components pass the one
 * `useCheckWords()` of lib/i18n.ts gives); without one, English from the same table.
 */
export type SayCheck = (key: CheckKey, values?: Record<string, string | number>) => string

const english: SayCheck = (key, values = {}) =>
  formsEn.check[key].replace(/\{\{(\w+)\}\}/g, (_, name: string) => String(values[name] ?? ""))

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
export function parseScanIds(input: string, say: SayCheck = english): ScanIdParse {
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
    error = say("scanIdInvalid", { entry: invalid[0] })
  } else if (invalid.length > 1) {
    error = say("scanIdsInvalid", { count: invalid.length, entries: invalid.map((entry) => `"${entry}"`).join(", ") })
  } else if (ids.length === 0) {
    error = say("scanIdsMissing")
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
export function validateRecordChargeback(
  form: RecordChargebackForm,
  say: SayCheck = english
): FormErrors<RecordChargebackForm> {
  const errors: FormErrors<RecordChargebackForm> = {}
  if (!form.order_id.trim()) {
    errors.order_id = say("orderIdMissing")
  }
  if (!form.external_id.trim()) {
    errors.external_id = say("externalIdMissing")
  }
  const code = form.currency_code.trim()
  if (!/^[a-z]{3}$/i.test(code)) {
    errors.currency_code = say("currencyInvalid")
  }
  // The example follows the currency when it is known: 1234 for JPY, 1234.500 for KWD.
  const exampleDecimals = errors.currency_code ? 2 : currencyDecimals(code)
  const example = exampleDecimals === 0 ? "1234" : `1234.${"5".padEnd(exampleDecimals, "0")}`
  const amount = parseAmount(form.amount)
  const separatorsAdvice = say("amountSeparators", { example })
  if (amount.problem === "separators") {
    errors.amount = separatorsAdvice
  } else if (amount.problem === "ambiguous") {
    errors.amount = say("amountAmbiguous", { text: amount.text, advice: separatorsAdvice })
  } else if (!/^\d+(\.\d+)?$/.test(amount.text) || Number(amount.text) <= 0) {
    errors.amount = say("amountPositive")
  } else if (!errors.currency_code) {
    const decimals = currencyDecimals(code)
    const fraction = amount.text.split(".")[1] ?? ""
    if (fraction.length > decimals) {
      errors.amount =
        decimals === 0
          ? say("amountNoDecimals", { code: code.toUpperCase() })
          : say("amountDecimals", { code: code.toUpperCase(), decimals })
    }
  }
  if (form.due_by && Number.isNaN(new Date(`${form.due_by}T00:00:00`).getTime())) {
    errors.due_by = say("dateInvalid")
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
export function validateOrderId(value: string, say: SayCheck = english): string | null {
  const id = value.trim()
  if (!id) {
    return say("orderIdMissing")
  }
  if (/^#?\d+$/.test(id)) {
    return say("orderIdDisplayNumber", { id })
  }
  if (!/^order_[0-9A-Za-z]+$/.test(id)) {
    return say("orderIdInvalid", { id })
  }
  return null
}
