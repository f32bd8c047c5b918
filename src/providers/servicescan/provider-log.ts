import type { Logger } from "@medusajs/framework/types"
import type { MedusaError } from "@medusajs/framework/utils"
import { ServiceScanPaymentError, toMedusaError } from "./errors"
import type { FailureCategory, FailureContext, FailureStage, PaymentOperation } from "./failures"

/** What a failure's log line tells about the call that failed. */
export type FailedCall = {
  operation: PaymentOperation
  stage?: FailureStage
  request_id?: string
  form_id?: string | null
  payment_method_id?: string
  /** Whether the processor replayed an earlier answer (authorize's declines: the velocity limit counts it once). */
  duplicate?: boolean
  /** Secrets of this call only (the processor token), scrubbed beside the provider's own. */
  secrets?: string[]
}

/**
 * The provider's log: one structured line per event (`servicescan {json}`),
 * and for a failure the error mapped through errors.ts plus the one line the
 * merchant reads it from. Every secret of the provider's options is scrubbed
 * from both, whatever produced the text.
 */
export class ProviderLog {
  /**
   * @param identifier the provider's identifier, named on every line.
   * @param secrets strings never written anywhere (keys, passwords).
   * @param gatewayName the processor gateway's name, for the errors' texts.
   */
  constructor(
    private readonly logger: Logger,
    private readonly identifier: string,
    private readonly secrets: string[],
    private readonly gatewayName: () => string
  ) {}

  /** One line: `servicescan {json}`. Values pass through `redact` before they are written. */
  write(level: "info" | "warn" | "error", fields: Record<string, unknown>, secrets: string[] = this.secrets): void {
    const line = `servicescan ${JSON.stringify({ provider: this.identifier, ...fields })}`
    this.logger[level](redact(line, secrets))
  }

  /** How this provider's errors are made: its gateway's name in the texts, its secrets scrubbed from them. */
  context(operation: PaymentOperation, stage: FailureStage = "processor"): FailureContext {
    return { operation, stage, gateway: this.gatewayName(), scrub: (text) => redact(text, this.secrets) }
  }

  /**
   * Maps a failure (through errors.ts, the one mapping) and writes the one
   * structured log line the merchant reads it from. Answers the error to throw.
   */
  failure(error: unknown, call: FailedCall): MedusaError {
    const secrets = [...this.secrets, ...(call.secrets ?? [])]
    const mapped = toMedusaError(error, {
      ...this.context(call.operation, call.stage),
      scrub: (text) => redact(text, secrets),
    })
    if (!(mapped instanceof ServiceScanPaymentError)) {
      this.write("warn", { operation: call.operation, event: "failed", request_id: call.request_id, detail: mapped.message }, secrets)
      return mapped
    }
    this.write(
      levelFor(mapped.category),
      {
        operation: call.operation,
        event: "failed",
        category: mapped.category,
        stage: mapped.stage,
        gateway: this.gatewayName(),
        request_id: call.request_id,
        form_id: call.form_id ?? undefined,
        payment_method_id: call.payment_method_id,
        processor_code: mapped.processorResponse?.code,
        processor_message: mapped.processorResponse?.message,
        duplicate: call.duplicate,
        outcome_unknown: mapped.outcomeUnknown || undefined,
        detail: mapped.detail,
      },
      secrets
    )
    return mapped
  }
}

function levelFor(category: FailureCategory): "info" | "warn" | "error" {
  switch (category) {
    case "declined":
    case "form_expired":
      return "info"
    case "unavailable":
    case "protocol":
      return "warn"
    case "configuration":
      return "error"
  }
}

function redact(text: string, secrets: string[]): string {
  let out = text
  for (const secret of secrets) {
    if (secret && out.includes(secret)) {
      out = out.split(secret).join("[redacted]")
    }
  }
  return out
}
