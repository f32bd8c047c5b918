import { ArrowPath } from "@medusajs/icons"
import { Alert, Button, Container, Heading, StatusBadge, Text } from "@medusajs/ui"
import type { ReactNode } from "react"
import type { TFunction } from "i18next"
import { autoRespondLabel, formatDateTime, formatRelative, gatewayDisplayName, humanize } from "../lib/format"
import { configurationAdvice } from "../lib/health"
import { useServiceScanTranslation } from "../lib/i18n"
import { useServiceHealth } from "../lib/queries"
import type { ServiceHealth } from "../lib/types"
import { ErrorState, SectionSkeleton } from "./states"

const Row = ({ label, children }: { label: string; children: ReactNode }) => (
  <div className="text-ui-fg-subtle grid grid-cols-2 items-center gap-x-4 px-6 py-4">
    <Text size="small" leading="compact" weight="plus">
      {label}
    </Text>
    <div className="flex min-w-0 items-center gap-x-2">{children}</div>
  </div>
)

/** Keys: configured or missing, never the value (see lib/health.ts). */
const KeysSection = ({ health }: { health: ServiceHealth }) => {
  const { t } = useServiceScanTranslation()
  return (
  <Container className="divide-y p-0">
    <div className="px-6 py-4">
      <Heading level="h2">{t("settings.configuration.heading")}</Heading>
      <Text size="small" className="text-ui-fg-subtle">
        {t("settings.configuration.description")}
      </Text>
    </div>
    {health.keys.length === 0 ? (
      <Row label={t("settings.configuration.keys")}>
        <Text size="small" leading="compact">
          {t("settings.configuration.notReported")}
        </Text>
      </Row>
    ) : (
      health.keys.map((key) => (
        <Row key={key.name} label={t(`settings.configuration.keyNames.${key.name}`, { defaultValue: key.label })}>
          <StatusBadge color={key.configured ? "green" : "red"}>{key.configured ? t("settings.configuration.configured") : t("settings.configuration.missing")}</StatusBadge>
        </Row>
      ))
    )}
    {health.base_url && (
      <Row label={t("settings.configuration.disputesApi")}>
        <Text size="small" leading="compact" className="truncate font-mono" title={health.base_url}>
          {health.base_url}
        </Text>
      </Row>
    )}
    {health.dispute_gateway !== undefined && (
      <Row label={t("settings.configuration.gateway")}>
        {health.dispute_gateway ? (
          <StatusBadge color="green">{gatewayDisplayName(health.dispute_gateway.name)}</StatusBadge>
        ) : (
          <>
            <StatusBadge color="grey">{t("settings.configuration.notConfigured")}</StatusBadge>
            <Text size="small" leading="compact">
              {t("settings.configuration.gatewayOff")}
            </Text>
          </>
        )}
      </Row>
    )}
    {health.auto_respond !== null && (
      <Row label={t("settings.configuration.autoRespond")}>
        <Text size="small" leading="compact">
          {t(`settings.configuration.autoRespondPolicy.${health.auto_respond}`, { defaultValue: autoRespondLabel(health.auto_respond) })}
        </Text>
      </Row>
    )}
    {health.archive_images !== null && (
      <Row label={t("settings.configuration.imageArchive")}>
        <Text size="small" leading="compact">
          {health.archive_images ? t("settings.configuration.archiveOn") : t("settings.configuration.archiveOff")}
        </Text>
      </Row>
    )}
  </Container>
  )
}

/** "every 3 hours", "alle 3 Stunden": a polling period in the largest unit it fills. */
export function formatEveryIn(t: TFunction, ms: number): string {
  for (const [size, unit] of [
    [60 * 60 * 1000, "hour"],
    [60 * 1000, "minute"],
    [1000, "second"],
  ] as const) {
    if (ms >= size) {
      return t(`settings.service.every.${unit}`, { count: Math.round((ms / size) * 10) / 10 })
    }
  }
  return t("settings.service.every.ms", { count: Math.round(ms) })
}

/** The advice for a configuration error, by the status the service answered (lib/health.ts has the English). */
function adviceKey(status: number | null): string {
  return status === 401 ? "missingKey" : status === 403 ? "refusedKey" : "other"
}

