import { resolveModuleOptions } from "../../../modules/servicescan/options"
import { ServiceScanEvents } from "../../../modules/servicescan/types"
import { CaseAlertEvent, caseAlertNotifications } from "../case-alerts"

const alertsOf = (alerts: Record<string, unknown> = {}) => resolveModuleOptions({ baseUrl: "https://x", alerts }).alerts

const dueSoon: CaseAlertEvent = {
  name: ServiceScanEvents.CASE_DUE_SOON,
  data: { id: "sscase_1", case_id: "2030001", gateway: "worldpay", order_id: "order_1", chargeback_id: "chbk_1", reply_by: "2026-12-04", days_left: 3 },
}

describe("case alerts: the notifications of one event", () => {
  it("goes to the admin's bell only, by default: one feed notification in the shape the dashboard's drawer reads", () => {
    expect(caseAlertNotifications(dueSoon, alertsOf(), 12)).toEqual([
      {
        to: "",
        channel: "feed",
        template: "admin-ui",
        data: {
          title: "Chargeback case due in 3 days",
          description: "Worldpay case 2030001 on order #12 waits for an answer by 2026-12-04.",
        },
        resource_type: "chargeback",
        resource_id: "chbk_1",
        idempotency_key: "servicescan:case.due_soon:sscase_1:feed",
      },
    ])
  })

  it("emails each address with the store's template only when `emailTemplate` is set; `feed: false` silences the bell", () => {
    const both = caseAlertNotifications(dueSoon, alertsOf({ emailTemplate: "case-alert", emailTo: ["a@example.com", "B@example.com"] }), 12)
    expect(both.map((n) => [n.channel, n.to, n.template, n.idempotency_key])).toEqual([
      ["feed", "", "admin-ui", "servicescan:case.due_soon:sscase_1:feed"],
      ["email", "a@example.com", "case-alert", "servicescan:case.due_soon:sscase_1:email:a@example.com"],
      ["email", "B@example.com", "case-alert", "servicescan:case.due_soon:sscase_1:email:b@example.com"],
    ])
    expect(both[1].data).toEqual({
      event: "servicescan.case.due_soon",
      title: "Chargeback case due in 3 days",
      description: "Worldpay case 2030001 on order #12 waits for an answer by 2026-12-04.",
      gateway: "worldpay",
      case_id: "2030001",
      chargeback_id: "chbk_1",
      order_id: "order_1",
      order_display_id: 12,
      reply_by: "2026-12-04",
      days_left: 3,
      reason: null,
      outcome: null,
    })
    expect(caseAlertNotifications(dueSoon, alertsOf({ feed: false }), 12)).toEqual([])
  })

  it("words each reason a case needs a person, and keys each reason apart", () => {
    const base = { id: "sscase_2", case_id: "2030002", gateway: "worldpay", reply_by: "2026-12-10" }
    const unmatched = caseAlertNotifications(
      { name: ServiceScanEvents.CASE_NEEDS_ATTENTION, data: { ...base, order_id: null, chargeback_id: null, reason: "unmatched" } },
      alertsOf(),
      null
    )[0]
    expect(unmatched).toMatchObject({
      data: { title: "Chargeback case needs an order" },
      resource_type: "dispute_case",
      resource_id: "sscase_2",
      idempotency_key: "servicescan:case.needs_attention:sscase_2:unmatched:feed",
    })
    const off = caseAlertNotifications(
      { name: ServiceScanEvents.CASE_NEEDS_ATTENTION, data: { ...base, order_id: "order_2", chargeback_id: "chbk_2", reason: "auto_respond_off" } },
      alertsOf(),
      7
    )[0]
    expect(off.data).toEqual({
      title: "Chargeback case needs an answer",
      description:
        "Worldpay case 2030002 on order #7 has its evidence. Send it or accept liability under Disputes before 2026-12-10: automatic answers are off.",
    })
    expect(off.idempotency_key).toBe("servicescan:case.needs_attention:sscase_2:auto_respond_off:feed")
  })

  it("names a decision, and a corrected outcome is a new alert", () => {
    const decided = (outcome: "won" | "lost") =>
      caseAlertNotifications(
        {
          name: ServiceScanEvents.CASE_DECIDED,
          data: { id: "chbk_3", order_id: "order_3", outcome, decided_by: "processor", case_id: "2030003", gateway: "worldpay" },
        },
        alertsOf(),
        3
      )[0]
    expect(decided("won").data).toEqual({ title: "Chargeback won", description: "Worldpay case 2030003 on order #3 was won." })
    expect(decided("won").idempotency_key).not.toBe(decided("lost").idempotency_key)
  })

  it("carries no card data: the email's data has no last four, card type, amount or key", () => {
    const [, email] = caseAlertNotifications(dueSoon, alertsOf({ emailTemplate: "t", emailTo: ["a@example.com"] }), 12)
    // Exactly these fields: a new one (a card's last four, an amount) has to be added here on purpose.
    expect(Object.keys(email.data ?? {}).sort()).toEqual(
      ["case_id", "chargeback_id", "days_left", "description", "event", "gateway", "order_display_id", "order_id", "outcome", "reason", "reply_by", "title"]
    )
    expect(JSON.stringify(email.data)).not.toMatch(/last4|card_type|amount|secret|key/i)
  })

  it("raises a payment operation the processor failed later: the bell names the order, once per operation, with no card data", () => {
    const failed: CaseAlertEvent = {
      name: ServiceScanEvents.PAYMENT_OPERATION_FAILED,
      data: {
        id: "REFUND0000000001",
        operation: "refund",
        payment_transaction_id: "9913140798220028",
        payment_id: "pay_1",
        order_id: "order_1",
        reason: "Refund failed at the scheme",
        occurred_at: "2026-11-28T01:00:00.000Z",
      },
    }
    const [feed, email] = caseAlertNotifications(failed, alertsOf({ emailTemplate: "t", emailTo: ["a@example.com"] }), 7)
    expect(feed).toEqual({
      to: "",
      channel: "feed",
      template: "admin-ui",
      data: {
        title: "Refund failed at the processor",
        description:
          "The processor failed the refund REFUND0000000001 of payment pay_1 on order #7 after accepting it (Refund failed at the scheme). " +
          "Medusa still records it: check the payment at the processor and correct the order.",
      },
      resource_type: "payment",
      resource_id: "pay_1",
      idempotency_key: "servicescan:payment_operation.failed:REFUND0000000001:feed",
    })
    expect(email.idempotency_key).toBe("servicescan:payment_operation.failed:REFUND0000000001:email:a@example.com")
    expect(Object.keys(email.data ?? {}).sort()).toEqual(
      ["description", "event", "occurred_at", "operation", "order_display_id", "order_id", "payment_id", "payment_transaction_id", "reason", "title", "transaction_id"]
    )
    expect(JSON.stringify(email.data)).not.toMatch(/last4|card_type|amount|secret|key/i)

    const unrecorded = caseAlertNotifications({ ...failed, data: { ...failed.data, payment_id: null, order_id: null } }, alertsOf(), null)
    expect(unrecorded[0]).toMatchObject({ resource_type: "processor_transaction", resource_id: "9913140798220028" })
    expect((unrecorded[0].data as { description: string }).description).toContain("which no payment of this store records")
  })
})
