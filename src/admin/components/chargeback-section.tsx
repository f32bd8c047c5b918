import { ArrowPath, ArrowUpRightOnBox, CheckCircle, PaperClip, XCircle, XMark } from "@medusajs/icons"
import { Button, Container, Heading, Text, toast, usePrompt } from "@medusajs/ui"
import type { TFunction } from "i18next"
import { useMemo, useState } from "react"
import { Link } from "react-router-dom"
import { errorMessage } from "../lib/errors"
import { formatDateTime, formatMoney, gatewayDisplayName, humanize } from "../lib/format"
import { useServiceScanTranslation } from "../lib/i18n"
import { CASE_DRIVEN_STATUSES, chargebackDisplayView } from "../lib/status-meanings"
import { useCheckChargeback, useSetChargebackOutcome, type CheckSummary } from "../lib/queries"
import type { Chargeback, ChargebackOutcome } from "../lib/types"
import { ActionMenu } from "./action-menu"
import { AttachScansDrawer } from "./attach-scans-drawer"
import { DisputeCasePanel } from "./dispute-case-panel"
import { DueDate } from "./due-date"
import { Fact } from "./fact"
import { ProofRequestBlock } from "./proof-request"
import { EmptyState } from "./states"
import { OrderReference } from "./order-reference"
import { ChargebackStatusBadge } from "./status-badges"

const FINAL = new Set(["won", "lost", "closed"])

/** Keys under `case.actions`: the menu item, its toast and its confirmation. */
const OUTCOME_KEYS: Record<ChargebackOutcome, { label: string; done: string; confirm: string }> = {
  won: { label: "case.actions.markWon", done: "case.actions.doneWon", confirm: "case.actions.confirmOutcomeWon" },
  lost: { label: "case.actions.markLost", done: "case.actions.doneLost", confirm: "case.actions.confirmOutcomeLost" },
  closed: { label: "case.actions.markClosed", done: "case.actions.doneClosed", confirm: "case.actions.confirmOutcomeClosed" },
}

const CASE_DRIVEN = new Set<string>(CASE_DRIVEN_STATUSES)

/** A toast for "check now" that says what actually happened, not just "done", in the admin's language. */
export function describeCheck(
  summary: CheckSummary | undefined,
  t: TFunction
): { title: string; description: string; tone: "success" | "info" | "warning" } {
  const s = summary ?? {}
  const errors = (s.errors ?? 0) + (s.submission_errors ?? 0)
  if (errors > 0) {
    return { tone: "warning", title: t("case.actions.check.errorsTitle"), description: t("case.actions.check.errors", { count: errors }) }
  }
  if ((s.completed ?? 0) > 0) {
    return { tone: "success", title: t("case.actions.check.receivedTitle"), description: t("case.actions.check.received") }
  }
  if ((s.submitted ?? 0) > 0) {
    return { tone: "success", title: t("case.actions.check.sentTitle"), description: t("case.actions.check.sent") }
  }
  if ((s.still_pending ?? 0) > 0) {
    return { tone: "info", title: t("case.actions.check.pendingTitle"), description: t("case.actions.check.pending") }
  }
  return { tone: "info", title: t("case.actions.check.upToDateTitle"), description: t("case.actions.check.upToDate") }
}

type ChargebackSectionProps = {
  chargeback: Chargeback
  /** On the order page the order link is noise; elsewhere it is the way back to the order. */
  showOrderLink?: boolean
  /** Link to the dispute's own page (from the order widget). */
  showDetailLink?: boolean
  /** `h1` when the section is the page (the dispute's own route), `h2` inside another page. */
  headingLevel?: "h1" | "h2"
}

/**
 * One chargeback with its evidence: the facts the processor gave, where the
 * proof requests stand, and every scan with ServiceScan's verdict and image.
 */
