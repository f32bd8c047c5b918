import Medusa from "@medusajs/js-sdk"

/**
 * The backend the admin talks to. Medusa's docs configure a *plugin's* SDK
 * from `__BACKEND_URL__`, not `import.meta.env.VITE_BACKEND_URL`: this code is
 * first bundled as a library by `medusa plugin:build`, where Vite would freeze
 * `import.meta.env` to the plugin author's environment (always empty), while
 * `__BACKEND_URL__` is left alone and later defined by the store's own admin
 * build from its `admin.backendUrl` option. The `typeof` guard keeps the module
 * loadable where nothing defines it (unit specs, other bundlers).
 */
export const backendUrl: string =
  typeof __BACKEND_URL__ !== "undefined" && __BACKEND_URL__ ? __BACKEND_URL__ : "/"

/** The admin's SDK: session auth, so the dashboard's cookie authenticates every call. */
export const sdk = new Medusa({
  baseUrl: backendUrl,
  auth: {
    type: "session",
  },
})

/**
 * An absolute-or-root-relative URL on the backend, for places that cannot go
 * through `sdk.client.fetch` (an `<img src>`, a download link). The browser
 * sends the admin session cookie with them, which is what authenticates the
 * image proxy; no key ever reaches the page.
 */
export function backendPath(path: string): string {
  const base = backendUrl.replace(/\/+$/, "")
  return `${base}/${path.replace(/^\/+/, "")}`
}
