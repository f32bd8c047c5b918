/**
 * Words of Settings → ServiceScan (configuration and service health), merged
 * into en.ts / de.ts like the other areas' files.
 */
export const settingsEn = {
  title: "ServiceScan",
  subtitle: "Chargeback evidence from card scans: configuration and service status.",
  loading: "Loading service health",
  couldNotLoad: "Could not load the service health",
  pollingStopped: "Polling is stopped: {{message}}",
  httpStatus: " (HTTP {{status}})",
  since: "Since {{when}}",
  advice: {
    missingKey:
      "ServiceScan received no API key. Set the secretKey option of the servicescan module (from an environment variable) and restart the server.",
    refusedKey:
      "ServiceScan refused the secret key: it is wrong, revoked, or not allowed to use the disputes API. Ask the ServiceScan operator for a disputes secret key, update the secretKey option and restart. Polling resumes once a check succeeds.",
    other:
      "Set the secretKey option of the servicescan module in medusa-config (from an environment variable, never in code) and restart the server. Polling resumes once a check succeeds.",
  },
  configuration: {
    heading: "Configuration",
    description: "Keys are set in medusa-config from environment variables. Only whether each one is set is shown here.",
    keys: "Keys",
    notReported: "Not reported by the server",
    configured: "Configured",
    missing: "Missing",
    keyNames: {
      secret_key: "Disputes secret key",
      webhook_secret: "Chargeback webhook secret",
      shareable_key: "Shareable form key",
      payment_token_api_key: "Payment token API key",
    },
    disputesApi: "Disputes API",
    gateway: "Dispute gateway",
    notConfigured: "Not configured",
    gatewayOff: "Chargeback cases are not imported from the processor, and answers are not sent to it.",
    autoRespond: "Automatic answers",
    autoRespondPolicy: {
      off: "Off: an admin answers each case",
      "represent-valid": "Sends the evidence when a scan is worth disputing; an admin decides the rest",
      "represent-valid-accept-invalid":
        "Sends the evidence when a scan is worth disputing, accepts liability when every scan is likely true fraud",
    },
    imageArchive: "Image archive",
    archiveOn: "On: images are copied to the store's file storage",
    archiveOff: "Off",
  },
  service: {
    heading: "Service",
    checkAgain: "Check again",
    notChecked: "Not checked",
    reachable: "Reachable",
    notReachable: "Not reachable",
    latency: "{{ms}} ms",
    polling: "Polling",
    unknown: "Unknown",
    stopped: "Stopped",
    running: "Running",
    every: {
      hour_one: "every hour",
      hour_other: "every {{count}} hours",
      minute_one: "every minute",
      minute_other: "every {{count}} minutes",
      second_one: "every second",
      second_other: "every {{count}} seconds",
      ms: "every {{count}} ms",
    },
    lastCheck: "Last status check",
    never: "Never",
    waiting: "Waiting on ServiceScan",
    proofRequests_one: "{{count}} proof request",
    proofRequests_other: "{{count}} proof requests",
    unconfirmed: "Unconfirmed submissions",
    unconfirmedText_one:
      "{{count}} proof request: ServiceScan's answer was lost or is still on its way. Each is sent again by itself after a wait; to send one sooner, open its dispute and use Resubmit.",
    unconfirmedText_other:
      "{{count}} proof requests: ServiceScan's answer was lost or is still on its way. Each is sent again by itself after a wait; to send one sooner, open its dispute and use Resubmit.",
    byStatus: "Proof requests by status",
  },
}

