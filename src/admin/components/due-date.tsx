import { Badge, Text } from "@medusajs/ui"
import { deadlineAt, formatDate, formatDueDays } from "../lib/format"
import { useServiceScanTranslation } from "../lib/i18n"

type DueDateProps = {
  dueBy: string | null
  /** Final chargebacks (won/lost/closed) have no deadline left to chase. */
  settled?: boolean
  now?: Date
}

/**
 * A response deadline. Past and close deadlines get a coloured badge with
 * words (not colour alone), because a missed deadline loses the dispute.
 */
export const DueDate = ({ dueBy, settled = false, now }: DueDateProps) => {
  const { t, i18n } = useServiceScanTranslation()
  if (!dueBy) {
    return (
      <Text size="small" leading="compact" className="text-ui-fg-muted">
        {t("due.none")}
      </Text>
    )
  }
  const deadline = settled ? null : deadlineAt(dueBy, now)
  // Dates and "in 2 days" in the admin's language, like the words around them.
  const locale = i18n.language
  const relative = formatDueDays(dueBy, now, locale)
  return (
    <span className="inline-flex flex-wrap items-center gap-x-2 gap-y-1">
      <Text as="span" size="small" leading="compact" title={new Date(dueBy).toLocaleString()}>
        {formatDate(dueBy, locale)}
      </Text>
      {deadline && deadline.urgency !== "ok" && (
        <Badge size="2xsmall" color={deadline.color}>
          {deadline.urgency === "overdue" ? t("due.overdue", { relative }) : t("due.due", { relative })}
        </Badge>
      )}
    </span>
  )
}
