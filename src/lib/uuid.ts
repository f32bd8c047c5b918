/**
 * The one home of the UUID checks of the plugin's server code and its admin
 * bundle (import-free, so the browser bundle can take it). The sandbox keeps
 * its own: it is a separate package and plays the service.
 */

/** Version nibble 4 and RFC 4122 variant: the only scan ids the service accepts (one bad id refuses a whole proof request). */
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i

/** Any UUID: the shape of a hosted form's id (the spec names no version for it). */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function isUuidV4(value: unknown): value is string {
  return typeof value === "string" && UUID_V4.test(value)
}
