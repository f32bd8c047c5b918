import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import type { z } from "@medusajs/framework/zod"

/**
 * Validates path parameters, as `validateAndTransformQuery` does the query:
 * a parameter that cannot be an id answers 400 naming it, instead of
 * reaching the database. (Medusa has no params validator.)
 */
export function validateParams(schemas: Record<string, z.ZodType<string>>) {
  return function validatePathParams(req: MedusaRequest, _res: MedusaResponse, next: MedusaNextFunction): void {
    for (const [name, schema] of Object.entries(schemas)) {
      const result = schema.safeParse(req.params[name])
      if (!result.success) {
        next(new MedusaError(MedusaError.Types.INVALID_DATA, result.error.issues[0]?.message ?? `${name} is not valid`))
        return
      }
    }
    next()
  }
}
