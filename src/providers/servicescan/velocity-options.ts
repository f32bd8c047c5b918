import { z } from "@medusajs/framework/zod"

/**
 * The provider's `velocity` option: limits on failed completions with this
 * provider, against card testing. They are the provider's options, not the
 * plugin's, because they limit payments with this provider: a store running
 * two ServiceScan providers (two merchant accounts) sets each, and the
 * per-card limit is enforced inside the provider, which reads only its own
 * options. The plugin's middleware on `POST /store/carts/:id/complete` reads
 * the options of the provider the cart's session belongs to (through Medusa's
 * config module, with this same schema).
 *
 * Each limit is `{ max, windowSeconds }` (at most `max` failures in any
 * `windowSeconds`) or `false` (off); `velocity: false` turns all four off.
 * The types are inferred from the schemas below.
 */

/**
 * `false`, or what `schema` accepts; optional. Not a z.union: a union reports
 * only that no branch matched, and a store owner needs the field and what is
 * wrong with it. Typed as a store writes it: `schema`'s input, or false.
 */
function falseOr<S extends z.ZodType>(schema: S) {
  return z
    .custom<z.input<S> | false>()
    .optional()
    .transform((value, ctx): z.output<S> | false | undefined => {
      if (value === false || value === undefined) {
        return value === false ? false : undefined
      }
      const parsed = schema.safeParse(value)
      if (parsed.success) {
        return parsed.data
      }
      for (const issue of parsed.error.issues) {
        ctx.addIssue({ code: "custom", message: issue.message, path: issue.path })
      }
      return z.NEVER
    })
}

const limitSchema = falseOr(
  z.strictObject(
    {
      max: z
        .number({ error: "must be a whole number of failures" })
        .int({ error: "must be a whole number of failures" })
        .min(1, { error: "must be at least 1" })
        .max(100_000, { error: "must be at most 100000" }),
      windowSeconds: z
        .number({ error: "must be a whole number of seconds" })
        .int({ error: "must be a whole number of seconds" })
        .min(1, { error: "must be at least 1 second" })
        .max(7 * 24 * 3600, { error: "must be at most 604800 seconds (a week)" }),
    },
    {
      error: (issue) =>
        issue.code === "unrecognized_keys"
          ? `has unsupported keys: ${issue.keys.join(", ")} (supported: max, windowSeconds)`
          : issue.code === "invalid_type"
            ? "must be { max, windowSeconds } or false"
            : undefined,
    }
  )
)

const limitsSchema = z.strictObject(
  {
    /** Failed completions per client address (Express's `req.ip` under Medusa's one trusted proxy hop; an IPv6 /64 counts as one). */
    perIp: limitSchema,
    /** Failed completions per cart. */
    perCart: limitSchema,
    /** Failed completions per signed-in customer. */
    perCustomer: limitSchema,
    /** Declines of one card at the processor (by a keyed fingerprint of its processor token). */
    perCard: limitSchema,
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `has unsupported keys: ${issue.keys.join(", ")} (supported: perIp, perCart, perCustomer, perCard)`
        : issue.code === "invalid_type"
          ? "must be { perIp?, perCart?, perCustomer?, perCard? } or false"
          : undefined,
  }
)

/** The `velocity` option's limits, as a store owner writes them (each optional). */
export type ServiceScanVelocityOptions = z.input<typeof limitsSchema>

/** The `velocity` option after validation: every limit present. */
export type ResolvedVelocityOptions = {
  [Limit in keyof z.output<typeof limitsSchema>]-?: Exclude<z.output<typeof limitsSchema>[Limit], undefined>
}

/**
 * The defaults. A shopper who mistypes twice stays far from every limit; a
 * client failing 15 times in an hour is refused from the 16th attempt (a
 * shared address, such as an office or a mobile carrier's, is why this one is
 * the highest); a cart 5 times, a customer 10; a card declined 5 times is
 * not sent to the processor again for an hour.
 */
export const VELOCITY_DEFAULTS: ResolvedVelocityOptions = {
  perIp: { max: 15, windowSeconds: 3600 },
  perCart: { max: 5, windowSeconds: 3600 },
  perCustomer: { max: 10, windowSeconds: 3600 },
  perCard: { max: 5, windowSeconds: 3600 },
}

/** Everything off: what `velocity: false` resolves to. */
const VELOCITY_OFF: ResolvedVelocityOptions = { perIp: false, perCart: false, perCustomer: false, perCard: false }

/** Validates the `velocity` option and applies the defaults of the limits it leaves out. */
export const velocityOptionSchema = falseOr(limitsSchema).transform((value): ResolvedVelocityOptions =>
  value === false ? VELOCITY_OFF : { ...VELOCITY_DEFAULTS, ...withoutUndefined(value ?? {}) }
)

function withoutUndefined(value: ServiceScanVelocityOptions): ServiceScanVelocityOptions {
  return Object.fromEntries(Object.entries(value).filter(([, limit]) => limit !== undefined))
}

/**
 * The velocity limits of a provider from its raw options (as registered in
 * medusa-config), defaults applied. Options the provider refused at boot
 * never get here; anything unreadable falls back to the defaults.
 */
export function readVelocityOptions(rawOptions: unknown): ResolvedVelocityOptions {
  const raw =
    typeof rawOptions === "object" && rawOptions !== null ? (rawOptions as Record<string, unknown>).velocity : undefined
  const parsed = velocityOptionSchema.safeParse(raw)
  return parsed.success ? parsed.data : VELOCITY_DEFAULTS
}
