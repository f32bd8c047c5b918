/**
 * The words of the admin's drawers (record a chargeback, attach scan ids,
 * assign a case to an order) and the form parts they share, under `forms`
 * (en.ts and de.ts take them from here).
 */
export const formsEn = {
  cancel: "Cancel",
  optional: "(optional)",
  orderId: "Order ID",
  record: {
    title: "Record chargeback",
    description: "Enter the chargeback as the payment processor reported it.",
    intro:
      "Enter the chargeback as the processor reported it. The order's card scans are then sent to ServiceScan automatically.",
    orderIdHint: "The Medusa order id, e.g. order_01J…",
    externalId: "Processor dispute ID",
    externalIdHint: "The id on the processor's chargeback notice. Recording the same id twice changes nothing.",
    amount: "Disputed amount",
    currency: "Currency",
    reason: "Reason",
    reasonPlaceholder: "e.g. Fraudulent transaction",
    reasonCode: "Reason code",
    reasonCodePlaceholder: "e.g. 10.4",
    dueBy: "Respond by",
    dueByHint: "The processor's deadline for evidence, counted to the end of that day.",
    submit: "Record chargeback",
    recorded: "Chargeback recorded",
    recordedDescription: "The order's card scans are being sent to ServiceScan.",
    already: "Already recorded",
    alreadyDescription: "Chargeback {{id}} was recorded before; nothing was changed.",
    failed: "Could not record the chargeback",
  },
  attach: {
    title: "Attach scan ids",
    description: "Add card scan ids to chargeback {{id}}.",
    intro:
      "Scan ids of the order's payments are sent automatically. Add others here, for example a scan made on another device. They are sent to ServiceScan as a new proof request.",
    label: "Scan ids",
    hint: "One per line, or separated by commas. Each is a UUIDv4.",
    willSend_one: "{{count}} scan id will be sent.",
    willSend_other: "{{count}} scan ids will be sent.",
    submit: "Attach and send",
    attached_one: "Scan id attached",
    attached_other: "{{count}} scan ids attached",
    attachedDescription: "They are on their way to ServiceScan; the verdict appears here when it is ready.",
    failed: "Could not attach the scan ids",
  },
  assign: {
    title: "Assign to order",
    description: "Assign {{gateway}} case {{id}} to the order it belongs to.",
    intro:
      "{{gateway}} case {{id}} matched no payment of this store. Enter the order it belongs to: its chargeback is recorded there, and the order's card scans are sent to ServiceScan as evidence.",
    amount: "Amount",
    reason: "Reason",
    transaction: "Processor transaction",
    orderReference: "Order reference at the processor",
    orderIdHint: "The Medusa order id, e.g. order_01J…, from the order's page address.",
    submit: "Assign to order",
    assigned: "Case {{id}} assigned",
    assignedDescription: "Its chargeback is recorded on order {{order}}, and the order's card scans go to ServiceScan.",
    failed: "Could not assign the case",
  },
  check: {
    orderIdMissing: "Enter the order's id (order_…).",
    orderIdDisplayNumber:
      '"{{id}}" looks like the order\'s display number. Enter its id instead: open the order, and copy the id (order_…) from the address bar.',
    orderIdInvalid: '"{{id}}" is not an order id. Order ids start with order_, like order_01JABCDEFGHJKMNPQRSTVWXYZ0.',
    externalIdMissing: "Enter the processor's dispute id; it keeps the chargeback from being recorded twice.",
    currencyInvalid: "Enter a three-letter currency code, like EUR.",
    amountSeparators:
      "Enter the disputed amount with digits and one decimal point, without thousands separators (like {{example}}).",
    amountAmbiguous: 'The comma in "{{text}}" could be a thousands separator or a decimal comma. {{advice}}',
    amountPositive: "Enter the disputed amount, greater than zero.",
    amountNoDecimals: "{{code}} amounts have no decimals.",
    amountDecimals: "{{code}} amounts have at most {{decimals}} decimals.",
    dateInvalid: "Enter a valid date.",
    scanIdInvalid: '"{{entry}}" is not a valid scan id. Scan ids are UUIDv4, like 9b2f6c1e-3d4a-4f8b-a1c2-7e5d9f0b3a61.',
    scanIdsInvalid:
      "{{count}} entries are not valid scan ids: {{entries}}. Scan ids are UUIDv4, like 9b2f6c1e-3d4a-4f8b-a1c2-7e5d9f0b3a61.",
    scanIdsMissing: "Enter at least one scan id.",
  },
}

