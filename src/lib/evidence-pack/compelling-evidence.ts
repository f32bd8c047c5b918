/**
 * The pack's Visa Compelling Evidence 3.0 section (a Visa 10.4 case): the
 * earlier transactions on the same card that qualify, with their dates,
 * amounts, order numbers and the data elements they share with the disputed
 * one, or why the case does not qualify. The acquirer needs the values
 * themselves (the IP address, the device id), so they are printed here; the
 * pack is sealed at rest and goes only to the processor.
 */
import { CE3_ELEMENT_LABELS, CE3_ELEMENTS, CE3_MAX_DAYS, CE3_MIN_DAYS, CE3_REASON_TEXT, type Ce3Result } from "../compelling-evidence"
import { COLORS, type PackWriter } from "./layout"
import { formatTimestamp } from "./text"

/** The section's heading (the cover's contents name it too). */
export const CE3_HEADING = "Visa Compelling Evidence 3.0"

/** One line for the cover: qualifies, with how many prior transactions, or not. */
export function ce3SummaryLine(result: Ce3Result): string {
  return result.qualifies
    ? `Qualifies: ${result.priors.length} prior undisputed transactions on the same card`
    : `Does not qualify: ${CE3_REASON_TEXT[result.reason ?? "too_few_matches"]}`
}

/** Writes the section; nothing for a case CE 3.0 does not apply to. */
export function compellingEvidenceSection(writer: PackWriter, result: Ce3Result | null | undefined): void {
  if (!result?.applicable) return
  writer.heading(CE3_HEADING)
  writer.paragraph(
    "Visa reason code 10.4 (Other Fraud - Card-Absent Environment). Under Compelling Evidence 3.0 the merchant shows at least two " +
      `earlier transactions on the same card, made ${CE3_MIN_DAYS} to ${CE3_MAX_DAYS} days before the disputed one and never ` +
      "disputed or reported as fraud, each matching the disputed transaction on at least two of: IP address, device ID, customer " +
      "account, shipping address; one of them the IP address or the device ID."
  )
  writer.space(4)
  writer.paragraph(ce3SummaryLine(result), { bold: true, color: result.qualifies ? COLORS.valid : COLORS.invalid })
  const disputed = result.disputed
  if (disputed) {
    writer.space(4)
    writer.heading("The disputed transaction", 2)
    writer.keyValues([
      ["Order", disputed.displayId !== null ? `#${disputed.displayId}` : disputed.orderId],
      ["Date", formatTimestamp(disputed.date)],
      ["Amount", disputed.amount],
      [CE3_ELEMENT_LABELS.ip_address, disputed.ipAddress ?? "Not recorded"],
      [CE3_ELEMENT_LABELS.device_id, disputed.deviceId ?? "Not recorded"],
      [CE3_ELEMENT_LABELS.customer_account, disputed.customerAccount ?? "Guest checkout"],
      [CE3_ELEMENT_LABELS.shipping_address, disputed.shippingAddressText ?? disputed.shippingAddress ?? "None"],
    ])
  }
  if (result.priors.length) {
    writer.space(4)
    writer.heading(result.qualifies ? "The prior transactions" : "Prior transactions that match", 2)
    writer.table(
      [
        { header: "Order", share: 0.14 },
        { header: "Date", share: 0.22 },
        { header: "Amount", share: 0.14, align: "right" },
        { header: "Matching elements", share: 0.5 },
      ],
      result.priors.map((prior) => [
        prior.displayId !== null ? `#${prior.displayId}` : prior.orderId,
        [formatTimestamp(prior.date) ?? prior.date, `${prior.daysBefore} days before`],
        prior.amount ?? "",
        CE3_ELEMENTS.filter((element) => prior.matched.includes(element)).map(
          (element) => `${CE3_ELEMENT_LABELS[element]}: ${prior.values[element] ?? "matches"}`
        ),
      ])
    )
  }
  if (!result.qualifies) {
    const { onCard, inWindow, undisputed, matching } = result.counts
    writer.space(4)
    writer.paragraph(
      `Earlier transactions on the same card found: ${onCard}; ${CE3_MIN_DAYS} to ${CE3_MAX_DAYS} days before: ${inWindow}; ` +
        `of those never disputed: ${undisputed}; matching on two elements: ${matching}.`,
      { size: 9, color: COLORS.muted }
    )
  }
}
