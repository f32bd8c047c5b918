import { errorHandler } from "@medusajs/framework/http"
import type { MedusaErrorHandlerFunction, MedusaNextFunction, MedusaRequest, MedusaResponse } from "@medusajs/framework/http"

/** C0 and C1 control characters and DEL, NUL among them (PostgreSQL text cannot hold it). */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/

type Refusal = { status: number; code: string; message: string }

/** The plugin's own route prefixes; everything else passes untouched. */
const OUR_PREFIXES = ["/admin/servicescan", "/store/servicescan", "/hooks/servicescan"]

/** Whether a request's path is under one of our prefixes (Express routes case-insensitively, so this compares that way too). */
function isOurPath(originalUrl: string): boolean {
  const path = originalUrl.split("?")[0].toLowerCase()
  return OUR_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))
}

/**
 * The first thing every request to the plugin's own routes meets (after
 * Medusa's body parser and, for admin routes, authentication): what no route
 * of ours can use is refused with a 4xx naming the problem, before anything
 * reaches a database or a workflow.
 *
 * Mounted at `/` so that it runs before every route layer of ours (and of
 * Medusa's but its `/admin*` middleware, which decodes the path first: see
 * `serviceScanErrorHandler` for that case). It only looks at our prefixes.
 *
 * - The path must be valid percent-encoding without control characters.
 * - Query keys and values must not carry control characters, and keys may
 *   nest one level at most (Medusa's query normaliser answers 500 beyond that).
 * - A body must be JSON: Medusa also parses form-urlencoded and text bodies,
 *   which our JSON routes would otherwise half-accept.
 */
export function guardServiceScanRequest(req: MedusaRequest, res: MedusaResponse, next: MedusaNextFunction): void {
  if (!isOurPath(req.originalUrl)) {
    next()
    return
  }
  const refusal = pathProblem(req.originalUrl) ?? queryProblem(req.query) ?? bodyTypeProblem(req)
  if (!refusal) {
    next()
    return
  }
  res.status(refusal.status).json({ type: "invalid_data", code: refusal.code, message: refusal.message })
}

const medusaErrorHandler = errorHandler()

/**
 * The app's error handler: Medusa's own, with one exception. Medusa mounts a
 * `/admin*` middleware ahead of every plugin middleware, and Express decodes
 * the path there, so an undecodable path (`/admin/servicescan/chargebacks/%ff`)
 * fails before `guardServiceScanRequest` runs; Express marks that URIError
 * 400, and Medusa's handler answers it 500 "An unknown error occurred". For
 * our prefixes only, it is answered 400 with the guard's message; every other
 * error, and every other route's (Medusa's `/admin/orders/%ff` stays 500),
 * goes to Medusa's handler unchanged.
 *
 * Medusa keeps one error handler per app, the last one a middlewares file
 * declares: a store that declares its own replaces this one, and such paths
 * answer 500 again (nothing else changes).
 */
export const serviceScanErrorHandler: MedusaErrorHandlerFunction = (error, req, res, next) => {
  if (isPathDecodingError(error) && isOurPath(req.originalUrl)) {
    const refusal = pathProblem(req.originalUrl) ?? {
      status: 400,
      code: "invalid_path",
      message: "The request path is not valid percent-encoding",
    }
    res.status(refusal.status).json({ type: "invalid_data", code: refusal.code, message: refusal.message })
    return
  }
  return medusaErrorHandler(error, req, res, next)
}

/** Express's failure to decode a path parameter: a URIError it marks 400. */
function isPathDecodingError(error: unknown): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as { name?: unknown }).name === "URIError" &&
    (error as { status?: unknown }).status === 400
  )
}

function pathProblem(originalUrl: string): Refusal | null {
  const path = originalUrl.split("?")[0]
  for (const segment of path.split("/")) {
    let decoded: string
    try {
      decoded = decodeURIComponent(segment)
    } catch {
      return { status: 400, code: "invalid_path", message: "The request path is not valid percent-encoding" }
    }
    if (CONTROL.test(decoded)) {
      return { status: 400, code: "invalid_path", message: "The request path must not contain control characters" }
    }
  }
  return null
}

function queryProblem(query: unknown): Refusal | null {
  const stack: { value: unknown; name: string }[] = [{ value: query, name: "" }]
  while (stack.length) {
    const { value, name } = stack.pop() as { value: unknown; name: string }
    if (typeof value === "string") {
      if (CONTROL.test(value)) {
        return { status: 400, code: "invalid_query", message: `Query parameter ${name} must not contain control characters` }
      }
    } else if (value && typeof value === "object") {
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        const printable = key.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?").slice(0, 60)
        if (CONTROL.test(key)) {
          return { status: 400, code: "invalid_query", message: `Query parameter names must not contain control characters (${printable})` }
        }
        if (!name && (key.match(/\./g)?.length ?? 0) > 1) {
          return { status: 400, code: "invalid_query", message: `Query parameter ${printable} is not known` }
        }
        stack.push({ value: item, name: name ? `${name}[${printable}]` : printable })
      }
    }
  }
  return null
}

function bodyTypeProblem(req: MedusaRequest): Refusal | null {
  const length = req.headers["content-length"]
  const hasBody = req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0")
  if (!hasBody || req.is("application/json")) {
    return null
  }
  return {
    status: 415,
    code: "unsupported_media_type",
    message: `The body must be JSON (Content-Type: application/json), not ${String(req.headers["content-type"] ?? "untyped")
      .split(";")[0]
      .slice(0, 100)}`,
  }
}
