import { StatusBadge } from "@medusajs/ui"
import { proofRequestStatusLabel } from "../lib/format"
import { useServiceScanTranslation } from "../lib/i18n"
import { chargebackDisplayView } from "../lib/status-meanings"
import type { Chargeback } from "../lib/types"

/**
 * Status badges. What a status means is written out next to it where there is
 * room (detail views) rather than hidden in a hover-only tooltip that keyboard
 * and touch users never see.
 */
export const ChargebackStatusBadge = ({ chargeback }: { chargeback: Pick<Chargeback, "status" | "dispute_case"> }) => {
  const { t } = useServiceScanTranslation()
  // The shown status follows the case (represented, liability accepted, won, lost): lib/status-meanings.ts.
  const view = chargebackDisplayView(chargeback)
  return (
    <StatusBadge color={view.color} className="whitespace-nowrap" data-status={view.status}>
      {t(`status.chargeback.${view.status}`, { defaultValue: view.label })}
    </StatusBadge>
  )
}

export const ProofRequestStatusBadge = ({ status }: { status: string }) => {
  const { t } = useServiceScanTranslation()
  const view = proofRequestStatusLabel(status)
  return (
    <StatusBadge color={view.color} className="whitespace-nowrap">
      {t(`status.proofRequest.${status}`, { defaultValue: view.label })}
    </StatusBadge>
  )
}
