import { useId } from "react"
import { formatMonth, formatPercent, type DisputeAnalytics } from "../lib/analytics"
import { useServiceScanTranslation } from "../lib/i18n"

const WIDTH = 640
const HEIGHT = 260
const PAD = { top: 16, right: 112, bottom: 36, left: 52 }
const PLOT_W = WIDTH - PAD.left - PAD.right
const PLOT_H = HEIGHT - PAD.top - PAD.bottom

// The dashboard's own colour variables (light and dark themes), as its charts-free pages use them.
const COLOR = {
  bar: "var(--tag-blue-icon)",
  barOver: "var(--tag-red-icon)",
  visa: "var(--tag-orange-icon)",
  mastercard: "var(--tag-red-icon)",
  grid: "var(--border-base)",
  text: "var(--fg-subtle)",
  muted: "var(--fg-muted)",
}

/** A round top for the y axis above `value` (a fraction): 1, 2 or 5 times a power of ten. */
export function niceCeiling(value: number): number {
  if (!(value > 0)) {
    return 0.01
  }
  const power = 10 ** Math.floor(Math.log10(value))
  for (const step of [1, 2, 2.5, 5, 10]) {
    if (step * power >= value) {
      return step * power
    }
  }
  return 10 * power
}

/**
 * The monthly chargeback ratio as bars against the Visa and Mastercard lines,
 * in plain SVG (no charting library in the admin bundle). An image with a
 * title and a description for screen readers; every figure is also in the
 * table below it.
 */
export const AnalyticsChart = ({ analytics }: { analytics: DisputeAnalytics }) => {
  const { t, i18n } = useServiceScanTranslation()
  const locale = i18n.language
  const id = useId()
  const { months, thresholds } = analytics
  const currency = analytics.currency.toUpperCase()
  const visa = formatPercent(thresholds.visa_ratio, locale)
  const mastercard = formatPercent(thresholds.mastercard_ratio, locale)
  const top = niceCeiling(
    Math.max(thresholds.visa_ratio, thresholds.mastercard_ratio, ...months.map((m) => m.chargeback_ratio ?? 0)) * 1.1
  )
  const y = (ratio: number) => PAD.top + PLOT_H - (ratio / top) * PLOT_H
  const band = PLOT_W / Math.max(months.length, 1)
  const barWidth = Math.min(48, band * 0.6)
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((share) => share * top)
  // Month labels thin out on a long range so they never overlap.
  const labelEvery = Math.ceil(months.length / 12)
  // Two lines close together (a tall range squeezes them) keep their labels apart: the higher one moves up.
  const labelY = (lines: { ratio: number }[], index: number) => {
    const at = y(lines[index].ratio)
    const other = lines[1 - index]
    if (!other || Math.abs(at - y(other.ratio)) >= 13) {
      return at
    }
    return lines[index].ratio > other.ratio || (lines[index].ratio === other.ratio && index === 1) ? Math.min(at, y(other.ratio)) - 7 : Math.max(at, y(other.ratio)) + 7
  }
  const title = t("analytics.chart.title", { currency })
  const description = t("analytics.chart.description", {
    from: formatMonth(analytics.from, locale),
    to: formatMonth(analytics.to, locale),
    visa,
    mastercard,
    min: thresholds.mastercard_min_chargebacks,
  })

  return (
    <svg
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      role="img"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-desc`}
      className="h-auto w-full max-w-3xl"
      data-testid="servicescan-analytics-chart"
    >
      <title id={`${id}-title`}>{title}</title>
      <desc id={`${id}-desc`}>{description}</desc>
      <g aria-hidden="true">
        {ticks.map((tick) => (
          <g key={tick}>
            <line x1={PAD.left} x2={PAD.left + PLOT_W} y1={y(tick)} y2={y(tick)} style={{ stroke: COLOR.grid }} strokeWidth={1} />
            <text x={PAD.left - 8} y={y(tick)} dy="0.32em" textAnchor="end" fontSize={11} style={{ fill: COLOR.text }}>
              {formatPercent(tick, locale)}
            </text>
          </g>
        ))}
        {months.map((month, index) => {
          const cx = PAD.left + band * index + band / 2
          const ratio = month.chargeback_ratio
          return (
            <g key={month.month}>
              {ratio === null ? (
                <text x={cx} y={y(0) - 6} textAnchor="middle" fontSize={10} style={{ fill: COLOR.muted }}>
                  {t("analytics.chart.noOrders")}
                </text>
              ) : (
                <rect
                  x={cx - barWidth / 2}
                  y={y(ratio)}
                  width={barWidth}
                  height={Math.max(y(0) - y(ratio), ratio > 0 ? 1 : 0)}
                  rx={2}
                  style={{ fill: month.visa_exceeded || month.mastercard_exceeded ? COLOR.barOver : COLOR.bar }}
                >
                  <title>{`${formatMonth(month.month, locale)}: ${formatPercent(ratio, locale)}`}</title>
                </rect>
              )}
              {index % labelEvery === 0 && (
                <text x={cx} y={PAD.top + PLOT_H + 20} textAnchor="middle" fontSize={11} style={{ fill: COLOR.text }}>
                  {formatMonth(month.month, locale)}
                </text>
              )}
            </g>
          )
        })}
        {[
          { ratio: thresholds.visa_ratio, color: COLOR.visa, label: t("analytics.chart.visaLine", { value: visa }), dash: "6 4" },
          {
            ratio: thresholds.mastercard_ratio,
            color: COLOR.mastercard,
            label: t("analytics.chart.mastercardLine", { value: mastercard }),
            dash: "2 3",
          },
        ].map((line, index, lines) => (
          <g key={line.label}>
            <line
              x1={PAD.left}
              x2={PAD.left + PLOT_W}
              y1={y(line.ratio)}
              y2={y(line.ratio)}
              style={{ stroke: line.color }}
              strokeWidth={1.5}
              strokeDasharray={line.dash}
            />
            <text x={PAD.left + PLOT_W + 6} y={labelY(lines, index)} dy="0.32em" fontSize={11} style={{ fill: COLOR.text }}>
              {line.label}
            </text>
          </g>
        ))}
      </g>
    </svg>
  )
}
