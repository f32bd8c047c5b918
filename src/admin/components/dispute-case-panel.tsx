import { Alert, Badge, Button, Copy, Heading, StatusBadge, Text, toast, usePrompt } from "@medusajs/ui"
import { useId, useState } from "react"
import { responseAvailability, evidenceState, type Availability } from "../lib/case-actions"
import { errorMessage } from "../lib/errors"
import {
  activityTypeLabel,
  cardLabel,
  caseOutcomeLabel,
  formatBytes,
  formatDateTime,
  formatDay,
  formatMinorMoney,
  formatMoney,
  gatewayDisplayName,
  queueView,
  replyByCountdown,
  responseStatusLabel,
  todayUtc,
} from "../lib/format"
import { useRespondToDispute } from "../lib/queries"
import type { Chargeback, DisputeAction, DisputeActivity, DisputeCase } from "../lib/types"
import { EvidencePackDownload } from "./evidence-pack-download"
import { Fact } from "./fact"

/** Our answer is still open: the reply-by countdown matters. Once answered or closed it is history. */
const OPEN_RESPONSES = new Set(["none", "representing", "accepting"])

type DisputeCasePanelProps = {
  chargeback: Chargeback
  disputeCase: DisputeCase
  /** One level below the chargeback's own heading. */
  headingLevel?: "h2" | "h3"
  /** For specs: the day the countdown and the buttons count from (UTC `YYYY-MM-DD`). */
  today?: string
}

/**
 * The processor's case behind a chargeback: what the processor says (case id,
 * cycle, reason, reply-by day, whose move it is, every activity) and our
 * answer to it (send the evidence, or accept liability), each with the
 * reason when it cannot be done now.
 */
