/**
 * The example storefront's Next.js configuration. Nothing ServiceScan-specific lives here: the
 * Content-Security-Policy that admits the hosted form is set per request in src/middleware.ts
 * (it needs a nonce, and the service's URL is read from the environment at run time).
 *
 * @type {import("next").NextConfig}
 */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Linting is not part of this example; `next build` still type-checks it.
  eslint: { ignoreDuringBuilds: true },
}

export default nextConfig
