import type { validationOptions, XMLParser } from "fast-xml-parser"
import { overlongXmlTextRun } from "../../lib/xml-text-run"

/**
 * Why a Worldpay answer was refused before, or while, fast-xml-parser read it:
 * - `text-run`: a run of text longer than MAX_XML_TEXT_RUN starts at `at`
 *   (lib/xml-text-run: the parser's cost per character grows with a run's length);
 * - `doctype`: Worldpay never sends one, and refusing it keeps entity tricks out;
 * - `ill-formed`: the parser's validator refused the document.
 */
export type XmlRefusal =
  | { reason: "text-run"; at: number }
  | { reason: "doctype" }
  | { reason: "ill-formed"; cause: unknown }

/**
 * Parses an answer of either Worldpay API (cnpAPI, the Chargeback API) after
 * the checks both codecs need before trusting fast-xml-parser with it, in the
 * order of {@link XmlRefusal}, and validating as it parses: left to itself the
 * parser reads a document cut off in the middle without complaint.
 *
 * @param validation fast-xml-parser's validation options (`true`: its defaults).
 * @param refuse makes the codec's own error for a refusal; it is thrown.
 */
export function parseWorldpayXml(
  parser: XMLParser,
  xml: string,
  validation: validationOptions | true,
  refuse: (refusal: XmlRefusal) => Error
): unknown {
  const overlong = overlongXmlTextRun(xml)
  if (overlong !== undefined) {
    throw refuse({ reason: "text-run", at: overlong })
  }
  if (/<!DOCTYPE/i.test(xml)) {
    throw refuse({ reason: "doctype" })
  }
  try {
    return parser.parse(xml, validation)
  } catch (cause) {
    throw refuse({ reason: "ill-formed", cause })
  }
}

/** A parsed element's children and attributes, or undefined for text, a list or nothing. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined
}
