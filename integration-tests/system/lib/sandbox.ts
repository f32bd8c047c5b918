import { createServer, request, Server } from "node:http"
import { AddressInfo } from "node:net"
import { ADYEN_MERCHANT, PROCESSOR } from "./canaries"

export type Sandbox = Awaited<ReturnType<typeof import("servicescan-sandbox").startSandbox>>

export type SuiteAccount = {
  accountId: string
  keys: { shareable: string; paymentToken: string; secret: string }
}

/** One call the sandbox received through a process's proxy. */
export type ProxiedCall = {
  method: string
  path: string
  /** The sandbox's route name, as in GET /__sandbox/stats. */
  route: string
  /** Status, or "no answer" when the connection ended without one (a fault or a timeout). */
  status: number | "no answer"
  at: number
  /** The start of the answer of a submission or a status check (its id, "pending" or "complete"), for reports. */
  answer?: string
}

/** The sandbox's route names, from the path (see the sandbox README, "Stats"). */
export function routeOf(method: string, path: string): string {
  const p = path.split("?")[0]
  if (p === "/api/v1/forms") return "forms.create"
  if (/^\/api\/v1\/[^/]+\/form\//.test(p)) return "token.exchange"
  if (p === "/cnp/online") return "cnp.online"
  // Adyen's Checkout v71 and Disputes v30, named as the sandbox's route table names them.
  const checkout = /^\/v71\/payments(?:\/[^/]+\/(captures|refunds|cancels|reversals))?$/.exec(p)
  if (checkout) return checkout[1] ? `adyen.payments.${checkout[1]}` : "adyen.payments"
  if (p === "/v71/cancels") return "adyen.cancels"
  const disputes = /^\/ca\/services\/DisputeService\/v30\/(\w+)$/.exec(p)
  if (disputes) return `adyen.disputes.${disputes[1]}`
  if (method === "PUT" && p === "/disputes/proofRequest") return "disputes.proofRequest.create"
  if (p.startsWith("/disputes/proof/")) return "disputes.proof.get"
  if (p.startsWith("/disputes/image/")) return "disputes.image.get"
  return "other"
}

/**
 * A pass-through proxy in front of the sandbox for one Medusa process: the
 * process is configured with the proxy's URL, so every call it makes to the
 * service is counted under its name. Faults still come from the sandbox
 * itself: a connection the sandbox destroys is destroyed here too.
 */
export class CountingProxy {
  readonly calls: ProxiedCall[] = []
  /** While true, this process cannot reach the service: every call gets the service's 503, nothing is forwarded. */
  outage = false
  private server?: Server
  url = ""

  constructor(
    readonly name: string,
    private readonly target: URL
  ) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const call: ProxiedCall = {
        method: req.method ?? "GET",
        path: req.url ?? "/",
        route: routeOf(req.method ?? "GET", req.url ?? "/"),
        status: "no answer",
        at: Date.now(),
      }
      this.calls.push(call)
      if (this.outage) {
        call.status = 503
        req.resume()
        res.writeHead(503, { "content-type": "application/json" }).end('{"error":"Service unavailable"}')
        return
      }
      const upstream = request(
        {
          host: this.target.hostname,
          port: this.target.port,
          method: req.method,
          path: req.url,
          // Host stays the proxy's, so URLs the sandbox builds from it (image links) point here.
          headers: req.headers,
          agent: false,
        },
        (answer) => {
          call.status = answer.statusCode ?? "no answer"
          if (call.route === "disputes.proof.get" || call.route === "disputes.proofRequest.create") {
            let head = ""
            answer.on("data", (chunk: Buffer) => {
              if (head.length < 120) head += chunk.toString("utf8")
            })
            answer.on("end", () => (call.answer = head.slice(0, 120)))
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(res)
          answer.on("error", () => res.destroy())
        }
      )
      upstream.on("error", () => {
        call.status = "no answer"
        res.destroy()
      })
      req.pipe(upstream)
    })
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve))
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
    return this
  }

  count(route: string, since = 0): number {
    return this.calls.filter((c) => c.route === route && c.at >= since).length
  }

  async close(): Promise<void> {
    if (!this.server) return
    const server = this.server
    await new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
  }
}

/** The sandbox in this process (as in the HTTP suites), with every request line kept for counting. */
export async function startSuiteSandbox(options: { proofDelayMs?: number | null } = {}): Promise<{
  sandbox: Sandbox
  account: SuiteAccount
  requestLog: string[]
}> {
  const { startSandbox } = await import("servicescan-sandbox")
  const requestLog: string[] = []
  const sandbox = await startSandbox({
    port: 0,
    proofDelayMs: options.proofDelayMs ?? null,
    logger: (level, message) => {
      if (level === "info") requestLog.push(message)
    },
  })
  // The suites' own account: its processor password and Adyen credentials are canaries
  // (lib/canaries.ts) and its keys are generated now, so every secret the app holds is distinctive.
  const { webhookUser, webhookPassword, ...adyen } = ADYEN_MERCHANT
  const created = await control<{ accountId: string; keys: SuiteAccount["keys"] }>(sandbox, "/__sandbox/accounts", {
    method: "POST",
    body: { processor: PROCESSOR, adyen: { ...adyen, webhookAuth: { username: webhookUser, password: webhookPassword } } },
  })
  return { sandbox, account: { accountId: created.accountId, keys: created.keys }, requestLog }
}