export const settingsDe: typeof settingsEn = {
  title: "ServiceScan",
  subtitle: "Rückbuchungsbelege aus Kartenscans: Konfiguration und Dienststatus.",
  loading: "Dienststatus wird geladen",
  couldNotLoad: "Der Dienststatus konnte nicht geladen werden",
  pollingStopped: "Die Abfrage ist angehalten: {{message}}",
  httpStatus: " (HTTP {{status}})",
  since: "Seit {{when}}",
  advice: {
    missingKey:
      "ServiceScan hat keinen API-Schlüssel erhalten. Setzen Sie die Option secretKey des Moduls servicescan (aus einer Umgebungsvariable) und starten Sie den Server neu.",
    refusedKey:
      "ServiceScan hat den geheimen Schlüssel abgelehnt: er ist falsch, widerrufen oder nicht für die Disputes-API freigegeben. Fordern Sie beim ServiceScan-Betreiber einen Disputes-Schlüssel an, aktualisieren Sie die Option secretKey und starten Sie neu. Die Abfrage läuft wieder, sobald eine Prüfung gelingt.",
    other:
      "Setzen Sie die Option secretKey des Moduls servicescan in medusa-config (aus einer Umgebungsvariable, nie im Code) und starten Sie den Server neu. Die Abfrage läuft wieder, sobald eine Prüfung gelingt.",
  },
  configuration: {
    heading: "Konfiguration",
    description:
      "Schlüssel werden in medusa-config aus Umgebungsvariablen gesetzt. Hier wird nur angezeigt, ob jeder gesetzt ist.",
    keys: "Schlüssel",
    notReported: "Vom Server nicht gemeldet",
    configured: "Konfiguriert",
    missing: "Fehlt",
    keyNames: {
      secret_key: "Geheimer Disputes-Schlüssel",
      webhook_secret: "Webhook-Geheimnis für Rückbuchungen",
      shareable_key: "Freigabeschlüssel des Formulars",
      payment_token_api_key: "API-Schlüssel für Zahlungstoken",
    },
    disputesApi: "Disputes-API",
    gateway: "Zahlungsanbieter für Streitfälle",
    notConfigured: "Nicht konfiguriert",
    gatewayOff: "Rückbuchungsfälle werden nicht vom Zahlungsanbieter importiert und Antworten nicht an ihn gesendet.",
    autoRespond: "Automatische Antworten",
    autoRespondPolicy: {
      off: "Aus: ein Admin beantwortet jeden Fall",
      "represent-valid": "Sendet die Belege, wenn ein Scan anfechtbar ist; über den Rest entscheidet ein Admin",
      "represent-valid-accept-invalid":
        "Sendet die Belege, wenn ein Scan anfechtbar ist, und übernimmt die Haftung, wenn jeder Scan wahrscheinlich echter Betrug ist",
    },
    imageArchive: "Bildarchiv",
    archiveOn: "An: Bilder werden in den Dateispeicher des Shops kopiert",
    archiveOff: "Aus",
  },
  service: {
    heading: "Dienst",
    checkAgain: "Erneut prüfen",
    notChecked: "Nicht geprüft",
    reachable: "Erreichbar",
    notReachable: "Nicht erreichbar",
    latency: "{{ms}} ms",
    polling: "Abfrage",
    unknown: "Unbekannt",
    stopped: "Angehalten",
    running: "Läuft",
    every: {
      hour_one: "jede Stunde",
      hour_other: "alle {{count}} Stunden",
      minute_one: "jede Minute",
      minute_other: "alle {{count}} Minuten",
      second_one: "jede Sekunde",
      second_other: "alle {{count}} Sekunden",
      ms: "alle {{count}} ms",
    },
    lastCheck: "Letzte Statusprüfung",
    never: "Nie",
    waiting: "Wartet auf ServiceScan",
    proofRequests_one: "{{count}} Nachweisanfrage",
    proofRequests_other: "{{count}} Nachweisanfragen",
    unconfirmed: "Unbestätigte Übermittlungen",
    unconfirmedText_one:
      "{{count}} Nachweisanfrage: die Antwort von ServiceScan ging verloren oder ist noch unterwegs. Jede wird nach einer Wartezeit von selbst erneut gesendet; um eine früher zu senden, öffnen Sie ihren Streitfall und wählen Sie „Erneut senden“.",
    unconfirmedText_other:
      "{{count}} Nachweisanfragen: die Antwort von ServiceScan ging verloren oder ist noch unterwegs. Jede wird nach einer Wartezeit von selbst erneut gesendet; um eine früher zu senden, öffnen Sie ihren Streitfall und wählen Sie „Erneut senden“.",
    byStatus: "Nachweisanfragen nach Status",
  },
}
