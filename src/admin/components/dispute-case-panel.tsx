import { Alert, Badge, Button, Copy, Heading, StatusBadge, Text, toast, usePrompt } from "@medusajs/ui"
import { useId, useState } from "react"
import { REASON_FAMILY_LABELS, reasonFamilyOf } from "../../lib/reason-family"
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
import { useServiceScanTranslation } from "../lib/i18n"
import { useRespondToDispute } from "../lib/queries"
import type { Chargeback, DisputeAction, DisputeActivity, DisputeCase } from "../lib/types"
import { CompellingEvidenceFact } from "./compelling-evidence-fact"
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
  const { t, i18n } = useServiceScanTranslation()
  const lng = i18n.language
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
  const countdownLabel = countdown
    ? countdown.label === "passed"
      ? t("case.countdown.passed")
      : countdown.label === "due today"
        ? t("case.countdown.today")
        : t("case.countdown.days", { count: countdown.days })
    : null
  const responseLabel = t(`case.response.${disputeCase.response_status}`, { defaultValue: response.label })
  const responseMeaning = t(`case.responseMeaning.${disputeCase.response_status}`, { defaultValue: response.description })
  const outcomeLabel = disputeCase.outcome
    ? t(`case.outcome.${disputeCase.outcome}`, { defaultValue: outcome.label })
    : t("case.outcome.undecided")
  const queueLabel = disputeCase.awaiting_merchant
    ? t("case.queue.waiting")
    : queue.processorQueue?.toLowerCase() === "merchant assumed"
      ? t("case.queue.merchantAssumed")
      : queue.processorQueue?.toLowerCase() === "network assumed"
        ? t("case.queue.networkAssumed")
        : queue.processorQueue
          ? t("case.queue.withGateway", { gateway })
          : t("case.queue.unknown")
  const activities = disputeCase.activities?.items ?? []
  const amount = formatMoney(disputeCase.amount, disputeCase.currency_code, lng)

  const run = async (action: DisputeAction) => {
    const texts =
      action === "represent"
        ? {
            title: t("case.confirm.representTitle", { gateway }),
            description: t("case.confirm.representDescription", { id: disputeCase.case_id, amount }),
            confirmText: t("case.confirm.representConfirm"),
          }
        : {
            title: t("case.confirm.acceptTitle"),
            description: t("case.confirm.acceptDescription", { id: disputeCase.case_id, gateway, amount }),
            confirmText: t("case.confirm.acceptConfirm"),
          }
    const confirmed = await prompt({ ...texts, cancelText: t("case.confirm.cancel"), variant: action === "accept" ? "danger" : "confirmation" })
    if (!confirmed) {
      return
    }
    setActionError(null)
    respond.mutate(action, {
      onSuccess: () =>
        action === "represent"
          ? toast.success(t("case.toast.represented", { gateway }), {
              description: t("case.toast.representedDescription", { id: disputeCase.case_id }),
            })
          : toast.success(t("case.toast.accepted"), {
              description: t("case.toast.acceptedDescription", { id: disputeCase.case_id, gateway }),
            }),
      onError: (error) => {
        const message = errorMessage(error)
        setActionError(message)
        toast.error(action === "represent" ? t("case.toast.representFailed") : t("case.toast.acceptFailed"), {
          description: message,
        })
      },
    })
  }

  // Each refusal once, even when both buttons share it (answered, too late, not our move).
  const reasons = [
    ...new Set(
      [represent, accept]
        .filter((a): a is Extract<Availability, { allowed: false }> => !a.allowed)
        .map((a) => t(`case.refusal.${a.key}`, { ...a.params, defaultValue: a.reason }))
    ),
  ]
  const reasonId = (availability: Availability) =>
    availability.allowed
      ? undefined
      : `${reasonsId}-${reasons.indexOf(t(`case.refusal.${availability.key}`, { ...availability.params, defaultValue: availability.reason }))}`

  return (
    <section className="flex flex-col gap-y-4 px-6 py-4" aria-labelledby={headingId} data-testid="dispute-case">
      <div className="flex flex-col gap-y-1">
        <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
          <Heading level={headingLevel} id={headingId} className="txt-compact-medium-plus">
            {t("case.heading", { gateway, id: disputeCase.case_id })}
          </Heading>
          <Copy content={disputeCase.case_id} aria-label={t("case.copyId", { id: disputeCase.case_id })} />
          <StatusBadge color={response.color} className="whitespace-nowrap" data-testid="response-status">
            {responseLabel}
          </StatusBadge>
          {disputeCase.outcome && (
            <StatusBadge color={outcome.color} className="whitespace-nowrap">
              {outcomeLabel}
            </StatusBadge>
          )}
        </div>
        <Text size="small" className="text-ui-fg-subtle">
          {responseMeaning}
        </Text>
      </div>

      <dl className="grid grid-cols-1 gap-x-4 gap-y-3 sm:grid-cols-3">
        <Fact label={t("case.facts.cycle")}>{disputeCase.cycle ?? "–"}</Fact>
        <Fact label={t("case.facts.reason")}>
          {disputeCase.reason_code || disputeCase.reason_description
            ? [disputeCase.reason_code, disputeCase.reason_description].filter(Boolean).join(" · ")
            : "–"}
        </Fact>
        <Fact label={t("case.facts.reasonFamily")}>
          {t(`case.family.${reasonFamilyOf(disputeCase.reason_code, disputeCase.card_type)}`, {
            defaultValue: REASON_FAMILY_LABELS[reasonFamilyOf(disputeCase.reason_code, disputeCase.card_type)],
          })}
        </Fact>
        <CompellingEvidenceFact summary={chargeback.compelling_evidence} />
        <Fact label={t("case.facts.replyBy")}>
          {disputeCase.reply_by ? (
            <span className="inline-flex flex-wrap items-center gap-x-2 gap-y-1">
              <span>{formatDay(disputeCase.reply_by, lng)}</span>
              {countdown && (
                <Badge size="2xsmall" color={countdown.color} data-testid="reply-by-countdown">
                  {countdownLabel}
                </Badge>
              )}
            </span>
          ) : (
            "–"
          )}
        </Fact>
        <Fact label={t("case.facts.queue")}>
          <span className="inline-flex flex-wrap items-center gap-x-1">
            <span>{queueLabel}</span>{" "}
            {queue.processorQueue && (
              <span className="text-ui-fg-muted" title={t("case.queue.processorQueue", { gateway })}>
                ({queue.processorQueue})
              </span>
            )}
          </span>
        </Fact>
        <Fact label={t("case.facts.ourAnswer")}>
          {responseLabel}
          {disputeCase.represented_at
            ? ` · ${formatDateTime(disputeCase.represented_at, lng)}`
            : disputeCase.liability_accepted_at
              ? ` · ${formatDateTime(disputeCase.liability_accepted_at, lng)}`
              : ""}
        </Fact>
        <Fact label={t("case.facts.decision")}>{outcomeLabel}</Fact>
        <Fact label={t("case.facts.disputedAmount")}>{amount}</Fact>
        <Fact label={t("case.facts.card")}>{cardLabel(disputeCase.card_type, disputeCase.card_last4)}</Fact>
        <Fact label={t("case.facts.transaction")}>
          <span className="font-mono">{disputeCase.processor_transaction_id ?? "–"}</span>
        </Fact>
      </dl>

      {disputeCase.response_error && (
        <Alert variant="error">
          <Text size="small" leading="compact">
            <span className="font-medium">{t("case.lastAnswerFailed", { gateway })}</span> {disputeCase.response_error}
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
            {t("case.sendEvidence", { gateway })}
          </Button>
          <Button
            size="small"
            variant="secondary"
            disabled={!accept.allowed || (respond.isPending && respond.variables !== "accept")}
            isLoading={respond.isPending && respond.variables === "accept"}
            aria-describedby={reasonId(accept)}
            onClick={() => void run("accept")}
          >
            {t("case.acceptLiability")}
          </Button>
        </div>
        {reasons.length > 0 && (
          <ul className="flex flex-col gap-y-0.5" aria-label={t("case.whyNot")}>
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
            {t("case.packInfo.made", { when: formatDateTime(disputeCase.pack_generated_at, lng) })}
            {disputeCase.pack_bytes ? t("case.packInfo.size", { size: formatBytes(disputeCase.pack_bytes) }) : ""}
            {disputeCase.pack_downscaled ? t("case.packInfo.downscaled", { gateway }) : t("case.packInfo.end")}
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

const CaseTimeline = ({ activities, gateway, caseId }: { activities: DisputeActivity[]; gateway: string; caseId: string }) => {
  const { t } = useServiceScanTranslation()
  return (
  <div className="flex flex-col gap-y-2">
    <Text size="small" leading="compact" weight="plus">
      {t("case.activity.heading", { gateway })}
    </Text>
    {activities.length === 0 ? (
      <Text size="small" className="text-ui-fg-muted">
        {t("case.activity.none", { gateway })}
      </Text>
    ) : (
      <ol className="flex flex-col" aria-label={t("case.activity.listLabel", { id: caseId })}>
        {activities.map((activity, index) => (
          <TimelineItem key={`${activity.date}-${activity.type}-${index}`} activity={activity} last={index === activities.length - 1} />
        ))}
      </ol>
    )}
  </div>
  )
}

const TimelineItem = ({ activity, last }: { activity: DisputeActivity; last: boolean }) => {
  const { t, i18n } = useServiceScanTranslation()
  const own = activity.type.trim()
  const typeKey = own.replace(/\s+/g, "_").toLowerCase()
  // A type this build does not know is shown as the processor wrote it (activityTypeLabel's English otherwise).
  const label = own ? t(`case.activity.types.${typeKey}`, { defaultValue: activityTypeLabel(activity.type) }) : t("case.activity.fallback")
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
          <time dateTime={activity.date}>{formatDay(activity.date, i18n.language)}</time>
          {activity.fromQueue || activity.toQueue
            ? ` · ${activity.fromQueue ?? "–"} → ${activity.toQueue ?? "–"}`
            : ""}
          {activity.settlementAmountMinor !== undefined && activity.settlementAmountMinor !== null && activity.settlementCurrencyCode
            ? ` · ${formatMinorMoney(activity.settlementAmountMinor, activity.settlementCurrencyCode, i18n.language)}`
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
