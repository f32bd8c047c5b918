/// <reference types="vite/client" />

/**
 * Replaced by the host application's admin build (`@medusajs/admin-bundler`
 * defines it from the `admin.backendUrl` option). A plugin's admin code is
 * bundled as a library first, so this stays an identifier until then; see
 * lib/sdk.ts for why we read it rather than `import.meta.env`.
 */
declare const __BACKEND_URL__: string | undefined
