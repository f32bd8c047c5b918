import { analyticsDe } from "./analytics"
import { caseDe } from "./case"
import { settingsDe } from "./settings"
import { formsDe } from "./forms"
import { imageDe, importDe, unmatchedDe } from "./unmatched"
import type { Translations } from "./en"

/** German: every key English has (the type makes a missing one a compile error). */
export const de: Translations = {
  menu: {
    disputes: "Streitfälle",
    settings: "ServiceScan",
  },
  common: {
    tryAgain: "Erneut versuchen",
    couldNotLoad: "Konnte nicht geladen werden",
    loading: "Wird geladen",
    none: "–",
  },
  disputes: {
    title: "Streitfälle",
    subtitle: "Rückbuchungen Ihrer Bestellungen und die Kartenscan-Belege, die ServiceScan dazu geliefert hat.",
    serviceHealth: "Dienststatus",
    recordChargeback: "Rückbuchung erfassen",
    tabs: {
      chargebacks: "Rückbuchungen",
      unmatched: "Nicht zugeordnete Fälle",
      waiting: "wartend",
    },
    allDisputes: "Alle Streitfälle",
    chargebackFallback: "Rückbuchung",
    loadingChargeback: "Rückbuchung wird geladen",
    notFound: "Rückbuchung nicht gefunden",
    couldNotLoadOne: "Diese Rückbuchung konnte nicht geladen werden",
  },
  list: {
    tableLabel: "Rückbuchungen",
    search: "Rückbuchungen durchsuchen",
    searchPlaceholder: "Streitfall-ID, Bestell-Nr. oder Grund",
    loading: "Rückbuchungen werden geladen",
    couldNotLoad: "Rückbuchungen konnten nicht geladen werden",
    filterMenu: "Filter hinzufügen",
    sortMenu: "Sortieren",
    columnsMenu: "Spalten",
    clearAll: "Alle löschen",
    columns: {
      dispute: "Streitfall",
      order: "Bestellung",
      customer: "Kunde",
      amount: "Betrag",
      reason: "Grund",
      dueBy: "Antwort bis",
      status: "Status",
      evidence: "Belege",
      recorded: "Erfasst",
    },
    filters: {
      status: "Status",
      dueBy: "Antwort bis",
      overdue: "Überfällig",
      next7Days: "Innerhalb von 7 Tagen",
      next30Days: "Innerhalb von 30 Tagen",
      range: "Eigener Zeitraum",
      from: "Von",
      to: "Bis",
    },
    sort: {
      asc: "Aufsteigend",
      desc: "Absteigend",
    },
    empty: {
      heading: "Noch keine Rückbuchungen",
      description:
        "Rückbuchungen kommen über den Webhook des Zahlungsabwicklers, oder Sie erfassen sie an einer Bestellung. Jede schickt die Kartenscans der Bestellung als Beleg an ServiceScan.",
    },
    filteredEmpty: {
      heading: "Keine passenden Rückbuchungen",
      description: "Versuchen Sie andere Filter, oder löschen Sie sie, um alle Rückbuchungen zu sehen.",
    },
    pagination: {
      of: "von",
      results: "Ergebnissen",
      pages: "Seiten",
      prev: "Zurück",
      next: "Weiter",
    },
    orderLabel: "Bestellung {{order}}",
    orderGone: "Bestellung gelöscht",
    guest: "Gast",
    evidence: {
      notLoaded: "–",
      noScans: "Keine Scans",
      worth_one: "{{count}} lohnt den Widerspruch",
      worth_other: "{{count}} lohnen den Widerspruch",
      fraud_one: "{{count}} vermutlich echter Betrug",
      fraud_other: "{{count}} vermutlich echter Betrug",
      awaiting: "wartet auf ServiceScan",
      refused: "Anfrage abgelehnt",
      noVerdict: "Kein Urteil",
    },
  },
  status: {
    chargeback: {
      open: "Offen",
      evidence_pending: "Belege ausstehend",
      evidence_ready: "Belege bereit",
      no_evidence: "Keine Belege",
      won: "Gewonnen",
      lost: "Verloren",
      closed: "Geschlossen",
      representing: "Belege werden gesendet",
      represented: "Widersprochen",
      accepting: "Haftung wird übernommen",
      liability_accepted: "Haftung übernommen",
      expired: "Abgelaufen",
    },
    proofRequest: {
      to_submit: "In der Warteschlange",
      submitting: "Unbestätigt",
      pending: "Ausstehend",
      complete: "Abgeschlossen",
      failed: "Fehlgeschlagen",
    },
  },
  due: {
    none: "Keine Frist",
    overdue: "Überfällig · {{relative}}",
    due: "Fällig {{relative}}",
  },
  chargeback: {
    heading: "Rückbuchung {{id}}",
    checkNow: "Jetzt prüfen",
    actionsFor: "Aktionen für Rückbuchung {{id}}",
    attachScanIds: "Scan-IDs anhängen",
    resubmit: "Erneut an ServiceScan senden",
    facts: {
      amount: "Strittiger Betrag",
      dueBy: "Antwort bis",
      reason: "Grund",
      recorded: "Erfasst",
      order: "Bestellung",
      customer: "Kunde",
      dispute: "Streitfall",
    },
    reasonCode: "Code {{code}}",
    importedFrom: "importiert von {{gateway}}",
    openInDisputes: "In Streitfällen öffnen",
    noScans: {
      heading: "Keine Scans gesendet",
      description:
        "Die Zahlungen der Bestellung tragen keine Scan-ID, es gibt also noch nichts an ServiceScan zu senden. Hängen Sie die Scan-IDs an, die Sie haben.",
    },
  },
  order: {
    heading: "Rückbuchungen",
    subtitle: "Kartenscan-Belege von ServiceScan für Streitfälle zu dieser Bestellung.",
    recordChargeback: "Rückbuchung erfassen",
    loading: "Rückbuchungen werden geladen",
    couldNotLoad: "Die Rückbuchungen dieser Bestellung konnten nicht geladen werden",
    empty: {
      heading: "Keine Rückbuchungen",
      description:
        "Meldet der Zahlungsabwickler eine Rückbuchung zu dieser Bestellung, erfassen Sie sie hier. Ihre Kartenscans gehen dann als Beleg an ServiceScan.",
    },
    scans: {
      heading: "Kartenscans der Zahlungen dieser Bestellung",
      listLabel: "Scan-IDs der Zahlungen dieser Bestellung",
      copy: "Scan-ID {{id}} kopieren",
      note: "Wird automatisch an ServiceScan gesendet, wenn eine Rückbuchung erfasst wird.",
    },
  },
  analytics: analyticsDe,
  case: caseDe,
  settings: settingsDe,
  forms: formsDe,
  unmatched: unmatchedDe,
  import: importDe,
  image: imageDe,
}
