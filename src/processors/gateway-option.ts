import { z } from "@medusajs/framework/zod"

/** One built-in configuration an option takes: its schema, chosen by the value's `type`. */
export type GatewayConfigChoice<Config> = {
  /** The `type` that selects this configuration, e.g. "worldpay". */
  readonly type: string
  readonly schema: z.ZodType<Config>
}

/**
 * An option naming a gateway: a built-in processor's configuration, told apart
 * by its `type`, or the store's own object implementing the gateway's interface.
 * Dispatched by hand rather than with a zod union, so that an error is about the
 * branch the owner meant ("gateway.password: is required", "has unknown keys:
 * pasword") instead of the union's bare "Invalid input".
 */
export function gatewayOption<Config, Custom>(options: {
  /** The built-in configurations, one per processor. */
  configs: ReadonlyArray<GatewayConfigChoice<Config>>
  isCustom: (value: unknown) => value is Custom
  /** The error for a value that is neither. */
  mismatch: (value: unknown) => string
}) {
  return z.unknown().transform((value, ctx): Config | Custom => {
    const choice =
      typeof value === "object" && value !== null && "type" in value
        ? options.configs.find((config) => config.type === value.type)
        : undefined
    if (choice) {
      const result = choice.schema.safeParse(value)
      if (result.success) {
        return result.data
      }
      for (const issue of result.error.issues) {
        ctx.issues.push({ code: "custom", message: issue.message, path: issue.path, input: value })
      }
      return z.NEVER
    }
    if (options.isCustom(value)) {
      return value
    }
    ctx.issues.push({ code: "custom", input: value, message: options.mismatch(value) })
    return z.NEVER
  })
}
