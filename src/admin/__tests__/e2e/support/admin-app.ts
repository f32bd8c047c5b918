import type { MedusaContainer } from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import { createUsersWorkflow } from "@medusajs/core-flows"
import { createReadStream, existsSync, statSync } from "node:fs"
import { createServer, request, type Server } from "node:http"
import { extname, join, normalize } from "node:path"

// What every real-browser admin spec needs besides its own story: the built
// dashboard served beside the app, and an admin who logs in through its form.

/** The dashboard build run.mjs makes with this plugin's extensions. */
const ADMIN_DIR = process.env.E2E_ADMIN_DIR ?? ""

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
  ".svg": "image/svg+xml",
  ".ttf": "font/ttf",
  ".woff2": "font/woff2",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
}

/** Throws unless run.mjs built the dashboard (a spec run by plain jest would otherwise time out on a blank page). */
export function requireAdminBuild(): void {
  if (!ADMIN_DIR || !existsSync(join(ADMIN_DIR, "index.html"))) {
    throw new Error("E2E_ADMIN_DIR must point at a dashboard build; run src/admin/__tests__/e2e/run.mjs")
  }
}

/**
 * The built dashboard under /app and everything else proxied to the app, on
 * one origin: the session cookie then works as in production, with the SDK's
 * default base URL "/".
 */
export function startAdminServer(backend: URL): Promise<Server> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://admin.local")
    if (url.pathname === "/app" || url.pathname.startsWith("/app/")) {
      const relative = normalize(decodeURIComponent(url.pathname.slice("/app".length))).replace(/^(\.\.[/\\])+/, "")
      let file = join(ADMIN_DIR, relative)
      if (!existsSync(file) || statSync(file).isDirectory()) {
        file = join(ADMIN_DIR, "index.html")
      }
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" })
      createReadStream(file).pipe(res)
      return
    }
    const upstream = request(
      {
        host: backend.hostname,
        port: backend.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: backend.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      }
    )
    upstream.on("error", () => {
      res.writeHead(502).end()
    })
    req.pipe(upstream)
  })
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)))
}

/** An admin user who logs in through the dashboard's own form with this email and password. */
export async function createAdmin(container: MedusaContainer, email: string, password: string): Promise<void> {
  const { result: users } = await createUsersWorkflow(container).run({ input: { users: [{ email }] } })
  const auth = container.resolve(Modules.AUTH)
  const { authIdentity, error } = await auth.register("emailpass", {
    body: { email, password },
  } as Parameters<typeof auth.register>[1])
  if (!authIdentity) {
    throw new Error(`could not register the admin: ${error}`)
  }
  await auth.updateAuthIdentities({ id: authIdentity.id, app_metadata: { user_id: users[0].id } })
}
