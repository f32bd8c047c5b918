import { Plus } from "@medusajs/icons"
import { Button, Container, Copy, Heading, Text } from "@medusajs/ui"
import { useState } from "react"
import { useServiceScanTranslation } from "../lib/i18n"
import { useOrderChargebacks } from "../lib/queries"
import { isUuidV4 } from "../lib/validation"
import { ChargebackSection } from "./chargeback-section"
import { RecordChargebackDrawer } from "./record-chargeback-drawer"
import { EmptyState, ErrorState, SectionSkeleton } from "./states"

/** The part of an admin order this widget reads (the dashboard's order detail carries it). */
export type OrderForChargebacks = {
  id: string
  currency_code: string
  total?: number | null
  payment_collections?:
    | {
        payments?: { id?: string; provider_id?: string; data?: Record<string, unknown> | null }[] | null
      }[]
    | null
}

/**
 * The scan ids of an order's payments: the provider stores each payment's
 * scan id as `data.scan_id` (its hosted form id). These are what a chargeback
 * sends to ServiceScan without anyone typing them.
 */
export function orderScanIds(order: OrderForChargebacks): string[] {
  const ids: string[] = []
  for (const collection of order.payment_collections ?? []) {
    for (const payment of collection.payments ?? []) {
      const scanId = payment.data?.scan_id
      if (typeof scanId === "string" && isUuidV4(scanId) && !ids.includes(scanId.toLowerCase())) {
        ids.push(scanId.toLowerCase())
      }
    }
  }
  return ids
}

const Header = ({ onRecord }: { onRecord?: () => void }) => {
  const { t } = useServiceScanTranslation()
  return (
    <div className="flex items-center justify-between px-6 py-4">
      <div className="flex flex-col gap-y-1">
        <Heading level="h2">{t("order.heading")}</Heading>
        <Text size="small" className="text-ui-fg-subtle">
          {t("order.subtitle")}
        </Text>
      </div>
      {onRecord && (
        <Button size="small" variant="secondary" onClick={onRecord}>
          <Plus aria-hidden />
          {t("order.recordChargeback")}
        </Button>
      )}
    </div>
  )
}

const ScanIds = ({ ids }: { ids: string[] }) => {
  const { t } = useServiceScanTranslation()
  return ids.length === 0 ? null : (
    <div className="flex flex-col gap-y-2 px-6 py-4">
      <Text size="small" leading="compact" weight="plus">
        {t("order.scans.heading")}
      </Text>
      <ul className="flex flex-col gap-y-1" aria-label={t("order.scans.listLabel")}>
        {ids.map((id) => (
          <li key={id} className="flex items-center gap-x-1">
            <Text size="small" leading="compact" className="text-ui-fg-subtle font-mono">
              {id}
            </Text>
            <Copy content={id} aria-label={t("order.scans.copy", { id })} />
          </li>
        ))}
      </ul>
      <Text size="xsmall" className="text-ui-fg-muted">
        {t("order.scans.note")}
      </Text>
    </div>
  )
}

/** The order page's chargebacks: each with its evidence, or a way to record the first one. */
export const OrderChargebacks = ({ order }: { order: OrderForChargebacks }) => {
  const { t } = useServiceScanTranslation()
  const [recordOpen, setRecordOpen] = useState(false)
  const { data, isLoading, isError, error, refetch } = useOrderChargebacks(order.id)
  const scanIds = orderScanIds(order)
  const chargebacks = data?.items ?? []

  const drawer = (
    <RecordChargebackDrawer
      open={recordOpen}
      onOpenChange={setRecordOpen}
      order={{ id: order.id, currency_code: order.currency_code, total: order.total }}
    />
  )

  if (isLoading) {
    return (
      <Container className="divide-y p-0">
        <Header />
        <SectionSkeleton rows={3} label={t("order.loading")} />
      </Container>
    )
  }

  if (isError) {
    return (
      <Container className="divide-y p-0">
        <Header />
        <ErrorState title={t("order.couldNotLoad")} error={error} onRetry={() => void refetch()} />
      </Container>
    )
  }

  if (chargebacks.length === 0) {
    return (
      <Container className="divide-y p-0">
        <Header />
        <EmptyState
          title={t("order.empty.heading")}
          description={t("order.empty.description")}
          action={
            <Button size="small" variant="secondary" onClick={() => setRecordOpen(true)}>
              {t("order.recordChargeback")}
            </Button>
          }
        />
        <ScanIds ids={scanIds} />
        {drawer}
      </Container>
    )
  }

  return (
    <div className="flex flex-col gap-y-3">
      <Container className="divide-y p-0">
        <Header onRecord={() => setRecordOpen(true)} />
        <ScanIds ids={scanIds} />
      </Container>
      {chargebacks.map((chargeback) => (
        <ChargebackSection key={chargeback.id} chargeback={chargeback} showDetailLink />
      ))}
      {drawer}
    </div>
  )
}
