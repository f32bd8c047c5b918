import { Alert, Text } from "@medusajs/ui"
import { Link } from "react-router-dom"
import { useServiceScanTranslation } from "../lib/i18n"
import { useServiceHealth } from "../lib/queries"

/**
 * Polling stops on a 401/403 from ServiceScan instead of hammering it; until
 * someone fixes the key no evidence arrives, so the Disputes page says so.
 * A failing health request shows nothing here: the list has its own errors.
 */
export const ConfigurationAlert = () => {
  const { t } = useServiceScanTranslation()
  const { data } = useServiceHealth({ retry: false })
  const problem = data?.configuration_error
  if (!problem) {
    return null
  }
  return (
    <Alert variant="error">
      <div className="flex flex-col gap-y-1">
        <Text size="small" leading="compact" weight="plus">
          {t("image.stopped")}
        </Text>
        <Text size="small">
          {problem.message}{" "}
          <Link to="/settings/servicescan" className="text-ui-fg-interactive hover:text-ui-fg-interactive-hover">
            {t("image.whatToDo")}
          </Link>
        </Text>
      </div>
    </Alert>
  )
}
