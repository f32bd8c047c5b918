/**
 * @jest-environment ./src/admin/__tests__/support/jsdom-env.js
 */
import "@testing-library/jest-dom"
import { act, fireEvent, screen, waitFor, within } from "@testing-library/react"
import { ChargebackSection } from "../components/chargeback-section"
import { chargeback, FRAUD_SCAN, INVALID_SCAN, proofRequest, SERVICE_IMAGE_URL, UNREPORTED_SCAN, VALID_SCAN } from "./support/fixtures"
import { mockFetch, type FetchMock } from "./support/fetch-mock"
import { installDomShims, renderAdmin } from "./support/render"

installDomShims()

let api: FetchMock
beforeEach(() => {
  api = mockFetch()
})
afterEach(() => {
  api.restore()
})

/** Radix menus open from the keyboard too; that is how a keyboard user gets to these actions. */
async function openActions(externalId = "dp_1001") {
  const trigger = screen.getByRole("button", { name: `Actions for chargeback ${externalId}` })
  trigger.focus()
  fireEvent.keyDown(trigger, { key: "Enter" })
  return await screen.findByRole("menu")
}

describe("scan evidence", () => {
  it("says what each ground truth means, with the real service's `fraud` read as `invalid`", () => {
    renderAdmin(
      <ChargebackSection
        chargeback={chargeback({
          proof_requests: [
            proofRequest({
              scans: [
                { scan_id: VALID_SCAN, ground_truth: "valid" },
                { scan_id: INVALID_SCAN, ground_truth: "invalid" },
                { scan_id: FRAUD_SCAN, ground_truth: "fraud" },
                { scan_id: UNREPORTED_SCAN, ground_truth: null },
              ],
            }),
          ],
        })}
      />
    )
    const rows = screen.getAllByTestId("scan-row")
    const verdictOf = (scanId: string) => rows.find((row) => within(row).queryByText(scanId))!
    expect(within(verdictOf(VALID_SCAN)).getByText("Worth disputing")).toBeInTheDocument()
    expect(within(verdictOf(INVALID_SCAN)).getByText("Likely true fraud")).toBeInTheDocument()
    expect(within(verdictOf(FRAUD_SCAN)).getByText("Likely true fraud")).toBeInTheDocument()
    expect(within(verdictOf(UNREPORTED_SCAN)).getByText("Not reported")).toBeInTheDocument()
    // Worth-disputing scans come first: they are what goes to the processor.
    expect(within(rows[0]).getByText(VALID_SCAN)).toBeInTheDocument()
    // No raw service vocabulary leaks into the page.
    expect(screen.queryByText(/^fraud$/i)).not.toBeInTheDocument()
    expect(screen.queryByText(/^invalid$/i)).not.toBeInTheDocument()
  })

  it("shows and downloads images through the admin proxy only, never the service's URL", () => {
    const { container } = renderAdmin(<ChargebackSection chargeback={chargeback()} />)

    const images = screen.getAllByRole("img", { name: /card scan/i })
    // Only the valid scan has an image; fraudulent scans have none at the service.
    expect(images).toHaveLength(1)
    const [thumbnail] = images
    expect(thumbnail).toHaveAttribute("src", `/admin/servicescan/scans/${VALID_SCAN}/image`)
    expect(thumbnail).toHaveAttribute("loading", "lazy")
    expect(thumbnail).toHaveAccessibleName(`Card scan ${VALID_SCAN} (worth disputing)`)

    const download = screen.getByRole("link", { name: `Download image of scan ${VALID_SCAN}` })
    expect(download).toHaveAttribute("href", `/admin/servicescan/scans/${VALID_SCAN}/image?download=1`)

    expect(container.innerHTML).not.toContain(SERVICE_IMAGE_URL)
    expect(container.innerHTML).not.toContain("disputes/image")
    expect(document.body.innerHTML).not.toContain("servicescan.example")
  })

  it("opens the image large in a modal with a download link; Escape closes it", async () => {
    renderAdmin(<ChargebackSection chargeback={chargeback()} />)
    const open = screen.getByRole("button", { name: `Open a larger view of the image of scan ${VALID_SCAN}` })
    fireEvent.click(open)
    const dialog = await screen.findByRole("dialog")
    expect(within(dialog).getByText(`Scan ${VALID_SCAN}`)).toBeInTheDocument()
    expect(within(dialog).getByRole("img", { name: `Card scan ${VALID_SCAN} (worth disputing)` })).toHaveAttribute(
      "src",
      `/admin/servicescan/scans/${VALID_SCAN}/image`
    )
    expect(within(dialog).getByRole("link", { name: /download image/i })).toHaveAttribute(
      "href",
      `/admin/servicescan/scans/${VALID_SCAN}/image?download=1`
    )
    fireEvent.keyDown(dialog, { key: "Escape" })
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument())
  })

  it("tells why an image is unavailable, in the proxy's own words", async () => {
    api.on("GET", `/admin/servicescan/scans/${VALID_SCAN}/image`, {
      status: 404,
      body: { type: "not_found", message: "ServiceScan has no image for this scan yet" },
    })
    renderAdmin(<ChargebackSection chargeback={chargeback()} />)
    fireEvent.error(screen.getByRole("img", { name: `Card scan ${VALID_SCAN} (worth disputing)` }))
    const placeholder = await screen.findByRole("img", {
      name: `Image of scan ${VALID_SCAN} unavailable: ServiceScan has no image for this scan yet`,
    })
    expect(placeholder).toHaveTextContent("Image unavailable")
  })

  it("asks the proxy why with the session cookie, outside the SDK", async () => {
    api.on("GET", `/admin/servicescan/scans/${VALID_SCAN}/image`, {
      status: 403,
      body: { type: "not_allowed", message: "This scan was judged fraudulent; ServiceScan keeps no image of it" },
    })
    renderAdmin(<ChargebackSection chargeback={chargeback()} />)
    fireEvent.error(screen.getByRole("img", { name: `Card scan ${VALID_SCAN} (worth disputing)` }))
    await screen.findByRole("img", { name: /unavailable: This scan was judged fraudulent/ })
    const [probe] = api.callsTo("GET", `/admin/servicescan/scans/${VALID_SCAN}/image`)
    expect(probe.headers.get("accept")).toBe("application/json")
    expect(probe.credentials).toBe("include")
    expect(probe.headers.get("authorization")).toBeNull()
  })

  it("reloads the thumbnail when the proxy now answers with the image, once", async () => {
    // The failure was temporary: the proxy serves the picture whatever the accept header says.
    api.on("GET", `/admin/servicescan/scans/${VALID_SCAN}/image`, { headers: { "content-type": "image/jpeg" } })
    renderAdmin(<ChargebackSection chargeback={chargeback()} />)
    fireEvent.error(screen.getByRole("img", { name: `Card scan ${VALID_SCAN} (worth disputing)` }))
    // Back, from a URL the browser has not seen fail (and that the route's strict query accepts).
    await waitFor(() =>
      expect(screen.getByRole("img", { name: `Card scan ${VALID_SCAN} (worth disputing)` })).toHaveAttribute(
        "src",
        `/admin/servicescan/scans/${VALID_SCAN}/image?download=0`
      )
    )
    expect(api.callsTo("GET", `/admin/servicescan/scans/${VALID_SCAN}/image`)).toHaveLength(1)
    expect(screen.queryByText("Image unavailable")).not.toBeInTheDocument()

    // A picture that fails again although served is not retried forever, and the
    // reason is ours, not a JSON parser's ("Unexpected token…").
    fireEvent.error(screen.getByRole("img", { name: `Card scan ${VALID_SCAN} (worth disputing)` }))
    const placeholder = await screen.findByRole("img", {
      name: `Image of scan ${VALID_SCAN} unavailable: The image could not be displayed.`,
    })
    expect(placeholder).toHaveAttribute("title", "The image could not be displayed.")
    expect(api.callsTo("GET", `/admin/servicescan/scans/${VALID_SCAN}/image`)).toHaveLength(2)
  })

  it("says where a pending proof request stands and when it is checked next", () => {
    renderAdmin(
      <ChargebackSection
        chargeback={chargeback({
          status: "evidence_pending",
          proof_requests: [
            proofRequest({
              status: "pending",
              completed_at: null,
              next_poll_at: new Date(Date.now() + 3 * 60 * 60 * 1000 + 60_000).toISOString(),
              scans: [{ scan_id: VALID_SCAN, ground_truth: null }],
            }),
          ],
        })}
      />
    )
    expect(screen.getByText("Pending")).toBeInTheDocument()
    expect(screen.getByText(/Waiting for ServiceScan\. Next check in 3 hours/)).toBeInTheDocument()
    expect(screen.getByText("Awaiting verdict")).toBeInTheDocument()
    expect(screen.queryByRole("img", { name: /card scan/i })).not.toBeInTheDocument()
  })

  it("shows a proof request's last error", () => {
    renderAdmin(
      <ChargebackSection
        chargeback={chargeback({
          status: "evidence_pending",
          proof_requests: [
            proofRequest({ status: "to_submit", attempts: 2, last_error: "ServiceScan timed out after 10000 ms", scans: [] }),
          ],
        })}
      />
    )
    expect(screen.getByText(/after 2 failed attempts/)).toHaveTextContent("ServiceScan timed out after 10000 ms")
  })
})

