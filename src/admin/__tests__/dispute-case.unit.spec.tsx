/**
 * @jest-environment ./src/admin/__tests__/support/jsdom-env.js
 */
import "@testing-library/jest-dom"
import { act, fireEvent, screen, waitFor, within } from "@testing-library/react"
import type { AdminOrder } from "@medusajs/framework/types"
import { ChargebackSection } from "../components/chargeback-section"
import DisputeDetailPage from "../routes/disputes/[id]/page"
import OrderChargebacksWidget from "../widgets/order-chargebacks"
import { formatDay } from "../lib/format"
import type { DisputeActivity } from "../lib/types"
import {
  CASE_ID,
  caseChargeback,
  chargeback,
  disputeCase,
  list,
  proofRequest,
  utcDay,
  VALID_SCAN,
  INVALID_SCAN,
} from "./support/fixtures"
import { mockFetch, type FetchMock } from "./support/fetch-mock"
import { installDomShims, renderAdmin } from "./support/render"

installDomShims()

const DETAIL = "/admin/servicescan/chargebacks/chbk_01"
const RESPOND = "/admin/servicescan/chargebacks/chbk_01/respond"
const PACK = "/admin/servicescan/chargebacks/chbk_01/evidence-pack"

let api: FetchMock
beforeEach(() => {
  api = mockFetch()
})
afterEach(() => {
  api.restore()
  jest.restoreAllMocks()
})

const panel = () => screen.getByTestId("dispute-case")
const sendButton = () => within(panel()).getByRole("button", { name: "Send evidence to Worldpay" })
const acceptButton = () => within(panel()).getByRole("button", { name: "Accept liability" })
const timeline = () => within(panel()).getByRole("list", { name: `Activity on case ${CASE_ID}, newest first` })

async function confirm(name: string) {
  const prompt = await screen.findByRole("alertdialog")
  await act(async () => {
    fireEvent.click(within(prompt).getByRole("button", { name }))
  })
  return prompt
}

