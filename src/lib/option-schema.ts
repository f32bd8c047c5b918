import { z } from "@medusajs/framework/zod"

/**
 * Pieces of zod schema whose errors name what the option is for, so that a
 * store owner reads "gateway.password: is required (the cnpAPI password)"
 * rather than zod's bare "Invalid input". Shared by the provider's, the
 * module's and the processors' option schemas.
 */

/** A string that must be set and not blank; `description` says what it is for. */
export const requiredString = (description: string) =>
  z
    .string({
      error: (issue) =>
        issue.input === undefined ? `is required (${description})` : `must be a string (${description})`,
    })
    .trim()
    .min(1, { error: `must not be empty (${description})` })

/** An http(s) URL that must be set; `description` says what it is for. */
export const httpUrl = (description: string) =>
  z.url({
    protocol: /^https?$/,
    error: (issue) =>
      issue.input === undefined
        ? `is required (${description})`
        : `must be an http(s) URL (${description})`,
  })

/** For a `z.strictObject`: a misspelt key is refused by name ("has unknown keys: pasword"). */
export const NAME_UNKNOWN_KEYS: { error: z.core.$ZodErrorMap } = {
  error: (issue) => (issue.code === "unrecognized_keys" ? `has unknown keys: ${issue.keys.join(", ")}` : undefined),
}