describe("attach scan ids", () => {
  it("rejects ids that are not UUIDv4 with a clear message, without calling the server", async () => {
    renderAdmin(<ChargebackSection chargeback={chargeback()} />)
    const menu = await openActions()
    fireEvent.click(within(menu).getByRole("menuitem", { name: "Attach scan ids" }))
    const field = await screen.findByRole("textbox", { name: "Scan ids" })
    // A v1 UUID and a typo: both must be refused, the valid one kept.
    fireEvent.change(field, {
      target: { value: `${VALID_SCAN}\nnot-a-scan, 6ba7b810-9dad-11d1-80b4-00c04fd430c8` },
    })
    fireEvent.click(screen.getByRole("button", { name: "Attach and send" }))
    const alert = await screen.findByRole("alert")
    expect(alert).toHaveTextContent(
      '2 entries are not valid scan ids: "not-a-scan", "6ba7b810-9dad-11d1-80b4-00c04fd430c8". Scan ids are UUIDv4'
    )
    expect(field).toHaveAttribute("aria-invalid", "true")
    expect(field).toHaveAccessibleDescription(expect.stringContaining("not valid scan ids"))
    expect(api.calls).toHaveLength(0)
  })

  it("sends valid ids, lower-cased and without repeats, then refreshes the evidence", async () => {
    api.on("POST", "/admin/servicescan/chargebacks/chbk_01/scans", {
      body: { chargeback: chargeback(), proof_request_id: "sspr_02" },
    })
    renderAdmin(<ChargebackSection chargeback={chargeback()} />)
    const menu = await openActions()
    fireEvent.click(within(menu).getByRole("menuitem", { name: "Attach scan ids" }))
    fireEvent.change(await screen.findByRole("textbox", { name: "Scan ids" }), {
      target: { value: `${VALID_SCAN.toUpperCase()}, ${VALID_SCAN}\n${INVALID_SCAN}` },
    })
    expect(screen.getByText("2 scan ids will be sent.")).toBeInTheDocument()
    fireEvent.click(screen.getByRole("button", { name: "Attach and send" }))
    await screen.findByText("2 scan ids attached")
    const [call] = api.callsTo("POST", "/admin/servicescan/chargebacks/chbk_01/scans")
    expect(call.body).toEqual({ scan_ids: [VALID_SCAN, INVALID_SCAN] })
    // The session cookie authenticates; no bearer token or key is sent.
    expect(call.headers.get("authorization")).toBeNull()
  })

  it("shows the server's message when it refuses", async () => {
    api.on("POST", "/admin/servicescan/chargebacks/chbk_01/scans", {
      status: 400,
      body: { type: "invalid_data", message: "Chargeback dp_1001 is closed; scan ids can no longer be attached" },
    })
    renderAdmin(<ChargebackSection chargeback={chargeback()} />)
    const menu = await openActions()
    fireEvent.click(within(menu).getByRole("menuitem", { name: "Attach scan ids" }))
    fireEvent.change(await screen.findByRole("textbox", { name: "Scan ids" }), { target: { value: VALID_SCAN } })
    fireEvent.click(screen.getByRole("button", { name: "Attach and send" }))
    await waitFor(() =>
      expect(screen.getByRole("alert")).toHaveTextContent(
        "Chargeback dp_1001 is closed; scan ids can no longer be attached"
      )
    )
  })
})