describe("the case on the dispute page", () => {
  it("asks for the chargeback with its case, and shows what the processor says", async () => {
    api.on("GET", DETAIL, { body: { chargeback: caseChargeback() } })
    renderAdmin(<DisputeDetailPage />, { path: "/disputes/:id", url: "/disputes/chbk_01" })

    expect(await screen.findByRole("heading", { level: 2, name: `Worldpay case ${CASE_ID}` })).toBeInTheDocument()
    const [call] = api.callsTo("GET", DETAIL)
    expect(call.url.searchParams.get("fields")!.split(",")).toEqual(
      expect.arrayContaining(["+dispute_case.case_id", "+dispute_case.activities", "+dispute_case.response_status"])
    )

    const facts = within(panel())
    const fact = (label: string) => facts.getByText(label).closest("div")!.querySelector("dd")!
    expect(fact("Cycle")).toHaveTextContent("First Chargeback")
    expect(fact("Reason")).toHaveTextContent("4837 · No Cardholder Authorization")
    expect(fact("Reason family")).toHaveTextContent("Fraud")
    expect(fact("Reply by")).toHaveTextContent(formatDay(utcDay(3)))
    expect(within(fact("Reply by")).getByTestId("reply-by-countdown")).toHaveTextContent("3 days left")
    expect(fact("Queue")).toHaveTextContent("Waiting for you (Merchant)")
    expect(fact("Our answer")).toHaveTextContent("Not answered")
    expect(fact("Network's decision")).toHaveTextContent("Not decided yet")
    expect(fact("Card")).toHaveTextContent("Mastercard •••• 4444")
    expect(fact("Processor transaction")).toHaveTextContent("834262947682512345")
    expect(facts.getByTestId("response-status")).toHaveTextContent("Not answered")
    // The chargeback says where it came from.
    expect(screen.getByText(/imported from Worldpay/)).toBeInTheDocument()
    // Both answers are open: the case waits for the merchant and the evidence is ready.
    expect(sendButton()).toBeEnabled()
    expect(acceptButton()).toBeEnabled()
    expect(within(panel()).queryByRole("list", { name: "Why some answers are not possible" })).not.toBeInTheDocument()
  })

  it("lists the activity newest first, in plain words, with dates, queues, amounts and notes", async () => {
    const items: DisputeActivity[] = [
      {
        date: "2025-03-12",
        type: "Case Won",
        fromQueue: "Vantiv",
        toQueue: "Network Assumed",
        settlementAmountMinor: 4999,
        settlementCurrencyCode: "EUR",
      },
      { date: "2025-03-05", type: "Merchant Represent", fromQueue: "Merchant", toQueue: "Vantiv", notes: "Card scan attached" },
      {
        date: "2025-03-01",
        type: "Assign To Merchant",
        fromQueue: "Vantiv",
        toQueue: "Merchant",
        settlementAmountMinor: 4999,
        settlementCurrencyCode: "EUR",
      },
      { date: "2025-03-01", type: "Something New At Worldpay" },
    ]
    renderAdmin(
      <ChargebackSection
        chargeback={caseChargeback({
          activities: { items },
          queue: "Network Assumed",
          awaiting_merchant: false,
          response_status: "represented",
          represented_at: "2025-03-05T10:00:00.000Z",
          outcome: "won",
        })}
      />
    )
    const entries = within(timeline()).getAllByRole("listitem")
    expect(entries).toHaveLength(4)
    expect(entries[0]).toHaveTextContent("Won: decided in your favour")
    expect(entries[0]).toHaveTextContent("Case Won")
    expect(entries[0]).toHaveTextContent(`${formatDay("2025-03-12")} · Vantiv → Network Assumed · €49.99`)
    expect(entries[1]).toHaveTextContent("Evidence sent: chargeback represented")
    expect(entries[1]).toHaveTextContent("Card scan attached")
    expect(entries[2]).toHaveTextContent("Chargeback assigned to you")
    expect(entries[2]).toHaveTextContent("Vantiv → Merchant · €49.99")
    // A type this build does not know is shown as the processor wrote it.
    expect(entries[3]).toHaveTextContent("Something New At Worldpay")
    expect(within(entries[0]).getByText(formatDay("2025-03-12")).closest("time")).toHaveAttribute("datetime", "2025-03-12")

    // The network's decision and a closed queue, and no countdown once answered.
    expect(within(panel()).getAllByText("Won").length).toBeGreaterThan(0)
    expect(within(panel()).getByText("Closed: the card network bears it")).toBeInTheDocument()
    expect(within(panel()).queryByTestId("reply-by-countdown")).not.toBeInTheDocument()
  })

  it("says when the processor reported no activity yet", () => {
    renderAdmin(<ChargebackSection chargeback={caseChargeback({ activities: { items: [] } })} />)
    expect(within(panel()).getByText("Worldpay reported no activity on this case yet.")).toBeInTheDocument()
  })

  it.each([
    [0, "due today"],
    [1, "1 day left"],
    [3, "3 days left"],
    [20, "20 days left"],
  ])("counts down to the reply-by day: %i days ahead is %s", (days, label) => {
    renderAdmin(<ChargebackSection chargeback={caseChargeback({ reply_by: utcDay(days) })} />)
    expect(within(panel()).getByTestId("reply-by-countdown")).toHaveTextContent(label)
    expect(sendButton()).toBeEnabled()
  })

  it.each([
    ["13.1", "VI", "Not received"],
    ["C31", "AX", "Not as described"],
    ["4860", "MC", "Duplicate or credit not processed"],
    ["99.99", "VI", "Other"],
  ])("names the reason family of %s (%s): %s", (reason_code, card_type, family) => {
    renderAdmin(<ChargebackSection chargeback={caseChargeback({ reason_code, card_type })} />)
    const label = within(panel()).getByText("Reason family")
    expect(label.closest("div")!.querySelector("dd")).toHaveTextContent(family)
  })

  it("names the gateway the case came from", () => {
    renderAdmin(<ChargebackSection chargeback={caseChargeback({ gateway: "acmepay" })} />)
    expect(within(panel()).getByRole("heading", { name: `Acmepay case ${CASE_ID}` })).toBeInTheDocument()
    expect(within(panel()).getByRole("button", { name: "Send evidence to Acmepay" })).toBeInTheDocument()
  })

  it("shows the last failed answer", () => {
    renderAdmin(
      <ChargebackSection
        chargeback={caseChargeback({ response_error: "Worldpay refused the document: Filesize exceeds limit of 2MB" })}
      />
    )
    expect(within(panel()).getByText(/The last answer to Worldpay failed:/).parentElement).toHaveTextContent(
      "The last answer to Worldpay failed: Worldpay refused the document: Filesize exceeds limit of 2MB"
    )
  })

  it("has no case section for a chargeback without a processor case", () => {
    renderAdmin(<ChargebackSection chargeback={chargeback({ dispute_case: null })} />)
    expect(screen.queryByTestId("dispute-case")).not.toBeInTheDocument()
    expect(screen.queryByRole("button", { name: /Send evidence/ })).not.toBeInTheDocument()
  })
})

