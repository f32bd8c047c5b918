import { z } from "@medusajs/framework/zod"
import type { DisputeGatewayHttpOptions, DisputeProcessor, GatewayConfig, GatewayHttpOptions, ProcessorDefinition } from "./definition"
import { gatewayOption } from "./gateway-option"
import { DisputeGateway, isDisputeGateway, isProcessorGateway, missingGatewayMethods, ProcessorGateway } from "./types"
import { adyen } from "./adyen"
import { worldpay } from "./worldpay"

/**
 * The processors the plugin speaks, each a folder beside this file. Adding
 * one is that folder (its gateways, codecs and options, exported as a
 * {@link ProcessorDefinition}) and one line here; the provider's `gateway`
 * and the module's `disputeGateway` options then take its `type`.
 */
const PROCESSORS = [
  worldpay,
  adyen,
] as const satisfies readonly ProcessorDefinition[]

type Registered = (typeof PROCESSORS)[number]
type RegisteredDispute = Extract<Registered, { dispute: unknown }>["dispute"]

/** A built-in payment gateway's options, as parsed: one shape per processor, told apart by `type`. */
export type PaymentGatewayConfig = z.output<Registered["payment"]["schema"]>
/** A built-in dispute gateway's options, as parsed: one shape per processor, told apart by `type`. */
export type DisputeGatewayConfig = z.output<RegisteredDispute["schema"]>
/** A built-in dispute gateway's options, as a store writes them. */
export type DisputeGatewayInput = z.input<RegisteredDispute["schema"]>

/** The registry seen through the contract only, for dispatch by `type`. */
const DEFINITIONS: readonly ProcessorDefinition[] = PROCESSORS

/** The processors that publish a chargeback API, with that side. */
const DISPUTE_SIDES = PROCESSORS.flatMap((processor) =>
  "dispute" in processor && processor.dispute ? [{ type: processor.type, side: processor.dispute }] : []
)

/** Whether a parsed option is a built-in configuration (its `type` is registered) rather than a store's own gateway. */
function isBuiltIn<Config extends GatewayConfig>(option: Config | ProcessorGateway | DisputeGateway): option is Config {
  return "type" in option && DEFINITIONS.some((definition) => definition.type === option.type)
}

/** The processor of a built-in configuration. */
function definitionOf(config: GatewayConfig): ProcessorDefinition {
  const definition = DEFINITIONS.find((candidate) => candidate.type === config.type)
  if (!definition) {
    // Unreachable for options the schemas parsed: they take registered types only.
    throw new Error(`No processor is registered under type "${config.type}"`)
  }
  return definition
}

/**
 * The provider's `gateway` option: a built-in processor's configuration, by
 * its `type`, or a store's own object implementing {@link ProcessorGateway}.
 */
export function paymentGatewayOption() {
  return gatewayOption<PaymentGatewayConfig, ProcessorGateway>({
    configs: PROCESSORS.map((processor) => ({ type: processor.type, schema: processor.payment.schema })),
    isCustom: isProcessorGateway,
    mismatch: (value) => {
      const missing = missingGatewayMethods(value)
      return typeof value === "object" && value !== null && missing.length < 5
        ? `does not implement ProcessorGateway: ${missing.length > 0 ? `missing ${missing.join(", ")}` : "missing a string name"}`
        : `must be ${PROCESSORS.map((processor) => processor.payment.shape).join(" or ")} or an object implementing ProcessorGateway (name, authorize, sale, capture, refund, cancel)`
    },
  })
}

/**
 * The module's `disputeGateway` option: a built-in processor's configuration,
 * by its `type`, or a store's own object implementing {@link DisputeGateway}.
 */
export function disputeGatewayOption() {
  return gatewayOption<DisputeGatewayConfig, DisputeGateway>({
    configs: DISPUTE_SIDES.map(({ type, side }) => ({ type, schema: side.schema })),
    isCustom: isDisputeGateway,
    mismatch: () => `must be ${DISPUTE_SIDES.map(({ side }) => side.shape).join(" or ")} or an object implementing DisputeGateway`,
  })
}

