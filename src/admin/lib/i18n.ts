import { useTranslation } from "react-i18next"
import { I18N_NAMESPACE } from "../i18n"
import type { SayCheck } from "./validation"

/**
 * The plugin's translate function: the dashboard's i18next instance (shared,
 * since `react-i18next` is external to a plugin's admin bundle), in the
 * plugin's own namespace so its keys never collide with the dashboard's.
 */
export function useServiceScanTranslation() {
  return useTranslation(I18N_NAMESPACE)
}

/** The form checks' messages (lib/validation.ts) in the admin's language. */
export function useCheckWords(): SayCheck {
  const { t } = useServiceScanTranslation()
  return (key, values) => t(`forms.check.${key}`, values ?? {})
}

/** The words of a `DataTable.Pagination`, shared by the plugin's lists. */
export function usePaginationWords() {
  const { t } = useServiceScanTranslation()
  return {
    of: t("list.pagination.of"),
    results: t("list.pagination.results"),
    pages: t("list.pagination.pages"),
    prev: t("list.pagination.prev"),
    next: t("list.pagination.next"),
  }
}