describe("when an answer is not possible", () => {
  const represented = "2025-03-05T10:00:00.000Z"
  it.each([
    {
      what: "the evidence was already sent",
      overrides: { response_status: "represented", represented_at: represented, queue: "Vantiv", awaiting_merchant: false },
      reason: /^Already answered: the evidence was sent on /,
      send: false,
      accept: false,
    },
    {
      what: "liability was already accepted",
      overrides: { response_status: "liability_accepted", liability_accepted_at: represented, queue: "Merchant Assumed", awaiting_merchant: false },
      reason: /^Already answered: liability was accepted on /,
      send: false,
      accept: false,
    },
    {
      what: "the reply-by day has passed",
      overrides: { reply_by: utcDay(-1) },
      reason: `The reply-by day (${formatDay(utcDay(-1))}) has passed; Worldpay takes no answer any more.`,
      send: false,
      accept: false,
    },
    {
      what: "the case expired",
      overrides: { response_status: "expired", reply_by: null, queue: "Merchant Assumed", awaiting_merchant: false },
      reason: "The reply period has expired; Worldpay takes no answer any more.",
      send: false,
      accept: false,
    },
    {
      what: "the processor is not waiting for the merchant",
      overrides: { queue: "Vantiv", awaiting_merchant: false },
      reason: "Worldpay is not waiting for your answer (the case is in its “Vantiv” queue).",
      send: false,
      accept: false,
    },
    {
      what: "the evidence is being sent",
      overrides: { response_status: "representing" },
      reason: "The evidence is being sent; liability cannot be accepted at the same time.",
      // A retry finishes what was started.
      send: true,
      accept: false,
    },
  ] as const)("$what", ({ overrides, reason, send, accept }) => {
    renderAdmin(<ChargebackSection chargeback={caseChargeback(overrides)} />)
    const reasons = within(panel()).getByRole("list", { name: "Why some answers are not possible" })
    expect(within(reasons).getAllByRole("listitem")).toHaveLength(1)
    expect(reasons).toHaveTextContent(reason)
    for (const [button, allowed] of [
      [sendButton(), send],
      [acceptButton(), accept],
    ] as const) {
      if (allowed) {
        expect(button).toBeEnabled()
        expect(button).not.toHaveAttribute("aria-describedby")
      } else {
        expect(button).toBeDisabled()
        expect(button).toHaveAccessibleDescription(reason)
      }
    }
  })

  it("does not send evidence while ServiceScan has not answered, but can accept", () => {
    renderAdmin(
      <ChargebackSection
        chargeback={caseChargeback(
          {},
          {
            status: "evidence_pending",
            proof_requests: [proofRequest({ status: "pending", completed_at: null, scans: [{ scan_id: VALID_SCAN, ground_truth: null }] })],
          }
        )}
      />
    )
    expect(sendButton()).toBeDisabled()
    expect(sendButton()).toHaveAccessibleDescription("The evidence is not ready: ServiceScan has not returned its verdict yet.")
    expect(acceptButton()).toBeEnabled()
  })

  it("does not send evidence when every scan is likely true fraud", () => {
    renderAdmin(
      <ChargebackSection
        chargeback={caseChargeback(
          {},
          { status: "no_evidence", proof_requests: [proofRequest({ scans: [{ scan_id: INVALID_SCAN, ground_truth: "invalid" }] })] }
        )}
      />
    )
    expect(sendButton()).toBeDisabled()
    expect(sendButton()).toHaveAccessibleDescription(/^No scan was judged worth disputing/)
    expect(acceptButton()).toBeEnabled()
  })
})

