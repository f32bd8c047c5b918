import { de } from "./de"
import { en } from "./en"

/** The i18next namespace of this plugin's words, beside the dashboard's own `translation`. */
export const I18N_NAMESPACE = "servicescan"

/**
 * Picked up by Medusa's admin build (`src/admin/i18n/index`, Medusa 2.11.1+)
 * and merged into the dashboard's i18next resources: language → namespace →
 * keys. The admin's language (its profile setting) chooses among them;
 * English is the fallback for any other.
 */
export default {
  en: { [I18N_NAMESPACE]: en },
  de: { [I18N_NAMESPACE]: de },
}
