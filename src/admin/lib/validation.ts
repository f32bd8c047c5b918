import { currencyDecimals } from "./format"

/**
 * A UUID of version 4 with the RFC 4122 variant, the only scan id shape the
 * service accepts (a single bad id makes it refuse the whole proof request,
 * so we catch it before the request leaves the browser; the server checks too).
 */
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i

export function isUuidV4(value: string): boolean {
  return UUID_V4.test(value)
}

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
 * Checks the record-chargeback form the way the server will, so an admin sees
 * every problem at once, next to its field, instead of one 400 at a time.
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
  const amountText = normalizeAmount(form.amount)
  if (!/^\d+(\.\d+)?$/.test(amountText) || Number(amountText) <= 0) {
    errors.amount = "Enter the disputed amount, greater than zero."
  } else if (!errors.currency_code) {
    const decimals = currencyDecimals(code)
    const fraction = amountText.split(".")[1] ?? ""
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

/**
 * The disputed amount as the API takes it: a decimal string in major units.
 * A string, not a number, so "19.99" reaches the server's BigNumber exactly
 * instead of through a binary float.
 */
export function normalizeAmount(text: string): string {
  return text.trim().replace(/\s/g, "").replace(",", ".")
}

/**
 * A response deadline typed as a calendar date means "by the end of that day"
 * for the merchant, in their own time zone; we send that instant in ISO form.
 */
export function endOfLocalDay(date: string): string {
  const [year, month, day] = date.split("-").map(Number)
  return new Date(year, month - 1, day, 23, 59, 59, 999).toISOString()
}