describe("answering the case", () => {
  it("sends the evidence after confirmation, then shows the processor's new activity", async () => {
    let represented = false
    const before = caseChargeback()
    const after = caseChargeback({
      response_status: "represented",
      represented_at: new Date().toISOString(),
      document_id: `servicescan-chbk_01.pdf`,
      queue: "Vantiv",
      awaiting_merchant: false,
      activities: {
        items: [
          { date: utcDay(0), type: "Merchant Represent", fromQueue: "Merchant", toQueue: "Vantiv", notes: "ServiceScan evidence pack" },
          ...(before.dispute_case?.activities?.items ?? []),
        ],
      },
    })
    api.on("GET", DETAIL, () => ({ body: { chargeback: represented ? after : before } }))
    api.on("POST", RESPOND, () => {
      represented = true
      return { body: { chargeback: after, dispute_case: after.dispute_case } }
    })
    renderAdmin(<DisputeDetailPage />, { path: "/disputes/:id", url: "/disputes/chbk_01" })
    await screen.findByTestId("dispute-case")
    expect(within(timeline()).getAllByRole("listitem")).toHaveLength(1)

    fireEvent.click(sendButton())
    const prompt = await screen.findByRole("alertdialog")
    expect(prompt).toHaveTextContent("Send evidence to Worldpay?")
    expect(prompt).toHaveTextContent(`uploaded to case ${CASE_ID}`)
    expect(prompt).toHaveTextContent("This cannot be undone.")
    await confirm("Send evidence")

    expect(await screen.findByText("Evidence sent to Worldpay")).toBeInTheDocument()
    const [call] = api.callsTo("POST", RESPOND)
    expect(call.body).toEqual({ action: "represent" })
    // The session cookie authenticates; no key or token goes with it.
    expect(call.headers.get("authorization")).toBeNull()

    // The detail was read again: the timeline has the representment on top.
    await waitFor(() => expect(within(timeline()).getAllByRole("listitem")).toHaveLength(2))
    expect(within(timeline()).getAllByRole("listitem")[0]).toHaveTextContent("Evidence sent: chargeback represented")
    expect(within(panel()).getByTestId("response-status")).toHaveTextContent("Evidence sent")
    expect(sendButton()).toBeDisabled()
    expect(sendButton()).toHaveAccessibleDescription(/^Already answered: the evidence was sent on /)
    expect(api.callsTo("GET", DETAIL)).toHaveLength(2)
  })

  it("sends nothing when the admin cancels", async () => {
    renderAdmin(<ChargebackSection chargeback={caseChargeback()} />)
    fireEvent.click(sendButton())
    await confirm("Cancel")
    await waitFor(() => expect(screen.queryByRole("alertdialog")).not.toBeInTheDocument())
    expect(api.calls).toHaveLength(0)
  })

  it("accepts liability after confirmation", async () => {
    api.on("POST", RESPOND, {
      body: { chargeback: caseChargeback(), dispute_case: disputeCase({ response_status: "liability_accepted" }) },
    })
    renderAdmin(<ChargebackSection chargeback={caseChargeback()} />)
    fireEvent.click(acceptButton())
    const prompt = await screen.findByRole("alertdialog")
    expect(prompt).toHaveTextContent("Accept liability?")
    expect(prompt).toHaveTextContent(`You accept chargeback case ${CASE_ID} at Worldpay: the €49.99 stays with the cardholder`)
    await confirm("Accept liability")
    expect(await screen.findByText("Liability accepted")).toBeInTheDocument()
    expect(api.callsTo("POST", RESPOND)[0].body).toEqual({ action: "accept" })
  })

  it("shows the server's reason when the answer is refused", async () => {
    api.on("POST", RESPOND, {
      status: 400,
      body: { type: "not_allowed", message: "Case 397892775806 is not in the merchant's queue at Worldpay (queue Vantiv)" },
    })
    renderAdmin(<ChargebackSection chargeback={caseChargeback()} />)
    fireEvent.click(sendButton())
    await confirm("Send evidence")
    await waitFor(() =>
      expect(within(panel()).getByRole("alert")).toHaveTextContent(
        "Case 397892775806 is not in the merchant's queue at Worldpay (queue Vantiv)"
      )
    )
    expect(await screen.findByText("Could not send the evidence")).toBeInTheDocument()
  })
})

