import { Badge, Text } from "@medusajs/ui"
import { deadlineAt, formatDate, formatDueDays } from "../lib/format"

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
  if (!dueBy) {
    return (
      <Text size="small" leading="compact" className="text-ui-fg-muted">
        No deadline
      </Text>
    )
  }
  const deadline = settled ? null : deadlineAt(dueBy, now)
  const relative = formatDueDays(dueBy, now)
  return (
    <span className="inline-flex flex-wrap items-center gap-x-2 gap-y-1">
      <Text as="span" size="small" leading="compact" title={new Date(dueBy).toLocaleString()}>
        {formatDate(dueBy)}
      </Text>
      {deadline && deadline.urgency !== "ok" && (
        <Badge size="2xsmall" color={deadline.color}>
          {deadline.urgency === "overdue" ? `Overdue · ${relative}` : `Due ${relative}`}
        </Badge>
      )}
    </span>
  )
}
