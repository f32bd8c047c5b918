import { execFileSync } from "node:child_process"

/**
 * The Medusa app reads its configuration (and so the sandbox URL in the
 * provider's options) when the test runner boots it, before any `beforeAll` of
 * the spec runs. So a spec reserves the sandbox's port synchronously at import
 * time, exports the URL, and starts the sandbox on that port in its own hooks.
 * Restarting on the same port lets a spec stop the service mid-test.
 */
export function reserveSandboxUrl(): string {
  if (!process.env.SERVICESCAN_SANDBOX_URL) {
    const port = execFileSync(
      process.execPath,
      [
        "-e",
        "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})",
      ],
      { encoding: "utf8" }
    ).trim()
    process.env.SERVICESCAN_SANDBOX_URL = `http://127.0.0.1:${port}`
  }
  return process.env.SERVICESCAN_SANDBOX_URL
}

export type TestSandbox = Awaited<ReturnType<typeof import("servicescan-sandbox").startSandbox>>

/** Starts (or restarts) the sandbox on the reserved port. */
export async function startTestSandbox(
  options: Record<string, unknown> = {}
): Promise<TestSandbox> {
  const { startSandbox } = await import("servicescan-sandbox")
  const url = new URL(reserveSandboxUrl())
  return startSandbox({ host: url.hostname, port: Number(url.port), logger: false, ...options })
}

/** JSON helper for the sandbox's public and control APIs. */
export async function sandboxFetch<T = unknown>(
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${reserveSandboxUrl()}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: {
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  })
  const text = await response.text()
  let body: unknown = text
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    // plain-text bodies stay text
  }
  return { status: response.status, body: body as T }
}

/** Submits the hosted form directly, as the iframe does, and returns the form id. */
export async function submitTestForm(
  card: { number: string; cvv?: string; expiry?: string },
  extra: { scanned?: boolean; config?: Record<string, string> } = {}
): Promise<{ formId: string; responseCode: string }> {
  const { status, body } = await sandboxFetch<{ formId: string; responseCode: string }>(
    "/api/v1/forms",
    {
      headers: { origin: "http://localhost:8000" },
      body: {
        key: process.env.SERVICESCAN_SHAREABLE_KEY ?? "pk_test_servicescan_demo",
        card: { cvv: "123", expiry: "12/30", ...card },
        ...extra,
      },
    }
  )
  if (status !== 200) {
    throw new Error(`form submission failed: ${status} ${JSON.stringify(body)}`)
  }
  return body
}
