/**
 * The key under which the widget keeps its first-party device id in
 * `localStorage`. A store lists it in its cookie/storage notice (the plugin's
 * docs/privacy.md says what it is for: fraud prevention). Not exported: every
 * byte of the main entry counts (README: size budget).
 */
const SERVICESCAN_DEVICE_ID_KEY = "servicescan:device";

// The plugin accepts 16 to 64 letters, digits, "-" or "_" (src/lib/device-id.ts); anything else is replaced.
const WELL_FORMED = /^[\w-]{16,64}$/;
let id = "";

/**
 * This browser's device id, sent as `device_id` with the payment session's data
 * and kept by the plugin with the payment as evidence against a fraud dispute
 * (Visa CE 3.0 matches a shopper's earlier payments on it). A random UUID made
 * once and kept in `localStorage` under `servicescan:device`; where
 * storage is blocked, one id per page load. Empty only outside a secure context
 * (no `crypto.randomUUID`: plain http); the plugin reads an empty `device_id`
 * as none, and the payment goes ahead without it.
 */
export function serviceScanDeviceId(): string {
  try {
    id ||= localStorage.getItem(SERVICESCAN_DEVICE_ID_KEY) || "";
  } catch {
    // Blocked storage: an id for this page load.
  }
  if (!WELL_FORMED.test(id)) {
    // Missing outside a secure context (plain http): no id then, and the payment goes on without one.
    id = crypto.randomUUID?.() || "";
    try {
      localStorage.setItem(SERVICESCAN_DEVICE_ID_KEY, id);
    } catch {
      // Blocked or full storage: the new id lives for this page load.
    }
  }
  return id;
}