describe("the evidence pack", () => {
  it("is a link to the admin route, downloaded with the session cookie under the server's file name", async () => {
    const pdf = "%PDF-1.7\n%evidence\n"
    api.on("GET", PACK, {
      raw: pdf,
      headers: { "content-type": "application/pdf", "content-disposition": `attachment; filename="servicescan-${CASE_ID}.pdf"` },
    })
    const created: Blob[] = []
    URL.createObjectURL = jest.fn((blob: Blob) => {
      created.push(blob)
      return "blob:pack"
    })
    URL.revokeObjectURL = jest.fn()
    const clicks: { href: string; download: string }[] = []
    jest.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (this: HTMLAnchorElement) {
      clicks.push({ href: this.href, download: this.download })
    })
    renderAdmin(<ChargebackSection chargeback={caseChargeback()} />)
    const link = within(panel()).getByRole("link", { name: "Download evidence pack" })
    expect(link).toHaveAttribute("href", PACK)

    fireEvent.click(link)
    expect(await screen.findByText("Evidence pack downloaded")).toBeInTheDocument()
    const [call] = api.callsTo("GET", PACK)
    expect(call.credentials).toBe("include")
    expect(call.headers.get("authorization")).toBeNull()
    expect(clicks).toEqual([{ href: "blob:pack", download: `servicescan-${CASE_ID}.pdf` }])
    expect(await created[0].text()).toBe(pdf)
  })

  it("says why when the pack cannot be made", async () => {
    api.on("GET", PACK, {
      status: 409,
      body: { type: "conflict", message: "The order of this chargeback was deleted; there is nothing to put in a pack" },
    })
    const click = jest.spyOn(HTMLAnchorElement.prototype, "click")
    renderAdmin(<ChargebackSection chargeback={caseChargeback()} />)
    fireEvent.click(within(panel()).getByRole("link", { name: "Download evidence pack" }))
    expect(await screen.findByText("Could not download the evidence pack")).toBeInTheDocument()
    expect(screen.getByText("The order of this chargeback was deleted; there is nothing to put in a pack")).toBeInTheDocument()
    expect(click).not.toHaveBeenCalled()
  })

  it("says when the pack was made and whether its images were reduced", () => {
    renderAdmin(
      <ChargebackSection
        chargeback={caseChargeback({ pack_generated_at: "2025-03-05T10:00:00.000Z", pack_bytes: 1_887_437, pack_downscaled: true })}
      />
    )
    expect(within(panel()).getByText(/^Evidence pack made/)).toHaveTextContent(
      /, 1\.8 MB\. Its images were reduced to fit Worldpay's size limit/
    )
  })
})

describe("on the order page", () => {
  const order = { id: "order_01", currency_code: "eur", total: 49.99, payment_collections: [] } as unknown as AdminOrder

  it("asks for each chargeback's case with the evidence, and shows it", async () => {
    api.on("GET", "/admin/servicescan/chargebacks", { body: list([caseChargeback()]) })
    renderAdmin(<OrderChargebacksWidget data={order} />)
    expect(await screen.findByRole("heading", { level: 3, name: `Worldpay case ${CASE_ID}` })).toBeInTheDocument()
    const fields = (api.callsTo("GET", "/admin/servicescan/chargebacks")[0].url.searchParams.get("fields") ?? "").split(",")
    expect(fields).toEqual(expect.arrayContaining(["+dispute_case.case_id", "+dispute_case.reply_by", "+proof_requests.scans.ground_truth"]))
    expect(sendButton()).toBeEnabled()
    expect(within(timeline()).getByText("Chargeback assigned to you")).toBeInTheDocument()
  })
})
