import { defineRouteConfig } from "@medusajs/admin-sdk"
import { Plus, ShieldCheck } from "@medusajs/icons"
import { Button, Container, Heading, Text } from "@medusajs/ui"
import { useState } from "react"
import { Link, useNavigate } from "react-router-dom"
import { ChargebackList } from "../../components/chargeback-list"
import { ConfigurationAlert } from "../../components/configuration-alert"
import { RecordChargebackDrawer } from "../../components/record-chargeback-drawer"

/** Every chargeback, newest first, with the evidence ServiceScan returned. */
const DisputesPage = () => {
  const navigate = useNavigate()
  const [recordOpen, setRecordOpen] = useState(false)
  return (
    <div className="flex flex-col gap-y-3">
      <ConfigurationAlert />
      <Container className="divide-y p-0">
        <div className="flex flex-wrap items-center justify-between gap-3 px-6 py-4">
          <div className="flex flex-col gap-y-1">
            <Heading level="h1">Disputes</Heading>
            <Text size="small" className="text-ui-fg-subtle">
              Chargebacks on your orders and the card-scan evidence ServiceScan returned for them.
            </Text>
          </div>
          <div className="flex items-center gap-x-2">
            <Button size="small" variant="secondary" asChild>
              <Link to="/settings/servicescan">Service health</Link>
            </Button>
            <Button size="small" variant="secondary" onClick={() => setRecordOpen(true)}>
              <Plus aria-hidden />
              Record chargeback
            </Button>
          </div>
        </div>
        <ChargebackList />
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
  label: "Disputes",
  icon: ShieldCheck,
})

export const handle = {
  breadcrumb: () => "Disputes",
}

export default DisputesPage
