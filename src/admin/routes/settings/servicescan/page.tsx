import { defineRouteConfig } from "@medusajs/admin-sdk"
import { ShieldCheck } from "@medusajs/icons"
import { HealthPanel } from "../../../components/health-panel"

/** Settings → ServiceScan: configuration and service health of the disputes integration. */
const ServiceScanSettingsPage = () => <HealthPanel />

export const config = defineRouteConfig({
  label: "menu.settings",
  // I18N_NAMESPACE, as a string literal: the admin build reads it from the source, it does not run it.
  translationNs: "servicescan",
  icon: ShieldCheck,
})

export const handle = {
  breadcrumb: () => "ServiceScan",
}

export default ServiceScanSettingsPage
