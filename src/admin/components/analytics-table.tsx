import { formatMoney } from "../lib/format"
import { formatMonth, formatPercent, type DisputeAnalytics, type DisputeAnalyticsFigures } from "../lib/analytics"
import { useServiceScanTranslation } from "../lib/i18n"

type Row = { key: string; label: string; value: (figures: DisputeAnalyticsFigures) => string }

/**
 * Every figure of the analytics, month by month and in total: what the chart
 * draws, and all it does not, for a screen reader and for anyone who wants
 * the numbers. Figures are rows, months columns, so a long range scrolls
 * sideways and never wraps a figure's name.
 */
export const AnalyticsTable = ({ analytics }: { analytics: DisputeAnalytics }) => {
  const { t, i18n } = useServiceScanTranslation()
  const locale = i18n.language
  const currency = analytics.currency
  const na = t("analytics.table.notApplicable")
  const count = (value: number) => new Intl.NumberFormat(locale).format(value)
  const percent = (value: number | null) => formatPercent(value, locale, na)
  const money = (value: string) => formatMoney(value, currency, locale)
  const yesNo = (value: boolean) => (value ? t("analytics.table.yes") : t("analytics.table.no"))
  const rows: Row[] = [
    { key: "orders", label: t("analytics.table.rows.orders"), value: (f) => count(f.orders) },
    { key: "chargebacks", label: t("analytics.table.rows.chargebacks"), value: (f) => count(f.chargebacks) },
    { key: "ratio", label: t("analytics.table.rows.chargebackRatio"), value: (f) => percent(f.chargeback_ratio) },
    { key: "visa", label: t("analytics.table.rows.visa"), value: (f) => yesNo(f.visa_exceeded) },
    { key: "mastercard", label: t("analytics.table.rows.mastercard"), value: (f) => yesNo(f.mastercard_exceeded) },
    { key: "won", label: t("analytics.table.rows.won"), value: (f) => count(f.won) },
    { key: "lost", label: t("analytics.table.rows.lost"), value: (f) => count(f.lost) },
    { key: "closed", label: t("analytics.table.rows.closed"), value: (f) => count(f.closed) },
    { key: "pending", label: t("analytics.table.rows.pending"), value: (f) => count(f.pending) },
    { key: "win-rate", label: t("analytics.table.rows.winRate"), value: (f) => percent(f.win_rate) },
    { key: "recovered", label: t("analytics.table.rows.recovered"), value: (f) => money(f.recovered) },
    { key: "lost-amount", label: t("analytics.table.rows.lostAmount"), value: (f) => money(f.lost_amount) },
    { key: "at-stake", label: t("analytics.table.rows.atStake"), value: (f) => money(f.at_stake) },
    { key: "due-soon", label: t("analytics.table.rows.dueSoon", { days: analytics.due_window_days }), value: (f) => count(f.due_soon) },
    { key: "scan-share", label: t("analytics.table.rows.scanShare"), value: (f) => percent(f.scan_share) },
    { key: "valid", label: t("analytics.table.rows.verdictValid"), value: (f) => count(f.verdicts.valid) },
    { key: "invalid", label: t("analytics.table.rows.verdictInvalid"), value: (f) => count(f.verdicts.invalid) },
    { key: "unjudged", label: t("analytics.table.rows.verdictUnjudged"), value: (f) => count(f.verdicts.unjudged) },
  ]
  const cell = "px-3 py-2 text-right tabular-nums whitespace-nowrap"

  return (
    <div className="overflow-x-auto">
      <table className="txt-compact-small w-full border-collapse" data-testid="servicescan-analytics-table">
        <caption className="txt-compact-small-plus text-ui-fg-base px-3 pb-2 text-left">
          {t("analytics.table.caption", { currency: currency.toUpperCase() })}
        </caption>
        <thead>
          <tr className="border-ui-border-base border-b">
            <th scope="col" className="text-ui-fg-subtle px-3 py-2 text-left font-medium">
              {t("analytics.table.figure")}
            </th>
            {analytics.months.map((month) => (
              <th key={month.month} scope="col" className={`${cell} text-ui-fg-subtle font-medium`}>
                {formatMonth(month.month, locale)}
              </th>
            ))}
            <th scope="col" className={`${cell} text-ui-fg-subtle font-medium`}>
              {t("analytics.table.total")}
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.key} className="border-ui-border-base border-b last:border-b-0">
              <th scope="row" className="text-ui-fg-base whitespace-nowrap px-3 py-2 text-left font-normal">
                {row.label}
              </th>
              {analytics.months.map((month) => (
                <td key={month.month} className={`${cell} text-ui-fg-base`}>
                  {row.value(month)}
                </td>
              ))}
              <td className={`${cell} text-ui-fg-base font-medium`}>{row.value(analytics.totals)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