const ServiceSection = ({ health, onCheck, checking }: { health: ServiceHealth; onCheck: () => void; checking: boolean }) => {
  const { reachable, latency_ms, error } = health.service
  const { t, i18n } = useServiceScanTranslation()
  const counts = health.counts ? Object.entries(health.counts).filter(([, count]) => count > 0) : []
  return (
    <Container className="divide-y p-0">
      <div className="flex items-center justify-between px-6 py-4">
        <Heading level="h2">{t("settings.service.heading")}</Heading>
        <Button size="small" variant="secondary" onClick={onCheck} isLoading={checking}>
          <ArrowPath aria-hidden />
          {t("settings.service.checkAgain")}
        </Button>
      </div>
      <Row label="ServiceScan">
        {reachable === null ? (
          <StatusBadge color="grey">{t("settings.service.notChecked")}</StatusBadge>
        ) : reachable ? (
          <>
            <StatusBadge color="green">{t("settings.service.reachable")}</StatusBadge>
            {latency_ms !== null && (
              <Text size="small" leading="compact">
                {t("settings.service.latency", { ms: Math.round(latency_ms) })}
              </Text>
            )}
          </>
        ) : (
          <StatusBadge color="red">{t("settings.service.notReachable")}</StatusBadge>
        )}
      </Row>
      {reachable === false && error && (
        <div className="px-6 py-4">
          <Text size="small" className="text-ui-fg-error">
            {error}
          </Text>
        </div>
      )}
      <Row label={t("settings.service.polling")}>
        {health.polling_stopped === null ? (
          <StatusBadge color="grey">{t("settings.service.unknown")}</StatusBadge>
        ) : health.polling_stopped ? (
          <StatusBadge color="red">{t("settings.service.stopped")}</StatusBadge>
        ) : (
          <StatusBadge color="green">{t("settings.service.running")}</StatusBadge>
        )}
        {health.poll_interval_ms !== null && (
          <Text size="small" leading="compact">
            {formatEveryIn(t, health.poll_interval_ms)}
          </Text>
        )}
      </Row>
      <Row label={t("settings.service.lastCheck")}>
        <Text size="small" leading="compact" title={health.last_polled_at ? formatDateTime(health.last_polled_at, i18n.language) : undefined}>
          {health.last_polled_at
            ? `${formatRelative(health.last_polled_at, new Date(), i18n.language)} (${formatDateTime(health.last_polled_at, i18n.language)})`
            : t("settings.service.never")}
        </Text>
      </Row>
      <Row label={t("settings.service.waiting")}>
        <Text size="small" leading="compact">
          {health.pending_count === null
            ? "–"
            : t("settings.service.proofRequests", { count: health.pending_count })}
        </Text>
      </Row>
      {health.needs_attention_count !== null && health.needs_attention_count > 0 && (
        <Row label={t("settings.service.unconfirmed")}>
          <Text size="small" leading="compact">
            {t("settings.service.unconfirmedText", { count: health.needs_attention_count })}
          </Text>
        </Row>
      )}
      {counts.length > 0 && (
        <Row label={t("settings.service.byStatus")}>
          <Text size="small" leading="compact">
            {counts.map(([status, count]) => `${t(`status.proofRequest.${status}`, { defaultValue: humanize(status) })}: ${count}`).join(" · ")}
          </Text>
        </Row>
      )}
    </Container>
  )
}

/**
 * The plugin's health for an admin: are the keys there, does ServiceScan
 * answer, is polling running. The first question a merchant asks when
 * evidence does not show up.
 */
export const HealthPanel = () => {
  const { t, i18n } = useServiceScanTranslation()
  const { data, isLoading, isError, error, refetch, isFetching } = useServiceHealth()

  return (
    <div className="flex flex-col gap-y-3">
      <Container className="px-6 py-4">
        <Heading level="h1">{t("settings.title")}</Heading>
        <Text size="small" className="text-ui-fg-subtle">
          {t("settings.subtitle")}
        </Text>
      </Container>
      {isLoading ? (
        <Container className="p-0">
          <SectionSkeleton rows={5} label={t("settings.loading")} />
        </Container>
      ) : isError || !data ? (
        <Container className="p-0">
          <ErrorState title={t("settings.couldNotLoad")} error={error} onRetry={() => void refetch()} />
        </Container>
      ) : (
        <>
          {data.configuration_error && (
            <Alert variant="error">
              <div className="flex flex-col gap-y-1">
                <Text size="small" leading="compact" weight="plus">
                  {t("settings.pollingStopped", { message: data.configuration_error.message })}
                  {data.configuration_error.status ? t("settings.httpStatus", { status: data.configuration_error.status }) : ""}
                </Text>
                <Text size="small">
                  {t(`settings.advice.${adviceKey(data.configuration_error.status)}`, {
                    defaultValue: configurationAdvice(data.configuration_error.status),
                  })}
                </Text>
                {data.configuration_error.at && (
                  <Text size="xsmall" className="text-ui-fg-subtle">
                    {t("settings.since", { when: formatDateTime(data.configuration_error.at, i18n.language) })}
                  </Text>
                )}
              </div>
            </Alert>
          )}
          <ServiceSection health={data} onCheck={() => void refetch()} checking={isFetching} />
          <KeysSection health={data} />
        </>
      )}
    </div>
  )
}