export const formsDe: typeof formsEn = {
  cancel: "Abbrechen",
  optional: "(optional)",
  orderId: "Bestell-ID",
  record: {
    title: "Rückbuchung erfassen",
    description: "Erfassen Sie die Rückbuchung so, wie der Zahlungsabwickler sie gemeldet hat.",
    intro:
      "Erfassen Sie die Rückbuchung so, wie der Zahlungsabwickler sie gemeldet hat. Die Kartenscans der Bestellung werden dann automatisch an ServiceScan gesendet.",
    orderIdHint: "Die Medusa-Bestell-ID, z. B. order_01J…",
    externalId: "Streitfall-ID des Zahlungsabwicklers",
    externalIdHint:
      "Die ID auf der Rückbuchungsmeldung des Zahlungsabwicklers. Dieselbe ID zweimal zu erfassen ändert nichts.",
    amount: "Strittiger Betrag",
    currency: "Währung",
    reason: "Grund",
    reasonPlaceholder: "z. B. Betrügerische Transaktion",
    reasonCode: "Grund-Code",
    reasonCodePlaceholder: "z. B. 10.4",
    dueBy: "Antwort bis",
    dueByHint: "Die Frist des Zahlungsabwicklers für Belege, gezählt bis zum Ende dieses Tages.",
    submit: "Rückbuchung erfassen",
    recorded: "Rückbuchung erfasst",
    recordedDescription: "Die Kartenscans der Bestellung werden an ServiceScan gesendet.",
    already: "Bereits erfasst",
    alreadyDescription: "Rückbuchung {{id}} wurde schon früher erfasst; nichts wurde geändert.",
    failed: "Die Rückbuchung konnte nicht erfasst werden",
  },
  attach: {
    title: "Scan-IDs anhängen",
    description: "Kartenscan-IDs an Rückbuchung {{id}} anhängen.",
    intro:
      "Scan-IDs der Zahlungen der Bestellung werden automatisch gesendet. Fügen Sie hier weitere hinzu, zum Beispiel einen Scan von einem anderen Gerät. Sie gehen als neue Nachweisanfrage an ServiceScan.",
    label: "Scan-IDs",
    hint: "Eine pro Zeile oder durch Kommas getrennt. Jede ist eine UUIDv4.",
    willSend_one: "{{count}} Scan-ID wird gesendet.",
    willSend_other: "{{count}} Scan-IDs werden gesendet.",
    submit: "Anhängen und senden",
    attached_one: "Scan-ID angehängt",
    attached_other: "{{count}} Scan-IDs angehängt",
    attachedDescription: "Sie sind auf dem Weg zu ServiceScan; das Urteil erscheint hier, sobald es vorliegt.",
    failed: "Die Scan-IDs konnten nicht angehängt werden",
  },
  assign: {
    title: "Einer Bestellung zuordnen",
    description: "{{gateway}}-Fall {{id}} der Bestellung zuordnen, zu der er gehört.",
    intro:
      "{{gateway}}-Fall {{id}} passte zu keiner Zahlung dieses Shops. Geben Sie die Bestellung an, zu der er gehört: dort wird seine Rückbuchung erfasst, und die Kartenscans der Bestellung gehen als Beleg an ServiceScan.",
    amount: "Betrag",
    reason: "Grund",
    transaction: "Transaktion beim Zahlungsabwickler",
    orderReference: "Bestellreferenz beim Zahlungsabwickler",
    orderIdHint: "Die Medusa-Bestell-ID, z. B. order_01J…, aus der Adresse der Bestellseite.",
    submit: "Einer Bestellung zuordnen",
    assigned: "Fall {{id}} zugeordnet",
    assignedDescription:
      "Seine Rückbuchung ist an Bestellung {{order}} erfasst, und die Kartenscans der Bestellung gehen an ServiceScan.",
    failed: "Der Fall konnte nicht zugeordnet werden",
  },
  check: {
    orderIdMissing: "Geben Sie die ID der Bestellung ein (order_…).",
    orderIdDisplayNumber:
      "„{{id}}“ sieht nach der Bestellnummer aus. Geben Sie stattdessen die ID ein: öffnen Sie die Bestellung und kopieren Sie die ID (order_…) aus der Adresszeile.",
    orderIdInvalid: "„{{id}}“ ist keine Bestell-ID. Bestell-IDs beginnen mit order_, wie order_01JABCDEFGHJKMNPQRSTVWXYZ0.",
    externalIdMissing:
      "Geben Sie die Streitfall-ID des Zahlungsabwicklers ein; sie verhindert, dass die Rückbuchung zweimal erfasst wird.",
    currencyInvalid: "Geben Sie einen dreibuchstabigen Währungscode ein, wie EUR.",
    amountSeparators:
      "Geben Sie den strittigen Betrag mit Ziffern und einem Dezimalpunkt ein, ohne Tausendertrennzeichen (wie {{example}}).",
    amountAmbiguous: "Das Komma in „{{text}}“ kann ein Tausendertrennzeichen oder ein Dezimalkomma sein. {{advice}}",
    amountPositive: "Geben Sie den strittigen Betrag ein, größer als null.",
    amountNoDecimals: "Beträge in {{code}} haben keine Nachkommastellen.",
    amountDecimals: "Beträge in {{code}} haben höchstens {{decimals}} Nachkommastellen.",
    dateInvalid: "Geben Sie ein gültiges Datum ein.",
    scanIdInvalid:
      "„{{entry}}“ ist keine gültige Scan-ID. Scan-IDs sind UUIDv4, wie 9b2f6c1e-3d4a-4f8b-a1c2-7e5d9f0b3a61.",
    scanIdsInvalid:
      "{{count}} Einträge sind keine gültigen Scan-IDs: {{entries}}. Scan-IDs sind UUIDv4, wie 9b2f6c1e-3d4a-4f8b-a1c2-7e5d9f0b3a61.",
    scanIdsMissing: "Geben Sie mindestens eine Scan-ID ein.",
  },
}
