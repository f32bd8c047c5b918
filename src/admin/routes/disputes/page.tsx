import { defineRouteConfig } from "@medusajs/admin-sdk"
import { Plus, ShieldCheck } from "@medusajs/icons"
import { Badge, Button, Container, Heading, Tabs, Text } from "@medusajs/ui"
import { useState } from "react"
import { Link, useNavigate, useSearchParams } from "react-router-dom"
import { ChargebackList } from "../../components/chargeback-list"
import { ConfigurationAlert } from "../../components/configuration-alert"
import { ImportCasesButton } from "../../components/import-cases-button"
import { RecordChargebackDrawer } from "../../components/record-chargeback-drawer"
import { UnmatchedCases } from "../../components/unmatched-cases"
import { useServiceScanTranslation } from "../../lib/i18n"
import { useDisputeCases } from "../../lib/queries"

type View = "chargebacks" | "unmatched"

/** Every chargeback, newest first, with the evidence ServiceScan returned; and the processor's cases no order matched. */
const DisputesPage = () => {
  const { t } = useServiceScanTranslation()
  const navigate = useNavigate()
  const [params, setParams] = useSearchParams()
  const [recordOpen, setRecordOpen] = useState(false)
  const view: View = params.get("view") === "unmatched" ? "unmatched" : "chargebacks"
  // The tab shows how many cases wait for an admin, from whichever view is open.
  const unmatched = useDisputeCases({ status: "unmatched", offset: 0, limit: 1 }, { retry: false })
  const unmatchedCount = unmatched.data?.count ?? 0

  return (
    <div className="flex flex-col gap-y-3">
      <ConfigurationAlert />
      <Container className="divide-y p-0">
        <div className="flex flex-wrap items-center justify-between gap-3 px-6 py-4">
          <div className="flex flex-col gap-y-1">
            <Heading level="h1">{t("disputes.title")}</Heading>
            <Text size="small" className="text-ui-fg-subtle">
              {t("disputes.subtitle")}
            </Text>
          </div>
          <div className="flex flex-wrap items-center gap-2">
            <Button size="small" variant="secondary" asChild>
              <Link to="/disputes/analytics">{t("analytics.link")}</Link>
            </Button>
            <Button size="small" variant="secondary" asChild>
              <Link to="/settings/servicescan">{t("disputes.serviceHealth")}</Link>
            </Button>
            <ImportCasesButton />
            <Button size="small" variant="secondary" onClick={() => setRecordOpen(true)}>
              <Plus aria-hidden />
              {t("disputes.recordChargeback")}
            </Button>
          </div>
        </div>
        <Tabs
          value={view}
          onValueChange={(value) =>
            // Each view has its own filters: switching starts from a clean list.
            setParams(value === "unmatched" ? new URLSearchParams({ view: "unmatched" }) : new URLSearchParams(), {
              replace: true,
            })
          }
        >
          <div className="px-6 py-3">
            <Tabs.List>
              <Tabs.Trigger value="chargebacks">{t("disputes.tabs.chargebacks")}</Tabs.Trigger>
              <Tabs.Trigger value="unmatched">
                {t("disputes.tabs.unmatched")}
                {unmatchedCount > 0 && (
                  <>
                    {" "}
                    <Badge size="2xsmall" color="orange" className="ml-1.5">
                      {unmatchedCount}
                      <span className="sr-only"> {t("disputes.tabs.waiting")}</span>
                    </Badge>
                  </>
                )}
              </Tabs.Trigger>
            </Tabs.List>
          </div>
          <Tabs.Content value="chargebacks" className="border-t">
            {view === "chargebacks" && <ChargebackList />}
          </Tabs.Content>
          <Tabs.Content value="unmatched" className="border-t">
            {view === "unmatched" && <UnmatchedCases />}
          </Tabs.Content>
        </Tabs>
      </Container>
      <RecordChargebackDrawer
        open={recordOpen}
        onOpenChange={setRecordOpen}
        onRecorded={(chargeback) => navigate(`/disputes/${chargeback.id}`)}
      />
    </div>
  )
}

export const config = defineRouteConfig({
  // A key of the plugin's namespace: the sidebar shows it in the admin's language.
  label: "menu.disputes",
  // I18N_NAMESPACE, as a string literal: the admin build reads it from the source, it does not run it.
  translationNs: "servicescan",
  icon: ShieldCheck,
})

const DisputesBreadcrumb = () => {
  const { t } = useServiceScanTranslation()
  return <>{t("menu.disputes")}</>
}

export const handle = {
  breadcrumb: () => <DisputesBreadcrumb />,
}

export default DisputesPage