export const DisputeCasePanel = ({ chargeback, disputeCase, headingLevel = "h3", today }: DisputeCasePanelProps) => {
  const prompt = usePrompt()
  const headingId = useId()
  const reasonsId = useId()
  const [actionError, setActionError] = useState<string | null>(null)
  const respond = useRespondToDispute(chargeback.id)
  const day = today ?? todayUtc()
  const gateway = gatewayDisplayName(disputeCase.gateway)
  const evidence = evidenceState(chargeback)
  const represent = responseAvailability(disputeCase, "represent", { evidence, today: day })
  const accept = responseAvailability(disputeCase, "accept", { evidence, today: day })
  const response = responseStatusLabel(disputeCase.response_status)
  const outcome = caseOutcomeLabel(disputeCase.outcome)
  const queue = queueView(disputeCase.queue, disputeCase.awaiting_merchant, disputeCase.gateway)
  const countdown = OPEN_RESPONSES.has(disputeCase.response_status) ? replyByCountdown(disputeCase.reply_by, day) : null
  const activities = disputeCase.activities?.items ?? []
  const amount = formatMoney(disputeCase.amount, disputeCase.currency_code)

  const run = async (action: DisputeAction) => {
    const texts =
      action === "represent"
        ? {
            title: `Send evidence to ${gateway}?`,
            description: `The evidence pack (the order, the payment, ServiceScan's verdicts and the images of the scans worth disputing) is uploaded to case ${disputeCase.case_id}, and the chargeback of ${amount} is represented with it. This cannot be undone.`,
            confirmText: "Send evidence",
          }
        : {
            title: "Accept liability?",
            description: `You accept chargeback case ${disputeCase.case_id} at ${gateway}: the ${amount} stays with the cardholder and the case closes against you. This cannot be undone.`,
            confirmText: "Accept liability",
          }
    const confirmed = await prompt({ ...texts, cancelText: "Cancel", variant: action === "accept" ? "danger" : "confirmation" })
    if (!confirmed) {
      return
    }
    setActionError(null)
    respond.mutate(action, {
      onSuccess: () =>
        action === "represent"
          ? toast.success(`Evidence sent to ${gateway}`, {
              description: `Case ${disputeCase.case_id} was represented with the evidence pack.`,
            })
          : toast.success("Liability accepted", { description: `Case ${disputeCase.case_id} at ${gateway}.` }),
      onError: (error) => {
        const message = errorMessage(error)
        setActionError(message)
        toast.error(action === "represent" ? "Could not send the evidence" : "Could not accept liability", {
          description: message,
        })
      },
    })
  }

  // Each refusal once, even when both buttons share it (answered, too late, not our move).
  const reasons = [
    ...new Set([represent, accept].filter((a): a is Extract<Availability, { allowed: false }> => !a.allowed).map((a) => a.reason)),
  ]
  const reasonId = (availability: Availability) =>
    availability.allowed ? undefined : `${reasonsId}-${reasons.indexOf(availability.reason)}`

  return (
    <section className="flex flex-col gap-y-4 px-6 py-4" aria-labelledby={headingId} data-testid="dispute-case">
      <div className="flex flex-col gap-y-1">
        <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
          <Heading level={headingLevel} id={headingId} className="txt-compact-medium-plus">
            {gateway} case {disputeCase.case_id}
          </Heading>
          <Copy content={disputeCase.case_id} aria-label={`Copy case id ${disputeCase.case_id}`} />
          <StatusBadge color={response.color} className="whitespace-nowrap" data-testid="response-status">
            {response.label}
          </StatusBadge>
          {disputeCase.outcome && (
            <StatusBadge color={outcome.color} className="whitespace-nowrap">
              {outcome.label}
            </StatusBadge>
          )}
        </div>
        <Text size="small" className="text-ui-fg-subtle">
          {response.description}
        </Text>
      </div>

      <dl className="grid grid-cols-1 gap-x-4 gap-y-3 sm:grid-cols-3">
        <Fact label="Cycle">{disputeCase.cycle ?? "–"}</Fact>
        <Fact label="Reason">
          {disputeCase.reason_code || disputeCase.reason_description
            ? [disputeCase.reason_code, disputeCase.reason_description].filter(Boolean).join(" · ")
            : "–"}
        </Fact>
        <Fact label="Reply by">
          {disputeCase.reply_by ? (
            <span className="inline-flex flex-wrap items-center gap-x-2 gap-y-1">
              <span>{formatDay(disputeCase.reply_by)}</span>
              {countdown && (
                <Badge size="2xsmall" color={countdown.color} data-testid="reply-by-countdown">
                  {countdown.label}
                </Badge>
              )}
            </span>
          ) : (
            "–"
          )}
        </Fact>
        <Fact label="Queue">
          <span className="inline-flex flex-wrap items-center gap-x-1">
            <span>{queue.label}</span>{" "}
            {queue.processorQueue && (
              <span className="text-ui-fg-muted" title={`${gateway}'s queue`}>
                ({queue.processorQueue})
              </span>
            )}
          </span>
        </Fact>
        <Fact label="Our answer">
          {response.label}
          {disputeCase.represented_at
            ? ` · ${formatDateTime(disputeCase.represented_at)}`
            : disputeCase.liability_accepted_at
              ? ` · ${formatDateTime(disputeCase.liability_accepted_at)}`
              : ""}
        </Fact>
        <Fact label="Network's decision">{outcome.label}</Fact>
        <Fact label="Disputed at the processor">{amount}</Fact>
        <Fact label="Card">{cardLabel(disputeCase.card_type, disputeCase.card_last4)}</Fact>
        <Fact label="Processor transaction">
          <span className="font-mono">{disputeCase.processor_transaction_id ?? "–"}</span>
        </Fact>
      </dl>

      {disputeCase.response_error && (
        <Alert variant="error">
          <Text size="small" leading="compact">
            <span className="font-medium">The last answer to {gateway} failed:</span> {disputeCase.response_error}
          </Text>
        </Alert>
      )}

      <div className="flex flex-col gap-y-2">
        <div className="flex flex-wrap items-center gap-2">
          <EvidencePackDownload
            chargebackId={chargeback.id}
            fileName={`evidence-${disputeCase.gateway}-${disputeCase.case_id}.pdf`}
          />
          <Button
            size="small"
            variant="primary"
            disabled={!represent.allowed || (respond.isPending && respond.variables !== "represent")}
            isLoading={respond.isPending && respond.variables === "represent"}
            aria-describedby={reasonId(represent)}
            onClick={() => void run("represent")}
          >
            Send evidence to {gateway}
          </Button>
          <Button
            size="small"
            variant="secondary"
            disabled={!accept.allowed || (respond.isPending && respond.variables !== "accept")}
            isLoading={respond.isPending && respond.variables === "accept"}
            aria-describedby={reasonId(accept)}
            onClick={() => void run("accept")}
          >
            Accept liability
          </Button>
        </div>
        {reasons.length > 0 && (
          <ul className="flex flex-col gap-y-0.5" aria-label="Why some answers are not possible">
            {reasons.map((reason, index) => (
              <li key={reason}>
                <Text id={`${reasonsId}-${index}`} size="xsmall" leading="compact" className="text-ui-fg-subtle">
                  {reason}
                </Text>
              </li>
            ))}
          </ul>
        )}
        {disputeCase.pack_generated_at && (
          <Text size="xsmall" leading="compact" className="text-ui-fg-muted">
            Evidence pack made {formatDateTime(disputeCase.pack_generated_at)}
            {disputeCase.pack_bytes ? `, ${formatBytes(disputeCase.pack_bytes)}` : ""}
            {disputeCase.pack_downscaled ? `. Its images were reduced to fit ${gateway}'s size limit (the pack says so).` : "."}
          </Text>
        )}
        {actionError && (
          <Text size="small" className="text-ui-fg-error" role="alert">
            {actionError}
          </Text>
        )}
      </div>

      <CaseTimeline activities={activities} gateway={gateway} caseId={disputeCase.case_id} />
    </section>
  )
}

