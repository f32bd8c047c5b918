import { Badge, Text } from "@medusajs/ui"
import { dueUrgency, formatDate, formatDueDays } from "../lib/format"

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
  const urgency = settled ? "ok" : dueUrgency(dueBy, now)
  const relative = formatDueDays(dueBy, now)
  return (
    <span className="inline-flex flex-wrap items-center gap-x-2 gap-y-1">
      <Text as="span" size="small" leading="compact" title={new Date(dueBy).toLocaleString()}>
        {formatDate(dueBy)}
      </Text>
      {urgency === "overdue" && (
        <Badge size="2xsmall" color="red">
          Overdue · {relative}
        </Badge>
      )}
      {urgency === "today" && (
        <Badge size="2xsmall" color="red">
          Due {relative}
        </Badge>
      )}
      {urgency === "soon" && (
        <Badge size="2xsmall" color="orange">
          Due {relative}
        </Badge>
      )}
    </span>
  )
}
