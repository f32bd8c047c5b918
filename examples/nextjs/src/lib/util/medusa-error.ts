/**
 * Rethrows a failed Medusa call as an Error whose message is Medusa's, for server actions that
 * throw (as the starter's do). Next.js shows such a message in development only: in production
 * the browser gets a digest. That is fine where nothing depends on it (adding to the cart, the
 * address form), and why the payment's completion returns its failure as a value instead
 * (src/lib/data/servicescan.ts).
 */
export function medusaError(error: unknown): never {
  const { status, message } = (error || {}) as { status?: number; message?: string }
  throw Object.assign(new Error(message || "The store could not be reached"), { status })
}