export const ChargebackSection = ({
  chargeback,
  showOrderLink = false,
  showDetailLink = false,
  headingLevel = "h2",
}: ChargebackSectionProps) => {
  const prompt = usePrompt()
  const { t, i18n } = useServiceScanTranslation()
  const [attachOpen, setAttachOpen] = useState(false)
  const check = useCheckChargeback(chargeback.id)
  const outcome = useSetChargebackOutcome(chargeback.id)
  const proofRequests = chargeback.proof_requests ?? []
  // Scans borrowed from earlier orders (saved cards), by scan id.
  const sources = useMemo(
    () => new Map((chargeback.scan_sources ?? []).map((source) => [source.scan_id.toLowerCase(), source])),
    [chargeback.scan_sources]
  )
  const settled = FINAL.has(chargeback.status)
  const unconfirmed = proofRequests.some((pr) => pr.status === "submitting" || pr.status === "failed")
  // The same status as the list's, following the case: lib/status-meanings.ts.
  const statusView = chargebackDisplayView(chargeback)
  const statusMeaning = CASE_DRIVEN.has(statusView.status)
    ? t(`case.responseMeaning.${statusView.status}`, { defaultValue: statusView.description })
    : statusView.status !== chargeback.status
      ? t(`case.outcomeMeaning.${statusView.status}`, { defaultValue: statusView.description })
      : t(`case.chargebackMeaning.${statusView.status}`, { defaultValue: statusView.description })

  const runCheck = (resubmit: boolean) =>
    check.mutate(resubmit ? { resubmit: true } : undefined, {
      onSuccess: ({ check: summary }) => {
        const view = describeCheck(summary, t)
        toast[view.tone](view.title, { description: view.description })
      },
      onError: (error) => toast.error(t("case.actions.checkFailed"), { description: errorMessage(error) }),
    })

  const resubmit = async () => {
    const confirmed = await prompt({
      title: t("case.actions.resubmitTitle"),
      description: t("case.actions.resubmitDescription"),
      confirmText: t("case.actions.resubmitConfirm"),
      cancelText: t("case.actions.cancel"),
      variant: "confirmation",
    })
    if (confirmed) {
      runCheck(true)
    }
  }

  const setOutcome = async (value: ChargebackOutcome) => {
    const confirmed = await prompt({
      title: `${t(OUTCOME_KEYS[value].label)}?`,
      description: t(OUTCOME_KEYS[value].confirm, { id: chargeback.external_id }),
      confirmText: t("case.actions.confirm"),
      cancelText: t("case.actions.cancel"),
      variant: "confirmation",
    })
    if (!confirmed) {
      return
    }
    outcome.mutate(value, {
      onSuccess: () =>
        toast.success(t(OUTCOME_KEYS[value].done), { description: t("case.actions.chargebackId", { id: chargeback.external_id }) }),
      onError: (error) => toast.error(t("case.actions.outcomeFailed"), { description: errorMessage(error) }),
    })
  }

  return (
    <Container className="divide-y p-0" data-testid="chargeback-section">
      <div className="flex items-start justify-between gap-x-4 px-6 py-4">
        <div className="flex min-w-0 flex-col gap-y-1">
          <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
            <Heading level={headingLevel} className="truncate">
              {t("chargeback.heading", { id: chargeback.external_id })}
            </Heading>
            <ChargebackStatusBadge chargeback={chargeback} />
          </div>
          <Text size="small" className="text-ui-fg-subtle">
            {statusMeaning}
          </Text>
        </div>
        <div className="flex shrink-0 items-center gap-x-2">
          {proofRequests.length > 0 && (
            <Button
              size="small"
              variant="secondary"
              onClick={() => runCheck(false)}
              isLoading={check.isPending}
            >
              <ArrowPath aria-hidden />
              {t("chargeback.checkNow")}
            </Button>
          )}
          <ActionMenu
            label={t("chargeback.actionsFor", { id: chargeback.external_id })}
            groups={[
              [
                { label: t("chargeback.attachScanIds"), icon: <PaperClip />, onClick: () => setAttachOpen(true) },
                ...(unconfirmed
                  ? [{ label: t("chargeback.resubmit"), icon: <ArrowPath />, onClick: () => void resubmit() }]
                  : []),
              ],
              (["won", "lost", "closed"] as const).map((value) => ({
                label: t(OUTCOME_KEYS[value].label),
                icon: value === "won" ? <CheckCircle /> : value === "lost" ? <XCircle /> : <XMark />,
                onClick: () => void setOutcome(value),
                disabled: chargeback.status === value || outcome.isPending,
              })),
            ]}
          />
        </div>
      </div>

      <dl className="grid grid-cols-1 gap-x-4 gap-y-3 px-6 py-4 sm:grid-cols-2">
        <Fact label={t("chargeback.facts.amount")}>{formatMoney(chargeback.amount, chargeback.currency_code, i18n.language)}</Fact>
        <Fact label={t("chargeback.facts.dueBy")}>
          <DueDate dueBy={chargeback.due_by} settled={settled} />
        </Fact>
        <Fact label={t("chargeback.facts.reason")}>
          {chargeback.reason || chargeback.reason_code
            ? [chargeback.reason, chargeback.reason_code ? t("chargeback.reasonCode", { code: chargeback.reason_code }) : null]
                .filter(Boolean)
                .join(" · ")
            : t("common.none")}
        </Fact>
        <Fact label={t("chargeback.facts.recorded")}>
          {formatDateTime(chargeback.created_at, i18n.language)}
          {chargeback.source === "processor"
            ? ` · ${t("chargeback.importedFrom", { gateway: gatewayDisplayName(chargeback.dispute_case?.gateway) })}`
            : chargeback.source
              ? ` · ${humanize(chargeback.source)}`
              : ""}
        </Fact>
        {showOrderLink && (
          <Fact label={t("chargeback.facts.order")}>
            <OrderReference chargeback={chargeback} />
          </Fact>
        )}
        {showDetailLink && (
          <Fact label={t("chargeback.facts.dispute")}>
            <Link
              to={`/disputes/${chargeback.id}`}
              className="text-ui-fg-interactive hover:text-ui-fg-interactive-hover inline-flex items-center gap-x-1"
            >
              {t("chargeback.openInDisputes")} <ArrowUpRightOnBox aria-hidden />
            </Link>
          </Fact>
        )}
      </dl>

      {chargeback.dispute_case && (
        <DisputeCasePanel
          chargeback={chargeback}
          disputeCase={chargeback.dispute_case}
          headingLevel={headingLevel === "h1" ? "h2" : "h3"}
        />
      )}

      {proofRequests.length > 0 ? (
        proofRequests.map((pr) => <ProofRequestBlock key={pr.id} proofRequest={pr} sources={sources} />)
      ) : (
        <EmptyState
          title={t("chargeback.noScans.heading")}
          description={t("chargeback.noScans.description")}
          action={
            <Button size="small" variant="secondary" onClick={() => setAttachOpen(true)}>
              {t("chargeback.attachScanIds")}
            </Button>
          }
        />
      )}

      <AttachScansDrawer
        chargebackId={chargeback.id}
        externalId={chargeback.external_id}
        open={attachOpen}
        onOpenChange={setAttachOpen}
      />
    </Container>
  )
}
