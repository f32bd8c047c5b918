import { ArrowPath } from "@medusajs/icons"
import { Alert, Button, Container, Heading, StatusBadge, Text } from "@medusajs/ui"
import type { ReactNode } from "react"
import { autoRespondLabel, formatDateTime, formatEvery, formatRelative, gatewayDisplayName, humanize } from "../lib/format"
import { configurationAdvice } from "../lib/health"
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
const KeysSection = ({ health }: { health: ServiceHealth }) => (
  <Container className="divide-y p-0">
    <div className="px-6 py-4">
      <Heading level="h2">Configuration</Heading>
      <Text size="small" className="text-ui-fg-subtle">
        Keys are set in medusa-config from environment variables. Only whether each one is set is shown here.
      </Text>
    </div>
    {health.keys.length === 0 ? (
      <Row label="Keys">
        <Text size="small" leading="compact">
          Not reported by the server
        </Text>
      </Row>
    ) : (
      health.keys.map((key) => (
        <Row key={key.name} label={key.label}>
          <StatusBadge color={key.configured ? "green" : "red"}>{key.configured ? "Configured" : "Missing"}</StatusBadge>
        </Row>
      ))
    )}
    {health.base_url && (
      <Row label="Disputes API">
        <Text size="small" leading="compact" className="truncate font-mono" title={health.base_url}>
          {health.base_url}
        </Text>
      </Row>
    )}
    {health.dispute_gateway !== undefined && (
      <Row label="Dispute gateway">
        {health.dispute_gateway ? (
          <StatusBadge color="green">{gatewayDisplayName(health.dispute_gateway.name)}</StatusBadge>
        ) : (
          <>
            <StatusBadge color="grey">Not configured</StatusBadge>
            <Text size="small" leading="compact">
              Chargeback cases are not imported from the processor, and answers are not sent to it.
            </Text>
          </>
        )}
      </Row>
    )}
    {health.auto_respond !== null && (
      <Row label="Automatic answers">
        <Text size="small" leading="compact">
          {autoRespondLabel(health.auto_respond)}
        </Text>
      </Row>
    )}
    {health.archive_images !== null && (
      <Row label="Image archive">
        <Text size="small" leading="compact">
          {health.archive_images ? "On: images are copied to the store's file storage" : "Off"}
        </Text>
      </Row>
    )}
  </Container>
)

const ServiceSection = ({ health, onCheck, checking }: { health: ServiceHealth; onCheck: () => void; checking: boolean }) => {
  const { reachable, latency_ms, error } = health.service
  const counts = health.counts ? Object.entries(health.counts).filter(([, count]) => count > 0) : []
  return (
    <Container className="divide-y p-0">
      <div className="flex items-center justify-between px-6 py-4">
        <Heading level="h2">Service</Heading>
        <Button size="small" variant="secondary" onClick={onCheck} isLoading={checking}>
          <ArrowPath aria-hidden />
          Check again
        </Button>
      </div>
      <Row label="ServiceScan">
        {reachable === null ? (
          <StatusBadge color="grey">Not checked</StatusBadge>
        ) : reachable ? (
          <>
            <StatusBadge color="green">Reachable</StatusBadge>
            {latency_ms !== null && (
              <Text size="small" leading="compact">
                {Math.round(latency_ms)} ms
              </Text>
            )}
          </>
        ) : (
          <StatusBadge color="red">Not reachable</StatusBadge>
        )}
      </Row>
      {reachable === false && error && (
        <div className="px-6 py-4">
          <Text size="small" className="text-ui-fg-error">
            {error}
          </Text>
        </div>
      )}
      <Row label="Polling">
        {health.polling_stopped === null ? (
          <StatusBadge color="grey">Unknown</StatusBadge>
        ) : health.polling_stopped ? (
          <StatusBadge color="red">Stopped</StatusBadge>
        ) : (
          <StatusBadge color="green">Running</StatusBadge>
        )}
        {health.poll_interval_ms !== null && (
          <Text size="small" leading="compact">
            {formatEvery(health.poll_interval_ms)}
          </Text>
        )}
      </Row>
      <Row label="Last status check">
        <Text size="small" leading="compact" title={health.last_polled_at ? formatDateTime(health.last_polled_at) : undefined}>
          {health.last_polled_at
            ? `${formatRelative(health.last_polled_at)} (${formatDateTime(health.last_polled_at)})`
            : "Never"}
        </Text>
      </Row>
      <Row label="Waiting on ServiceScan">
        <Text size="small" leading="compact">
          {health.pending_count === null
            ? "–"
            : `${health.pending_count} proof request${health.pending_count === 1 ? "" : "s"}`}
        </Text>
      </Row>
      {health.needs_attention_count !== null && health.needs_attention_count > 0 && (
        <Row label="Unconfirmed submissions">
          <Text size="small" leading="compact">
            {health.needs_attention_count} proof request{health.needs_attention_count === 1 ? "" : "s"}: ServiceScan's
            answer was lost or is still on its way. Each is sent again by itself after a wait; to send one sooner,
            open its dispute and use Resubmit.
          </Text>
        </Row>
      )}
      {counts.length > 0 && (
        <Row label="Proof requests by status">
          <Text size="small" leading="compact">
            {counts.map(([status, count]) => `${humanize(status)}: ${count}`).join(" · ")}
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
  const { data, isLoading, isError, error, refetch, isFetching } = useServiceHealth()

  return (
    <div className="flex flex-col gap-y-3">
      <Container className="px-6 py-4">
        <Heading level="h1">ServiceScan</Heading>
        <Text size="small" className="text-ui-fg-subtle">
          Chargeback evidence from card scans: configuration and service status.
        </Text>
      </Container>
      {isLoading ? (
        <Container className="p-0">
          <SectionSkeleton rows={5} label="Loading service health" />
        </Container>
      ) : isError || !data ? (
        <Container className="p-0">
          <ErrorState title="Could not load the service health" error={error} onRetry={() => void refetch()} />
        </Container>
      ) : (
        <>
          {data.configuration_error && (
            <Alert variant="error">
              <div className="flex flex-col gap-y-1">
                <Text size="small" leading="compact" weight="plus">
                  Polling is stopped: {data.configuration_error.message}
                  {data.configuration_error.status ? ` (HTTP ${data.configuration_error.status})` : ""}
                </Text>
                <Text size="small">{configurationAdvice(data.configuration_error.status)}</Text>
                {data.configuration_error.at && (
                  <Text size="xsmall" className="text-ui-fg-subtle">
                    Since {formatDateTime(data.configuration_error.at)}
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
