import { StatusBadge } from "@medusajs/ui"
import { chargebackStatusLabel, proofRequestStatusLabel } from "../lib/format"

/**
 * Status badges. What a status means is written out next to it where there is
 * room (detail views) rather than hidden in a hover-only tooltip that keyboard
 * and touch users never see.
 */
export const ChargebackStatusBadge = ({ status }: { status: string }) => {
  const view = chargebackStatusLabel(status)
  return (
    <StatusBadge color={view.color} className="whitespace-nowrap">
      {view.label}
    </StatusBadge>
  )
}

export const ProofRequestStatusBadge = ({ status }: { status: string }) => {
  const view = proofRequestStatusLabel(status)
  return (
    <StatusBadge color={view.color} className="whitespace-nowrap">
      {view.label}
    </StatusBadge>
  )
}
