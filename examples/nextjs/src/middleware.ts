import { NextResponse, type NextRequest } from "next/server"

/**
 * Every page gets a Content-Security-Policy that admits exactly what the ServiceScan form needs:
 * the client script's origin in `script-src` and `frame-src` (the card fields live in the
 * service's iframe). Everything else is this origin, plus a per-request nonce that Next.js puts
 * on its own inline scripts. The service's URL is read from the environment on each request, so
 * one build serves the sandbox and the real service alike.
 *
 * It also gives each visitor the `_medusa_cache_id` that scopes their cache tags (as Medusa's
 * starter does), on the request too, so the very first page already has it.
 */
export function middleware(request: NextRequest) {
  const nonce = btoa(crypto.randomUUID())
  const service = originOf(process.env.SERVICESCAN_CLIENT_SCRIPT_URL)
  const csp = [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'${service}${process.env.NODE_ENV === "development" ? " 'unsafe-eval'" : ""}`,
    `frame-src${service || " 'none'"}`,
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ")

  const headers = new Headers(request.headers)
  headers.set("content-security-policy", csp)
  let cacheId = request.cookies.get("_medusa_cache_id")?.value
  const newVisitor = !cacheId
  if (!cacheId) {
    cacheId = crypto.randomUUID()
    headers.set("cookie", [request.headers.get("cookie"), `_medusa_cache_id=${cacheId}`].filter(Boolean).join("; "))
  }

  const response =
    request.nextUrl.pathname === "/"
      ? NextResponse.redirect(new URL("/us", request.url))
      : NextResponse.next({ request: { headers } })
  response.headers.set("content-security-policy", csp)
  if (newVisitor) {
    response.cookies.set("_medusa_cache_id", cacheId, { maxAge: 60 * 60 * 24, httpOnly: true, sameSite: "strict" })
  }
  return response
}

/** " <origin>" of a URL, or "" when unset (the form then cannot load, and the page says so). */
function originOf(url: string | undefined): string {
  try {
    return url ? ` ${new URL(url).origin}` : ""
  } catch {
    return ""
  }
}

export const config = {
  // Pages only: not Next.js's static files.
  matcher: ["/((?!_next/static|_next/image|favicon.ico|icon.svg).*)"],
}
