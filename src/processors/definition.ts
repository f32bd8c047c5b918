import type { z } from "@medusajs/framework/zod"
import type { RetryEvent } from "../lib/http"
import type { DisputeGateway, ProcessorGateway } from "./types"

/** What every built-in gateway's parsed options hold: the `type` that chose them. */
export type GatewayConfig = {
  readonly type: string
}

/** How a gateway talks HTTP, as the provider or the module that builds it sets it. */
export type GatewayHttpOptions = {
  /** Per-attempt timeout. */
  timeoutMs?: number
  /** Extra attempts of the requests that are safe to repeat. */
  maxRetries?: number
  /** Backoff base and cap, for tests and tuning. */
  backoff?: { baseMs?: number; capMs?: number }
  /** Told about each retry; the event never carries the credentials. */
  onRetry?: (event: RetryEvent) => void
}

/** What the disputes module hands a dispute gateway it builds. */
export type DisputeGatewayHttpOptions = GatewayHttpOptions & {
  /** The largest evidence document the store sends (the module's `maxDocumentBytes`). */
  maxDocumentBytes: number
}

/*
 * `create`, `secrets` and `urls` are methods, not function-valued properties: method
 * parameters are compared bivariantly, so a processor's definition, whose
 * methods take its own configuration, fits the registry's list of definitions
 * of any configuration. The registry calls them only with what that
 * processor's own schema parsed, chosen by `type`.
 */

/** The payment side of a processor: the API that moves money, behind {@link ProcessorGateway}. */
export interface PaymentProcessor<Config extends GatewayConfig> {
  /** The provider's `gateway` option for this processor, declared once. */
  readonly schema: z.ZodType<Config>
  /** How that option looks, for the error about a value that fits nothing: `{ type: "worldpay", url, … }`. */
  readonly shape: string
  /** Builds the gateway from options the schema parsed. */
  create(config: Config, http: GatewayHttpOptions): ProcessorGateway
  /** The secrets in the options, which the provider scrubs from everything it logs. */
  secrets(config: Config): string[]
  /** The URLs in the options, by option key: credentials travel on them, so the provider refuses plain http to a host on the network. */
  urls(config: Config): Record<string, string>
}

/** The dispute side of a processor: its chargeback API, behind {@link DisputeGateway}. */
export interface DisputeProcessor<Config extends GatewayConfig> {
  /** The module's `disputeGateway` option for this processor, declared once. */
  readonly schema: z.ZodType<Config>
  /** How that option looks, for the error about a value that fits nothing. */
  readonly shape: string
  /** Builds the gateway from options the schema parsed. */
  create(config: Config, http: DisputeGatewayHttpOptions): DisputeGateway
  /** The URLs in the options, by option key: credentials travel on them, so the module refuses plain http to a host on the network. */
  urls(config: Config): Record<string, string>
}

/**
 * Everything the provider and the module need of one processor, exported by
 * its folder (`processors/<name>/index.ts`) and listed once in the registry
 * (`processors/index.ts`).
 */
export interface ProcessorDefinition<
  Payment extends GatewayConfig = GatewayConfig,
  Dispute extends GatewayConfig = GatewayConfig,
> {
  /** What a store writes as the option's `type`, and the gateways' `name`. */
  readonly type: string
  readonly payment: PaymentProcessor<Payment>
  /** Absent when the processor publishes no chargeback API. */
  readonly dispute?: DisputeProcessor<Dispute>
}
