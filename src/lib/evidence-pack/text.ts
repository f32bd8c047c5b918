/**
 * Text for pdf-lib's standard fonts. They encode WinAnsi (Windows-1252) only, and
 * pdf-lib throws on anything else, so every string the pack draws passes through
 * `toEncodable` first: a customer called "Łukasz 山田 🎉" must never stop a pack.
 */

/** Letters that have no Unicode decomposition to a Latin base but an obvious ASCII reading. */
const TRANSLITERATIONS: Record<string, string> = {
  "ł": "l",
  "Ł": "L",
  "đ": "d",
  "Đ": "D",
  "ħ": "h",
  "Ħ": "H",
  "ı": "i",
  "ŧ": "t",
  "Ŧ": "T",
  "ŋ": "n",
  "Ŋ": "N",
  "ĸ": "k",
  "ə": "e",
  "Ə": "E",
  "ȷ": "j",
  "‐": "-",
  "‑": "-",
  "‒": "-",
  "―": "-",
  "−": "-",
  "′": "'",
  "″": '"',
  "⁄": "/",
  "‛": "'",
  "‟": '"',
}

/** What the pack draws in place of a character no transliteration covers. */
export const REPLACEMENT = "?"

const WHITESPACE = /\s/u
// Controls and invisible format characters (zero-width joiners, BOM, bidi marks).
const INVISIBLE = /^[\p{Cc}\p{Cf}]$/u
const COMBINING_MARK = /^\p{M}$/u
const LINE_CONTROLS = /^[\t\n\v\f\r\u0085]$/u

/**
 * Returns `text` with every character the font cannot encode transliterated
 * ("ş" -> "s", "ﬁ" -> "fi", "Ł" -> "L") or replaced by "?", whitespace (line breaks
 * and tabs included) as single spaces, and invisible characters removed. Total:
 * never throws, whatever the input (lone surrogates included).
 */
export function toEncodable(text: string, canEncode: (codePoint: number) => boolean): string {
  let out = ""
  let pendingSpace = false
  for (const char of text.normalize("NFC")) {
    // Line breaks and tabs are controls too, but they separate words; a BOM counts as \s but separates nothing.
    if (INVISIBLE.test(char) && !LINE_CONTROLS.test(char)) continue
    if (WHITESPACE.test(char)) {
      pendingSpace = true
      continue
    }
    const codePoint = char.codePointAt(0) ?? 0
    const encoded = encodeOne(char, codePoint, canEncode)
    if (encoded === "") continue
    if (pendingSpace && out !== "") out += " "
    pendingSpace = false
    out += encoded
  }
  return out
}

function encodeOne(char: string, codePoint: number, canEncode: (codePoint: number) => boolean): string {
  if (canEncode(codePoint)) return char
  const mapped = TRANSLITERATIONS[char]
  if (mapped !== undefined) return mapped
  // Compatibility decomposition: accents come apart from their letter, ligatures and
  // full-width forms become plain letters. Keep what the font has, drop the marks.
  let decomposed = ""
  for (const part of char.normalize("NFKD")) {
    // A spacing accent ("˘") decomposes to a space and its mark: neither is a reading of it.
    if (COMBINING_MARK.test(part) || WHITESPACE.test(part)) continue
    const partCodePoint = part.codePointAt(0) ?? 0
    if (canEncode(partCodePoint)) decomposed += part
    else if (TRANSLITERATIONS[part] !== undefined) decomposed += TRANSLITERATIONS[part]
    else return REPLACEMENT
  }
  if (decomposed !== "") return decomposed
  // A lone combining mark: its base was drawn already.
  return COMBINING_MARK.test(char) ? "" : REPLACEMENT
}

/** "1,234,567" (grouping with commas, as the rest of the document is in English). */
export function formatInteger(value: number): string {
  return Math.round(value)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ",")
}

/** Bytes for a person: "812 kB", "1.9 MB" (1 kB = 1024 bytes, as processors state their limits). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`
  if (bytes < 1024 * 1024) return `${formatInteger(bytes / 1024)} kB`
  const megabytes = bytes / (1024 * 1024)
  return `${Number.isInteger(megabytes) ? megabytes : megabytes.toFixed(1)} MB`
}

/**
 * A timestamp as "2025-03-01 14:05:09 UTC" (time zones stated, never the machine's).
 * What does not parse as a date is shown as given, so nothing is lost.
 */
export function formatTimestamp(value: string | null | undefined): string | null {
  if (value === null || value === undefined || value.trim() === "") return null
  const trimmed = value.trim()
  // A bare date stays a date: the processor's reply-by day has no time.
  if (/^\d{4}-\d{2}-\d{2}$/.test(trimmed)) return trimmed
  const date = new Date(trimmed)
  if (Number.isNaN(date.getTime())) return value
  return formatDate(date)
}

export function formatDate(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`
}

/** A value for display: null, undefined and blank become null so a row can say "not recorded". */
export function present(value: string | number | null | undefined): string | null {
  if (value === null || value === undefined) return null
  const text = String(value)
  return text.trim() === "" ? null : text
}