/**
 * The module's `disputeGateway` option as a store may write it: one gateway,
 * or a list with one per processor (a store taking payments through two).
 * Parsed to a list either way; an error names the entry at fault
 * (`disputeGateway.url` for one, `disputeGateway.1.url` in a list), and two
 * gateways of one name are refused, since cases are stored by gateway name.
 */
export function disputeGatewaysOption() {
  const one = disputeGatewayOption()
  return z.unknown().transform((value, ctx): Array<DisputeGatewayConfig | DisputeGateway> | undefined => {
    if (value === undefined) {
      return undefined
    }
    const entries = Array.isArray(value) ? value : [value]
    if (entries.length === 0) {
      ctx.issues.push({ code: "custom", input: value, message: "must list at least one gateway (or be left out)" })
      return z.NEVER
    }
    const parsed: Array<DisputeGatewayConfig | DisputeGateway> = []
    entries.forEach((entry, index) => {
      const result = one.safeParse(entry)
      if (result.success) {
        parsed.push(result.data)
        return
      }
      for (const issue of result.error.issues) {
        ctx.issues.push({ code: "custom", message: issue.message, path: Array.isArray(value) ? [index, ...issue.path] : issue.path, input: entry })
      }
    })
    if (parsed.length !== entries.length) {
      return z.NEVER
    }
    const names = parsed.map(disputeGatewayName)
    const twice = names.find((name, index) => names.indexOf(name) !== index)
    if (twice) {
      ctx.issues.push({ code: "custom", input: value, message: `lists two gateways named "${twice}": one per processor` })
      return z.NEVER
    }
    return parsed
  })
}

/** The name a configured dispute gateway stores its cases under: its processor's type, or a store's gateway's own name. */
export function disputeGatewayName(option: DisputeGatewayConfig | DisputeGateway): string {
  return isBuiltIn<DisputeGatewayConfig>(option) ? option.type : option.name
}

/** The payment gateway the provider's parsed `gateway` option names: built from a configuration, or the store's own. */
export function createPaymentGateway(option: PaymentGatewayConfig | ProcessorGateway, http: GatewayHttpOptions): ProcessorGateway {
  return isBuiltIn<PaymentGatewayConfig>(option) ? definitionOf(option).payment.create(option, http) : option
}

/** The secrets in the provider's `gateway` option (none for a store's own gateway), to scrub from its logs. */
export function paymentGatewaySecrets(option: PaymentGatewayConfig | ProcessorGateway): string[] {
  return isBuiltIn<PaymentGatewayConfig>(option) ? definitionOf(option).payment.secrets(option) : []
}

/** The URLs in the provider's `gateway` option, by option key (none for a store's own gateway), to check for https. */
export function paymentGatewayUrls(option: PaymentGatewayConfig | ProcessorGateway): Record<string, string> {
  return isBuiltIn<PaymentGatewayConfig>(option) ? definitionOf(option).payment.urls(option) : {}
}

/** The URLs in the module's `disputeGateway` option, by option key (none for a store's own gateway or none at all), to check for https. */
export function disputeGatewayUrls(option: DisputeGatewayConfig | DisputeGateway | undefined): Record<string, string> {
  return option && isBuiltIn<DisputeGatewayConfig>(option) ? disputeSideOf(option).urls(option) : {}
}

/** Builds the dispute gateway the module's options name; null when none is configured. */
export function createDisputeGateway(
  option: DisputeGatewayConfig | DisputeGateway | undefined,
  http: DisputeGatewayHttpOptions
): DisputeGateway | null {
  if (!option) {
    return null
  }
  return isBuiltIn<DisputeGatewayConfig>(option) ? disputeSideOf(option).create(option, http) : option
}

/** The dispute side of a built-in configuration's processor. */
function disputeSideOf(config: GatewayConfig): DisputeProcessor<GatewayConfig> {
  const dispute = definitionOf(config).dispute
  if (!dispute) {
    // Unreachable likewise: the option's schema lists only processors with a dispute side.
    throw new Error(`Processor "${config.type}" has no dispute gateway`)
  }
  return dispute
}