describe("actions", () => {
  it("checks now and says what happened", async () => {
    api.on("POST", "/admin/servicescan/chargebacks/chbk_01/check", {
      body: { chargeback: chargeback(), check: { checked: 1, completed: 1, still_pending: 0, errors: 0 } },
    })
    renderAdmin(<ChargebackSection chargeback={chargeback()} />)
    fireEvent.click(screen.getByRole("button", { name: "Check now" }))
    expect(await screen.findByText("Evidence received")).toBeInTheDocument()
    const [call] = api.callsTo("POST", "/admin/servicescan/chargebacks/chbk_01/check")
    expect(call.body).toEqual({})
  })

  it("asks before resubmitting an unconfirmed submission, then sends resubmit: true", async () => {
    api.on("POST", "/admin/servicescan/chargebacks/chbk_01/check", {
      body: { chargeback: chargeback(), check: { submitted: 1 } },
    })
    renderAdmin(
      <ChargebackSection
        chargeback={chargeback({
          status: "evidence_pending",
          proof_requests: [proofRequest({ status: "submitting", remote_id: null, scans: [] })],
        })}
      />
    )
    const menu = await openActions()
    fireEvent.click(within(menu).getByRole("menuitem", { name: "Resubmit to ServiceScan" }))
    const prompt = await screen.findByRole("alertdialog")
    expect(prompt).toHaveTextContent(/second proof request/)
    fireEvent.click(within(prompt).getByRole("button", { name: "Resubmit" }))
    await screen.findByText("Sent to ServiceScan")
    expect(api.callsTo("POST", "/admin/servicescan/chargebacks/chbk_01/check")[0].body).toEqual({ resubmit: true })
  })

  it("sets the outcome after confirmation", async () => {
    api.on("POST", "/admin/servicescan/chargebacks/chbk_01/outcome", {
      body: { chargeback: chargeback({ status: "won" }) },
    })
    renderAdmin(<ChargebackSection chargeback={chargeback()} />)
    const menu = await openActions()
    fireEvent.click(within(menu).getByRole("menuitem", { name: "Mark as won" }))
    const prompt = await screen.findByRole("alertdialog")
    await act(async () => {
      fireEvent.click(within(prompt).getByRole("button", { name: "Confirm" }))
    })
    await screen.findByText("Marked as won")
    expect(api.callsTo("POST", "/admin/servicescan/chargebacks/chbk_01/outcome")[0].body).toEqual({ outcome: "won" })
  })

  it("does not set the outcome when the admin cancels", async () => {
    renderAdmin(<ChargebackSection chargeback={chargeback()} />)
    const menu = await openActions()
    fireEvent.click(within(menu).getByRole("menuitem", { name: "Mark as lost" }))
    const prompt = await screen.findByRole("alertdialog")
    fireEvent.click(within(prompt).getByRole("button", { name: "Cancel" }))
    await waitFor(() => expect(screen.queryByRole("alertdialog")).not.toBeInTheDocument())
    expect(api.calls).toHaveLength(0)
  })
})