const CaseTimeline = ({ activities, gateway, caseId }: { activities: DisputeActivity[]; gateway: string; caseId: string }) => (
  <div className="flex flex-col gap-y-2">
    <Text size="small" leading="compact" weight="plus">
      Activity at {gateway}
    </Text>
    {activities.length === 0 ? (
      <Text size="small" className="text-ui-fg-muted">
        {gateway} reported no activity on this case yet.
      </Text>
    ) : (
      <ol className="flex flex-col" aria-label={`Activity on case ${caseId}, newest first`}>
        {activities.map((activity, index) => (
          <TimelineItem key={`${activity.date}-${activity.type}-${index}`} activity={activity} last={index === activities.length - 1} />
        ))}
      </ol>
    )}
  </div>
)

const TimelineItem = ({ activity, last }: { activity: DisputeActivity; last: boolean }) => {
  const label = activityTypeLabel(activity.type)
  const own = activity.type.trim()
  return (
    <li className="relative flex gap-x-3 pb-3" data-testid="case-activity">
      {/* The rail and dot: decoration, the list's order carries the sequence. */}
      <div className="flex flex-col items-center" aria-hidden>
        <span className="bg-ui-fg-muted mt-1.5 size-2 shrink-0 rounded-full" />
        {!last && <span className="bg-ui-border-base mt-1 w-px flex-1" />}
      </div>
      <div className="flex min-w-0 flex-1 flex-col gap-y-0.5">
        <div className="flex flex-wrap items-baseline gap-x-2">
          <Text size="small" leading="compact" weight="plus">
            {label}
          </Text>
          {own && own.toLowerCase() !== label.toLowerCase() && (
            <Text size="xsmall" leading="compact" className="text-ui-fg-muted">
              {own}
            </Text>
          )}
        </div>
        <Text size="xsmall" leading="compact" className="text-ui-fg-subtle">
          <time dateTime={activity.date}>{formatDay(activity.date)}</time>
          {activity.fromQueue || activity.toQueue
            ? ` · ${activity.fromQueue ?? "–"} → ${activity.toQueue ?? "–"}`
            : ""}
          {activity.settlementAmountMinor !== undefined && activity.settlementAmountMinor !== null && activity.settlementCurrencyCode
            ? ` · ${formatMinorMoney(activity.settlementAmountMinor, activity.settlementCurrencyCode)}`
            : ""}
        </Text>
        {activity.notes && (
          <Text size="small" className="text-ui-fg-base whitespace-pre-line break-words">
            {activity.notes}
          </Text>
        )}
      </div>
    </li>
  )
}
