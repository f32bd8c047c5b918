import type { Logger } from "@medusajs/framework/types"
import { CNP_PASSWORD, CNP_URL, CNP_USER, MERCHANT_ID, TOKEN } from "../../../processors/worldpay/__tests__/cnp-fixtures"
import { ServiceScanOptions } from "../options"
import { ServiceScanProviderService } from "../service"
import type { ServiceScanPaymentData, ServiceScanSessionData } from "../types"

/**
 * Shared fixtures of the provider's wire-level specs. Secrets are distinctive
 * strings so a spec can prove none of them leaks into data or logs.
 */

export const CHECKOUT_URL = "https://checkout.servicescan.test"
export const CLIENT_SCRIPT_URL = "https://checkout.servicescan.test/client/v2/form.js"
export const SHAREABLE_KEY = "pk_shareable_demo_1234"
export const PAYMENT_TOKEN_KEY = "sk_paytoken_SECRET_9f8e7d6c"

export const SESSION_ID = "payses_01JB8XKQ7YV2M3N4P5Q6R7S8T9"
/** processorIdFor(SESSION_ID): the ULID without its leading 0. */
export const SESSION_REQUEST_ID = "1JB8XKQ7YV2M3N4P5Q6R7S8T9"
export const FORM_ID = "3f1c2b9e-7a4d-4c21-9b8e-0d5f6a7b8c9d"
export const CUSTOMER_ID = "cus_01JB8XKQ7YV2M3N4P5Q6R7S8AA"

// cnpAPI's wire, shared with the Worldpay gateway's own specs.
export {
  CNP_PASSWORD,
  CNP_URL,
  CNP_USER,
  type CnpRequestRecord,
  cnpQueryResponse,
  cnpResponse,
  MERCHANT_ID,
  parseCnpRequest,
  TOKEN,
} from "../../../processors/worldpay/__tests__/cnp-fixtures"

export const SECRETS = [PAYMENT_TOKEN_KEY, CNP_PASSWORD, TOKEN] as const

export function baseOptions(overrides: Partial<ServiceScanOptions> = {}): ServiceScanOptions {
  return {
    checkoutUrl: CHECKOUT_URL,
    clientScriptUrl: CLIENT_SCRIPT_URL,
    shareableKey: SHAREABLE_KEY,
    paymentTokenApiKey: PAYMENT_TOKEN_KEY,
    timeoutMs: 2_000,
    maxRetries: 0,
    gateway: {
      type: "worldpay",
      url: CNP_URL,
      merchantId: MERCHANT_ID,
      user: CNP_USER,
      password: CNP_PASSWORD,
    },
    ...overrides,
  }
}

export type CapturedLine = { level: string; message: string }

/** A Medusa Logger that records every line, for assertions on what was logged. */
export function createCapturingLogger(): Logger & { lines: CapturedLine[]; text(): string } {
  const lines: CapturedLine[] = []
  const record =
    (level: string) =>
    (message: unknown): void => {
      lines.push({ level, message: message instanceof Error ? `${message.message}` : String(message) })
    }
  return {
    lines,
    text: () => lines.map((line) => line.message).join("\n"),
    panic: record("panic"),
    shouldLog: () => true,
    setLogLevel: () => undefined,
    unsetLogLevel: () => undefined,
    activity: (message: string) => {
      record("activity")(message)
      return "activity"
    },
    progress: (_id: string, message: string) => record("progress")(message),
    error: (message: string | Error) => record("error")(message),
    failure: (_id: string, message: string) => record("failure")(message),
    success: (_id: string, message: string) => {
      record("success")(message)
      return {}
    },
    silly: record("silly"),
    debug: record("debug"),
    verbose: record("verbose"),
    http: record("http"),
    info: record("info"),
    warn: record("warn"),
    log: (...args: unknown[]) => record("log")(args.map(String).join(" ")),
  }
}

/**
 * A provider as Medusa's payment module builds it. `captures` plays the module's own
 * `captureService`, which the provider reads a Capture's amount from (Medusa gives
 * `capturePayment` only the Capture's id): id -> amount in major units.
 */
export function createProvider(overrides: Partial<ServiceScanOptions> = {}, captures: Record<string, number | string> = {}) {
  const logger = createCapturingLogger()
  const captureService = {
    retrieve: async (id: string) => {
      if (!(id in captures)) {
        throw new Error(`Capture with id: ${id} was not found`)
      }
      return { id, amount: captures[id] }
    },
  }
  const provider = new ServiceScanProviderService({ logger, captureService }, baseOptions(overrides))
  return { provider, logger }
}

/** Session data as initiatePayment renders it for the submitted form. */
export async function submittedSession(
  provider: ServiceScanProviderService,
  input: { amount?: number | string; currency_code?: string; form_id?: string; response_code?: string } = {}
): Promise<ServiceScanSessionData> {
  const { data } = await provider.initiatePayment({
    amount: input.amount ?? 10.5,
    currency_code: input.currency_code ?? "usd",
    data: {
      form_id: input.form_id ?? FORM_ID,
      response_code: input.response_code ?? "870",
      session_id: SESSION_ID,
    },
    context: { idempotency_key: SESSION_ID },
  })
  return data as ServiceScanSessionData
}

export function authorizedPayment(overrides: Partial<ServiceScanPaymentData> = {}): ServiceScanPaymentData {
  return {
    status: "authorized",
    scan_id: FORM_ID,
    form_id: FORM_ID,
    processor: "worldpay",
    gateway: "worldpay",
    capture_mode: "manual",
    currency_code: "usd",
    amount: "10.5",
    amount_minor: 1050,
    request_id: SESSION_REQUEST_ID,
    order_id: SESSION_REQUEST_ID,
    cnp_txn_id: "84000000000000001",
    card: { last4: "0123", type: null },
    processor_response: { code: "000", message: "Approved" },
    captures: [],
    refunds: [],
    authorized_at: "2025-01-01T00:00:00.000Z",
    ...overrides,
  }
}

export function capturedPayment(overrides: Partial<ServiceScanPaymentData> = {}): ServiceScanPaymentData {
  return authorizedPayment({
    status: "captured",
    captures: [
      {
        cnp_txn_id: "84000000000000002",
        amount_minor: 1050,
        request_id: SESSION_REQUEST_ID,
        captured_at: "2025-01-01T00:01:00.000Z",
      },
    ],
    ...overrides,
  })
}

/** Fails when any secret occurs in the value or in the log. */
export function expectNoSecrets(value: unknown, logText: string, secrets: readonly string[] = SECRETS): void {
  const serialised = JSON.stringify(value) ?? ""
  for (const secret of secrets) {
    expect(serialised).not.toContain(secret)
    expect(logText).not.toContain(secret)
  }
}

/** Parses the single JSON log line of the provider (after the `servicescan ` prefix). */
export function logEntries(logger: { lines: CapturedLine[] }): Array<Record<string, unknown> & { level: string }> {
  return logger.lines
    .filter((line) => line.message.startsWith("servicescan "))
    .map((line) => ({ level: line.level, ...JSON.parse(line.message.slice("servicescan ".length)) }))
}
