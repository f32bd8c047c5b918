import { z } from "@medusajs/framework/zod"

/**
 * An option naming a gateway: the built-in processor's configuration, told apart
 * by its `type`, or the store's own object implementing the gateway's interface.
 * Dispatched by hand rather than with a zod union, so that an error is about the
 * branch the owner meant ("gateway.password: is required", "has unknown keys:
 * pasword") instead of the union's bare "Invalid input".
 */
export function gatewayOption<Config, Custom>(options: {
  /** The `type` that selects the configuration. */
  type: string
  config: z.ZodType<Config>
  isCustom: (value: unknown) => value is Custom
  /** The error for a value that is neither. */
  mismatch: (value: unknown) => string
}) {
  return z.unknown().transform((value, ctx): Config | Custom => {
    if (typeof value === "object" && value !== null && "type" in value && value.type === options.type) {
      const result = options.config.safeParse(value)
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

/** For a gateway's `z.strictObject`: a misspelt key is refused by name ("has unknown keys: pasword"). */
export const NAME_UNKNOWN_KEYS: { error: z.core.$ZodErrorMap } = {
  error: (issue) => (issue.code === "unrecognized_keys" ? `has unknown keys: ${issue.keys.join(", ")}` : undefined),
}
