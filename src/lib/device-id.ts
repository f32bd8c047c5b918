/**
 * The one home of the device id rule (import-free): the storefront widget's
 * first-party id of a browser, sent as `device_id` in a payment session's data
 * and kept with the payment's checkout signals as evidence (Visa CE 3.0 matches
 * transactions on it). The widget makes a UUID (`crypto.randomUUID`; where that
 * is missing it sends none); a storefront of its own may send any id of this
 * shape. Bounded and plain on purpose: it is stored, shown in evidence packs
 * and compared, so nothing long, nested or able to carry markup gets in.
 */
export const DEVICE_ID = /^[A-Za-z0-9_-]{16,64}$/

/** What a refusal says, naming the field. */
export const DEVICE_ID_PROBLEM =
  "data.device_id must be the storefront's device id: 16 to 64 letters, digits, '-' or '_' (e.g. a UUID)"

/** Whether `value` is a device id of that shape (the module stores nothing else). */
export function isDeviceId(value: unknown): value is string {
  return typeof value === "string" && DEVICE_ID.test(value)
}
