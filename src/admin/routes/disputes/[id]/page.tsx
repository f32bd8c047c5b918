import { ArrowLeft } from "@medusajs/icons"
import { Container, Heading } from "@medusajs/ui"
import { Link, useParams, type UIMatch } from "react-router-dom"
import { ChargebackSection } from "../../../components/chargeback-section"
import { ErrorState, SectionSkeleton } from "../../../components/states"
import { errorStatus } from "../../../lib/errors"
import { useServiceScanTranslation } from "../../../lib/i18n"
import { useChargeback } from "../../../lib/queries"

/** One dispute's evidence, with the way back to the list and to the order. */
const DisputeDetailPage = () => {
  const { id = "" } = useParams()
  const { t } = useServiceScanTranslation()
  const { data, isLoading, isError, error, refetch } = useChargeback(id, { enabled: Boolean(id) })

  return (
    <div className="flex flex-col gap-y-3">
      <Link
        to="/disputes"
        className="text-ui-fg-subtle hover:text-ui-fg-base txt-compact-small-plus inline-flex w-fit items-center gap-x-1"
      >
        <ArrowLeft aria-hidden />
        {t("disputes.allDisputes")}
      </Link>
      {isLoading ? (
        <Container className="divide-y p-0">
          <div className="px-6 py-4">
            <Heading level="h1">{t("disputes.chargebackFallback")}</Heading>
          </div>
          <SectionSkeleton rows={5} label={t("disputes.loadingChargeback")} />
        </Container>
      ) : isError || !data ? (
        <Container className="p-0">
          <ErrorState
            title={errorStatus(error) === 404 ? t("disputes.notFound") : t("disputes.couldNotLoadOne")}
            error={error}
            onRetry={errorStatus(error) === 404 ? undefined : () => void refetch()}
          />
        </Container>
      ) : (
        <ChargebackSection chargeback={data} showOrderLink headingLevel="h1" />
      )}
    </div>
  )
}

/**
 * The breadcrumb names the dispute as the merchant knows it (the processor's
 * id), like the order page's "#1042". It shares the page's query, so it costs
 * no request of its own.
 */
const DisputeBreadcrumb = ({ id }: { id: string }) => {
  const { t } = useServiceScanTranslation()
  const { data } = useChargeback(id, { enabled: Boolean(id) })
  return <span>{data ? data.external_id : t("disputes.chargebackFallback")}</span>
}

export const handle = {
  breadcrumb: (match: UIMatch) => <DisputeBreadcrumb id={match.params.id ?? ""} />,
}

export default DisputeDetailPage