/**
 * Points the suite account's Adyen merchant's notification webhook at a Medusa process, as a
 * merchant sets it in Adyen's Customer Area: the process is only known once it listens, after
 * the account was created. The sandbox delivers to it directly, not through a counting proxy.
 */
export async function pointAdyenWebhook(sandbox: Sandbox, medusaUrl: string): Promise<void> {
  await control(sandbox, `/__sandbox/adyen/merchants/${encodeURIComponent(ADYEN_MERCHANT.merchantAccount)}`, {
    method: "POST",
    body: { webhookUrl: `${medusaUrl}/hooks/servicescan/adyen` },
  })
}

/** The sandbox's control API (never faulted). */
export async function control<T = unknown>(
  sandbox: Sandbox,
  path: string,
  init: { method?: string; body?: unknown } = {}
): Promise<T> {
  const response = await fetch(`${sandbox.url}${path}`, {
    method: init.method ?? "GET",
    headers: init.body === undefined ? {} : { "content-type": "application/json" },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  })
  const text = await response.text()
  if (!response.ok) {
    throw new Error(`sandbox ${init.method ?? "GET"} ${path} answered ${response.status}: ${text}`)
  }
  return (text ? JSON.parse(text) : undefined) as T
}

export type Faults = {
  latencyMs?: number | null
  errorRate?: number | null
  resetRate?: number | null
  keyLookup?: "fail" | null
  dropResponse?: { route?: string; count: number } | null
}

export const setFaults = (sandbox: Sandbox, faults: Faults) => control(sandbox, "/__sandbox/faults", { method: "POST", body: faults })
export const clearFaults = (sandbox: Sandbox) => control(sandbox, "/__sandbox/faults", { method: "DELETE" })

export type ProcessorTransaction = {
  seq: number
  type: string
  id: string | null
  orderId: string | null
  amount: number | null
  cnpTxnId: string | null
  originalCnpTxnId: string | null
  token: string | null
  response: string | null
  duplicate: boolean
  merchantId: string
}

export async function processorTransactions(sandbox: Sandbox): Promise<ProcessorTransaction[]> {
  const { items } = await control<{ items: ProcessorTransaction[] }>(
    sandbox,
    `/__sandbox/processor/transactions?merchantId=${encodeURIComponent(PROCESSOR.merchantId)}`
  )
  return items
}

export type ServiceProofRequest = { id: string; accountId: string; scanIds: string[]; status: string }

export async function serviceProofRequests(sandbox: Sandbox, account: SuiteAccount): Promise<ServiceProofRequest[]> {
  const { items } = await control<{ items: ServiceProofRequest[] }>(
    sandbox,
    `/__sandbox/proof-requests?accountId=${encodeURIComponent(account.accountId)}`
  )
  return items
}

/** A scan at the service that no card form made: a chargeback's own marker, so its proof request can be found. */
export async function createMarkerScan(sandbox: Sandbox, account: SuiteAccount): Promise<string> {
  const { scanId } = await control<{ scanId: string }>(sandbox, "/__sandbox/scans", {
    method: "POST",
    body: { accountId: account.accountId },
  })
  return scanId
}

/**
 * Submits the hosted form as its iframe does (the shopper typed or scanned the
 * card). The form API is a service endpoint, so faults apply: like a shopper,
 * this tries again a few times.
 */
export async function submitCardForm(
  sandbox: Sandbox,
  account: SuiteAccount,
  card: string,
  { attempts = 8 } = {}
): Promise<{ formId: string; responseCode: string }> {
  let last = ""
  for (let attempt = 0; attempt < attempts; attempt++) {
    try {
      const response = await fetch(`${sandbox.url}/api/v1/forms`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: "http://localhost:8000" },
        body: JSON.stringify({
          key: account.keys.shareable,
          card: { number: card, cvv: "123", expiry: "12/30" },
          scanned: true,
        }),
      })
      const text = await response.text()
      if (response.status === 200) return JSON.parse(text)
      last = `${response.status} ${text}`
    } catch (error) {
      last = (error as Error).message
    }
    await new Promise((resolve) => setTimeout(resolve, 50 * (attempt + 1)))
  }
  throw new Error(`the hosted form kept failing: ${last}`)
}

/**
 * A Luhn-valid Visa number whose last four digits are `n` (0 to 9999), so the
 * processor token (which keeps the last four) names the shopper: the sandbox's
 * transactions can be attributed to carts without trusting our own ids.
 * The sandbox treats any such number like 4111 1111 1111 1111 (approved).
 */
export function shopperCard(n: number): string {
  const last4 = String(n).padStart(4, "0")
  for (let d = 0; d <= 9; d++) {
    const number = `4929${String(d)}1000012${last4}`
    if (luhnValid(number)) return number
  }
  throw new Error("unreachable: one digit always fixes the Luhn sum")
}

function luhnValid(number: string): boolean {
  let sum = 0
  for (let i = 0; i < number.length; i++) {
    let digit = Number(number[number.length - 1 - i])
    if (i % 2 === 1) {
      digit *= 2
      if (digit > 9) digit -= 9
    }
    sum += digit
  }
  return sum % 10 === 0
}
