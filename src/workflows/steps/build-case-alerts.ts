import type { CreateNotificationDTO } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import { CaseAlertEvent, caseAlertNotifications } from "../utils/case-alerts"

/**
 * The notifications of one alert event, as the module's `alerts` option
 * routes them (workflows/utils/case-alerts.ts), naming the order by the
 * number the admin shows. Reads only.
 */
export const buildCaseAlertsStep = createStep(
  "servicescan-build-case-alerts",
  async (event: CaseAlertEvent, { container }) => {
    const settings = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE).getAlertSettings()
    let displayId: number | null = null
    if (event.data.order_id) {
      const { data } = await container.resolve(ContainerRegistrationKeys.QUERY).graph({
        entity: "order",
        fields: ["id", "display_id"],
        filters: { id: event.data.order_id },
      })
      const value = (data[0] as { display_id?: number | null } | undefined)?.display_id
      displayId = typeof value === "number" ? value : null
    }
    return new StepResponse<CreateNotificationDTO[]>(caseAlertNotifications(event, settings, displayId))
  }
)
