/**
 * The words of the Disputes analytics page (routes/disputes/analytics), kept
 * beside the rest of the namespace's keys under `analytics` (en.ts and de.ts
 * take them from here).
 */
export const analyticsEn = {
  title: "Dispute analytics",
  subtitle:
    "Chargebacks against your ServiceScan orders by month, with the card networks' monitoring lines, outcomes and the money at stake.",
  link: "Analytics",
  breadcrumb: "Analytics",
  pickers: {
    from: "From",
    to: "To",
    currency: "Currency",
  },
  loading: "Loading analytics",
  couldNotLoad: "Could not load the analytics",
  empty: {
    heading: "No orders or chargebacks in this range",
    description: "Pick another range or currency. Figures appear once orders are paid through ServiceScan.",
  },
  chart: {
    title: "Chargeback ratio by month, {{currency}}",
    description:
      "Chargebacks as a share of ServiceScan orders each month from {{from}} to {{to}}, against the Visa line at {{visa}} and the Mastercard line at {{mastercard}} (with at least {{min}} chargebacks).",
    visaLine: "Visa {{value}}",
    mastercardLine: "Mastercard {{value}}",
    ratio: "Chargeback ratio",
    noOrders: "no orders",
  },
  table: {
    caption: "Dispute figures by month, {{currency}}",
    figure: "Figure",
    total: "Total",
    notApplicable: "n/a",
    rows: {
      orders: "Orders",
      chargebacks: "Chargebacks",
      chargebackRatio: "Chargeback ratio",
      visa: "Over the Visa line",
      mastercard: "Over the Mastercard line",
      won: "Won",
      lost: "Lost",
      closed: "Closed without a decision",
      pending: "Pending",
      winRate: "Win rate",
      recovered: "Recovered",
      lostAmount: "Lost amount",
      atStake: "At stake (pending)",
      dueSoon: "Due in the next {{days}} days",
      scanShare: "Orders with a scan",
      verdictValid: "Scans judged valid",
      verdictInvalid: "Scans judged likely fraud",
      verdictUnjudged: "Scans without a verdict",
    },
    yes: "Yes",
    no: "No",
  },
  notes:
    "A chargeback counts in the month of its processor case (else the day it was recorded); orders in the month they were placed. Months are UTC.",
}

/** German. */
export const analyticsDe: DeepStrings<typeof analyticsEn> = {
  title: "Streitfall-Analyse",
  subtitle:
    "Rückbuchungen im Verhältnis zu Ihren ServiceScan-Bestellungen pro Monat, mit den Überwachungsgrenzen der Kartennetzwerke, Ergebnissen und dem offenen Betrag.",
  link: "Analyse",
  breadcrumb: "Analyse",
  pickers: {
    from: "Von",
    to: "Bis",
    currency: "Währung",
  },
  loading: "Analyse wird geladen",
  couldNotLoad: "Die Analyse konnte nicht geladen werden",
  empty: {
    heading: "Keine Bestellungen oder Rückbuchungen in diesem Zeitraum",
    description: "Wählen Sie einen anderen Zeitraum oder eine andere Währung. Zahlen erscheinen, sobald Bestellungen über ServiceScan bezahlt werden.",
  },
  chart: {
    title: "Rückbuchungsquote pro Monat, {{currency}}",
    description:
      "Rückbuchungen als Anteil der ServiceScan-Bestellungen pro Monat von {{from}} bis {{to}}, mit der Visa-Grenze bei {{visa}} und der Mastercard-Grenze bei {{mastercard}} (ab {{min}} Rückbuchungen).",
    visaLine: "Visa {{value}}",
    mastercardLine: "Mastercard {{value}}",
    ratio: "Rückbuchungsquote",
    noOrders: "keine Bestellungen",
  },
  table: {
    caption: "Streitfall-Zahlen pro Monat, {{currency}}",
    figure: "Kennzahl",
    total: "Gesamt",
    notApplicable: "k. A.",
    rows: {
      orders: "Bestellungen",
      chargebacks: "Rückbuchungen",
      chargebackRatio: "Rückbuchungsquote",
      visa: "Über der Visa-Grenze",
      mastercard: "Über der Mastercard-Grenze",
      won: "Gewonnen",
      lost: "Verloren",
      closed: "Ohne Entscheidung geschlossen",
      pending: "Offen",
      winRate: "Gewinnquote",
      recovered: "Zurückgewonnen",
      lostAmount: "Verlorener Betrag",
      atStake: "Offener Betrag",
      dueSoon: "Fällig in den nächsten {{days}} Tagen",
      scanShare: "Bestellungen mit Scan",
      verdictValid: "Scans als gültig bewertet",
      verdictInvalid: "Scans als wahrscheinlicher Betrug bewertet",
      verdictUnjudged: "Scans ohne Bewertung",
    },
    yes: "Ja",
    no: "Nein",
  },
  notes:
    "Eine Rückbuchung zählt im Monat ihres Prozessor-Falls (sonst am Tag ihrer Erfassung); Bestellungen im Monat ihrer Aufgabe. Monate in UTC.",
}

type DeepStrings<T> = { [K in keyof T]: T[K] extends string ? string : DeepStrings<T[K]> }
