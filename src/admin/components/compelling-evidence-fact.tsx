import { Badge } from "@medusajs/ui"
import type { CompellingEvidenceSummary } from "../../lib/compelling-evidence"
import { useServiceScanTranslation } from "../lib/i18n"
import { Fact } from "./fact"

/**
 * A Visa 10.4 case's Compelling Evidence 3.0 verdict, as the chargeback's
 * detail reports it: "CE 3.0: qualifies, 2 prior transactions", or that it
 * does not and why. Nothing for another reason code (or an older backend).
 */
export const CompellingEvidenceFact = ({ summary }: { summary: CompellingEvidenceSummary | null | undefined }) => {
  const { t } = useServiceScanTranslation()
  if (!summary?.applicable) {
    return null
  }
  return (
    <Fact label={t("case.ce3.label")}>
      <span className="inline-flex flex-col gap-y-0.5" data-testid="compelling-evidence">
        <span>
          <Badge size="2xsmall" color={summary.qualifies ? "green" : "orange"}>
            {summary.qualifies ? t("case.ce3.qualifies", { count: summary.prior_count }) : t("case.ce3.notQualifies")}
          </Badge>
        </span>
        {!summary.qualifies && summary.reason && <span className="text-ui-fg-subtle">{t(`case.ce3.reason.${summary.reason}`)}</span>}
      </span>
    </Fact>
  )
}
