/**
 * @jest-environment ./src/admin/__tests__/support/jsdom-env.js
 */
import "@testing-library/jest-dom"
import { fireEvent, screen, waitFor } from "@testing-library/react"
import ServiceScanSettingsPage, { config } from "../routes/settings/servicescan/page"
import { mockFetch, type FetchMock } from "./support/fetch-mock"
import { installDomShims, renderAdmin } from "./support/render"

installDomShims()

const HEALTH = "/admin/servicescan/health"

/** What the route answers (src/api/admin/servicescan/health/route.ts). */
function health(overrides: Record<string, unknown> = {}) {
  return {
    health: {
      ok: true,
      keys: { secret_key: true, webhook_secret: false },
      service: { base_url: "https://disputes.servicescan.example", reachable: true, latency_ms: 87.4 },
      configuration_error: null,
      polling: {
        stopped: false,
        interval_ms: 3 * 60 * 60 * 1000,
        last_poll_at: "2025-03-01T08:00:00.000Z",
        pending_count: 7,
        counts: { to_submit: 2, submitting: 1, pending: 5, complete: 40, failed: 0 },
        needs_attention_count: 1,
      },
      archive_images: true,
      ...overrides,
    },
  }
}

let api: FetchMock
beforeEach(() => {
  api = mockFetch()
})
afterEach(() => {
  api.restore()
})

it("is a settings page with a label", () => {
  expect(config.label).toBe("menu.settings")
  expect(config.translationNs).toBe("servicescan")
})

it("shows which keys are configured, whether the service answers, the last poll and the queue", async () => {
  api.on("GET", HEALTH, { body: health() })
  renderAdmin(<ServiceScanSettingsPage />)
  expect(await screen.findByText("Reachable")).toBeInTheDocument()
  expect(screen.getByText("87 ms")).toBeInTheDocument()
  expect(screen.getByText("Disputes secret key").nextElementSibling).toHaveTextContent("Configured")
  expect(screen.getByText("Chargeback webhook secret").nextElementSibling).toHaveTextContent("Missing")
  expect(screen.getByText("7 proof requests")).toBeInTheDocument()
  expect(screen.getByText(/Running/)).toBeInTheDocument()
  expect(screen.getByText("every 3 hours")).toBeInTheDocument()
  expect(screen.getByText(/1 proof request: ServiceScan's answer was lost/)).toBeInTheDocument()
  expect(screen.getByText(new RegExp(new Date("2025-03-01T08:00:00.000Z").getFullYear().toString()))).toBeInTheDocument()
})

it("never renders a key's value, even if the server sent one by mistake", async () => {
  const secret = "sk_live_9f8e7d6c5b4a"
  const webhookSecret = "whsec_0123456789abcdef"
  api.on("GET", HEALTH, {
    body: health({ keys: { secret_key: secret, webhook_secret: webhookSecret, payment_token_api_key: false } }),
  })
  const { container } = renderAdmin(<ServiceScanSettingsPage />)
  await screen.findByText("Reachable")
  expect(screen.getByText("Disputes secret key").nextElementSibling).toHaveTextContent("Configured")
  expect(screen.getByText("Payment token API key").nextElementSibling).toHaveTextContent("Missing")
  expect(document.body.innerHTML).not.toContain(secret)
  expect(document.body.innerHTML).not.toContain(webhookSecret)
  expect(container.textContent).not.toMatch(/sk_live|whsec_/)
})

it("explains a configuration error and what to do about it", async () => {
  api.on("GET", HEALTH, {
    body: health({
      ok: false,
      service: { base_url: "https://disputes.servicescan.example", reachable: false, configuration_error: true, error: "403 Invalid API key provided" },
      configuration_error: { status: 403, message: "Invalid API key provided", at: "2025-03-01T07:00:00.000Z" },
      polling: { stopped: true, interval_ms: 10_800_000, last_poll_at: null, pending_count: 3, counts: {} },
    }),
  })
  renderAdmin(<ServiceScanSettingsPage />)
  expect(await screen.findByText("Polling is stopped: Invalid API key provided (HTTP 403)")).toBeInTheDocument()
  expect(screen.getByText(/Ask the ServiceScan operator for a disputes secret key/)).toBeInTheDocument()
  expect(screen.getByText("Not reachable")).toBeInTheDocument()
  expect(screen.getByText("403 Invalid API key provided")).toBeInTheDocument()
  expect(screen.getByText("Stopped")).toBeInTheDocument()
  expect(screen.getByText("Never")).toBeInTheDocument()
})

it("checks again on demand", async () => {
  api.on("GET", HEALTH, { body: health() })
  renderAdmin(<ServiceScanSettingsPage />)
  await screen.findByText("Reachable")
  api.on("GET", HEALTH, {
    body: health({ service: { reachable: false, configuration_error: false, error: "ServiceScan cannot be reached" } }),
  })
  fireEvent.click(screen.getByRole("button", { name: "Check again" }))
  expect(await screen.findByText("Not reachable")).toBeInTheDocument()
  expect(screen.getByText("ServiceScan cannot be reached")).toBeInTheDocument()
  expect(api.callsTo("GET", HEALTH)).toHaveLength(2)
})

it("shows the server's message when the health check fails", async () => {
  api.on("GET", HEALTH, { status: 401, body: { type: "unauthorized", message: "Unauthorized" } })
  renderAdmin(<ServiceScanSettingsPage />)
  const alert = await screen.findByRole("alert")
  expect(alert).toHaveTextContent("Could not load the service health")
  expect(alert).toHaveTextContent("Unauthorized")
  await waitFor(() => expect(api.callsTo("GET", HEALTH)).toHaveLength(1))
})

describe("the processor's chargeback API", () => {
  it("names the configured dispute gateway and the auto-respond policy in plain words", async () => {
    api.on("GET", HEALTH, { body: health({ dispute_gateway: { name: "worldpay" }, auto_respond: "represent-valid-accept-invalid" }) })
    renderAdmin(<ServiceScanSettingsPage />)
    await screen.findByText("Reachable")
    expect(screen.getByText("Dispute gateway").nextElementSibling).toHaveTextContent("Worldpay")
    expect(screen.getByText("Automatic answers").nextElementSibling).toHaveTextContent(
      "Sends the evidence when a scan is worth disputing, accepts liability when every scan is likely true fraud"
    )
  })

  it("says when no dispute gateway is configured, and what that means", async () => {
    api.on("GET", HEALTH, { body: health({ dispute_gateway: null, auto_respond: "off" }) })
    renderAdmin(<ServiceScanSettingsPage />)
    await screen.findByText("Reachable")
    const row = screen.getByText("Dispute gateway").nextElementSibling
    expect(row).toHaveTextContent("Not configured")
    expect(row).toHaveTextContent("Chargeback cases are not imported from the processor, and answers are not sent to it.")
    expect(screen.getByText("Automatic answers").nextElementSibling).toHaveTextContent("Off: an admin answers each case")
  })

  it("leaves both out when the backend does not report them", async () => {
    api.on("GET", HEALTH, { body: health() })
    renderAdmin(<ServiceScanSettingsPage />)
    await screen.findByText("Reachable")
    expect(screen.queryByText("Dispute gateway")).not.toBeInTheDocument()
    expect(screen.queryByText("Automatic answers")).not.toBeInTheDocument()
  })
})
