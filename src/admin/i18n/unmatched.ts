/**
 * The words of the Unmatched cases tab (the processor's cases no payment
 * matched), its "Import now" button, and the scan image viewer, under
 * `unmatched`, `import` and `image` (en.ts and de.ts take them from here).
 */
export const unmatchedEn = {
  tableLabel: "Unmatched cases",
  search: "Search cases",
  searchPlaceholder: "Case id, transaction id, order reference or reason",
  loading: "Loading unmatched cases",
  couldNotLoad: "Could not load the unmatched cases",
  sortMenu: "Sort",
  columns: {
    case: "Case",
    amount: "Amount",
    reason: "Reason",
    replyBy: "Reply by",
    processor: "At the processor",
    why: "Why unmatched",
    actions: "Actions",
    received: "Received",
  },
  transaction: "Transaction {{id}}",
  transactionTitle: "The processor's transaction id",
  orderRef: "Order ref. {{id}}",
  orderRefTitle: "The order reference the payment carried",
  assign: "Assign to order",
  assignCase: " (case {{id}})",
  filteredEmpty: {
    heading: "No unmatched case matches",
    description: "Try another search, or clear it.",
  },
  noGateway: {
    heading: "No dispute gateway configured",
    description:
      "Cases are imported from the processor's chargeback API once the servicescan module's disputeGateway option is set (Worldpay: its Chargeback API URL, and your cnpAPI user and password).",
  },
  empty: {
    heading: "No unmatched cases",
    description:
      "Every case imported from the processor matched one of your orders. A case that matches none shows up here, to be assigned by hand.",
  },
}

export const unmatchedDe: typeof unmatchedEn = {
  tableLabel: "Nicht zugeordnete Fälle",
  search: "Fälle durchsuchen",
  searchPlaceholder: "Fall-ID, Transaktions-ID, Bestellreferenz oder Grund",
  loading: "Nicht zugeordnete Fälle werden geladen",
  couldNotLoad: "Die nicht zugeordneten Fälle konnten nicht geladen werden",
  sortMenu: "Sortieren",
  columns: {
    case: "Fall",
    amount: "Betrag",
    reason: "Grund",
    replyBy: "Antwort bis",
    processor: "Beim Zahlungsabwickler",
    why: "Warum nicht zugeordnet",
    actions: "Aktionen",
    received: "Eingegangen",
  },
  transaction: "Transaktion {{id}}",
  transactionTitle: "Die Transaktions-ID des Zahlungsabwicklers",
  orderRef: "Bestellref. {{id}}",
  orderRefTitle: "Die Bestellreferenz, die die Zahlung trug",
  assign: "Einer Bestellung zuordnen",
  assignCase: " (Fall {{id}})",
  filteredEmpty: {
    heading: "Kein nicht zugeordneter Fall passt",
    description: "Versuchen Sie eine andere Suche, oder löschen Sie sie.",
  },
  noGateway: {
    heading: "Kein Zahlungsanbieter für Streitfälle konfiguriert",
    description:
      "Fälle werden aus der Chargeback-API des Zahlungsabwicklers importiert, sobald die Option disputeGateway des Moduls servicescan gesetzt ist (Worldpay: die URL seiner Chargeback-API sowie Ihr cnpAPI-Benutzer und -Passwort).",
  },
  empty: {
    heading: "Keine nicht zugeordneten Fälle",
    description:
      "Jeder vom Zahlungsabwickler importierte Fall passte zu einer Ihrer Bestellungen. Ein Fall, der zu keiner passt, erscheint hier und wird von Hand zugeordnet.",
  },
}

/** "Import now" and the toast that says what the import found. */
export const importEn = {
  button: "Import now",
  failed: "Import failed",
  theProcessor: "The processor",
  newCases: "{{count}} new",
  matched: "{{count}} matched to orders",
  unmatched: "{{count}} unmatched (see Unmatched cases)",
  recorded_one: "{{count}} chargeback recorded",
  recorded_other: "{{count}} chargebacks recorded",
  withErrors_one: "Imported with {{count}} error",
  withErrors_other: "Imported with {{count}} errors",
  moreErrors: " (and {{count}} more; see the server log)",
  upToDate: "Up to date",
  upToDateDescription: "{{gateway}} reported no case changes since the last import.",
  imported_one: "Imported {{count}} case",
  imported_other: "Imported {{count}} cases",
  nothingChanged: "Nothing changed since the last import.",
}

export const importDe: typeof importEn = {
  button: "Jetzt importieren",
  failed: "Import fehlgeschlagen",
  theProcessor: "Der Zahlungsabwickler",
  newCases: "{{count}} neu",
  matched: "{{count}} Bestellungen zugeordnet",
  unmatched: "{{count}} nicht zugeordnet (siehe Nicht zugeordnete Fälle)",
  recorded_one: "{{count}} Rückbuchung erfasst",
  recorded_other: "{{count}} Rückbuchungen erfasst",
  withErrors_one: "Importiert mit {{count}} Fehler",
  withErrors_other: "Importiert mit {{count}} Fehlern",
  moreErrors: " (und {{count}} weitere; siehe Server-Log)",
  upToDate: "Aktuell",
  upToDateDescription: "{{gateway}} hat seit dem letzten Import keine Änderungen an Fällen gemeldet.",
  imported_one: "{{count}} Fall importiert",
  imported_other: "{{count}} Fälle importiert",
  nothingChanged: "Seit dem letzten Import hat sich nichts geändert.",
}

/** The scan image: its thumbnail, large view and download; and the Disputes page's stopped-evidence alert. */
export const imageEn = {
  alt: "Card scan {{id}} ({{verdict}})",
  unavailable: "Image unavailable",
  unavailableLabel: "Image of scan {{id}} unavailable: {{reason}}",
  notAvailable: "The image is not available.",
  notDisplayable: "The image could not be displayed.",
  open: "Open a larger view of the image of scan {{id}}",
  title: "Scan {{id}}",
  description: "The card scan's image, as evidence for the chargeback dispute. {{verdict}}.",
  download: "Download image",
  downloadOf: " of scan {{id}}",
  scannedFor: "Scanned for",
  sameCard: ", with the same saved card.",
  orderNumber: "order #{{number}}",
  orderId: "order {{id}}",
  stopped: "Evidence collection is stopped",
  whatToDo: "See what to do",
}

export const imageDe: typeof imageEn = {
  alt: "Kartenscan {{id}} ({{verdict}})",
  unavailable: "Bild nicht verfügbar",
  unavailableLabel: "Bild von Scan {{id}} nicht verfügbar: {{reason}}",
  notAvailable: "Das Bild ist nicht verfügbar.",
  notDisplayable: "Das Bild konnte nicht angezeigt werden.",
  open: "Größere Ansicht des Bildes von Scan {{id}} öffnen",
  title: "Scan {{id}}",
  description: "Das Bild des Kartenscans, als Beleg für den Rückbuchungsstreit. {{verdict}}.",
  download: "Bild herunterladen",
  downloadOf: " von Scan {{id}}",
  scannedFor: "Gescannt für",
  sameCard: ", mit derselben gespeicherten Karte.",
  orderNumber: "Bestellung #{{number}}",
  orderId: "Bestellung {{id}}",
  stopped: "Die Belegsammlung ist angehalten",
  whatToDo: "Was zu tun ist",
}
