import { Button, Container, Heading, Label, Select, Text } from "@medusajs/ui"
import { useId } from "react"
import { Link, useSearchParams } from "react-router-dom"
import { AnalyticsChart } from "../../../components/analytics-chart"
import { AnalyticsTable } from "../../../components/analytics-table"
import { EmptyState, ErrorState, SectionSkeleton } from "../../../components/states"
import { currentMonth, formatMonth, isEmptyRange, recentMonths, shiftMonth, useDisputeAnalytics } from "../../../lib/analytics"
import { useServiceScanTranslation } from "../../../lib/i18n"

/** The months the range pickers offer: the last three years, newest first. */
const MONTHS = recentMonths()

const MonthPicker = ({ label, value, onChange }: { label: string; value: string; onChange: (month: string) => void }) => {
  const { i18n } = useServiceScanTranslation()
  const id = useId()
  return (
    <div className="flex flex-col gap-y-1">
      <Label size="xsmall" weight="plus" htmlFor={id}>
        {label}
      </Label>
      <Select value={value} onValueChange={onChange} size="small">
        <Select.Trigger id={id} className="w-36">
          <Select.Value />
        </Select.Trigger>
        <Select.Content>
          {MONTHS.map((month) => (
            <Select.Item key={month} value={month}>
              {formatMonth(month, i18n.language)}
            </Select.Item>
          ))}
        </Select.Content>
      </Select>
    </div>
  )
}

/**
 * The Disputes page's analytics: by month, chargebacks against this plugin's
 * orders and the card networks' lines, outcomes, money, scans and verdicts,
 * as a chart and as a table. The range and currency live in the URL, so a
 * view can be bookmarked and shared.
 */
const DisputeAnalyticsPage = () => {
  const { t } = useServiceScanTranslation()
  const currencyId = useId()
  const [params, setParams] = useSearchParams()
  const to = params.get("to") ?? currentMonth()
  const from = params.get("from") ?? shiftMonth(to, -5)
  const currency = params.get("currency_code") ?? undefined
  const analytics = useDisputeAnalytics({ from, to, currency_code: currency })
  const data = analytics.data
  const currencies = data?.currencies ?? (currency ? [currency] : [])

  const update = (next: { from?: string; to?: string; currency_code?: string }) => {
    const merged = { from, to, ...(currency ? { currency_code: currency } : {}), ...next }
    // A range stays a range: moving one end past the other moves both.
    if (next.from && merged.from > merged.to) {
      merged.to = merged.from
    } else if (next.to && merged.to < merged.from) {
      merged.from = merged.to
    }
    setParams(new URLSearchParams(merged), { replace: true })
  }

  return (
    <Container className="divide-y p-0">
      <div className="flex flex-wrap items-center justify-between gap-3 px-6 py-4">
        <div className="flex flex-col gap-y-1">
          <Heading level="h1">{t("analytics.title")}</Heading>
          <Text size="small" className="text-ui-fg-subtle">
            {t("analytics.subtitle")}
          </Text>
        </div>
        <Button size="small" variant="secondary" asChild>
          <Link to="/disputes">{t("disputes.allDisputes")}</Link>
        </Button>
      </div>
      <div className="flex flex-wrap items-end gap-4 px-6 py-4">
        <MonthPicker label={t("analytics.pickers.from")} value={from} onChange={(month) => update({ from: month })} />
        <MonthPicker label={t("analytics.pickers.to")} value={to} onChange={(month) => update({ to: month })} />
        <div className="flex flex-col gap-y-1">
          <Label size="xsmall" weight="plus" htmlFor={currencyId}>
            {t("analytics.pickers.currency")}
          </Label>
          <Select
            value={data?.currency ?? currency ?? ""}
            onValueChange={(code) => update({ currency_code: code })}
            size="small"
            disabled={!currencies.length}
          >
            <Select.Trigger id={currencyId} className="w-28">
              <Select.Value />
            </Select.Trigger>
            <Select.Content>
              {currencies.map((code) => (
                <Select.Item key={code} value={code}>
                  {code.toUpperCase()}
                </Select.Item>
              ))}
            </Select.Content>
          </Select>
        </div>
      </div>
      {analytics.isPending ? (
        <SectionSkeleton rows={6} label={t("analytics.loading")} />
      ) : analytics.isError ? (
        <ErrorState error={analytics.error} title={t("analytics.couldNotLoad")} onRetry={() => analytics.refetch()} />
      ) : data && isEmptyRange(data) ? (
        <EmptyState title={t("analytics.empty.heading")} description={t("analytics.empty.description")} />
      ) : data ? (
        <div className="flex flex-col gap-y-6 px-6 py-4" aria-busy={analytics.isFetching}>
          <AnalyticsChart analytics={data} />
          <AnalyticsTable analytics={data} />
          <Text size="xsmall" className="text-ui-fg-subtle">
            {t("analytics.notes")}
          </Text>
        </div>
      ) : null}
    </Container>
  )
}

const AnalyticsBreadcrumb = () => {
  const { t } = useServiceScanTranslation()
  return <>{t("analytics.breadcrumb")}</>
}

export const handle = {
  breadcrumb: () => <AnalyticsBreadcrumb />,
}

export default DisputeAnalyticsPage
