import { randomUUID } from "node:crypto";
import type { serviceScanDeviceId as DeviceIdFn } from "../src/device";
import type { payWithServiceScan as PayFn } from "../src/pay";

/**
 * The first-party device id (src/device.ts): made once, kept in localStorage under
 * "servicescan:device", one per page load where storage is blocked, and sent with
 * every payment session as `device_id`.
 */
const KEY = "servicescan:device";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

// A fresh module per case: the id is kept in module memory for the page's life.
function load(): { serviceScanDeviceId: typeof DeviceIdFn; payWithServiceScan: typeof PayFn } {
  let loaded!: { serviceScanDeviceId: typeof DeviceIdFn; payWithServiceScan: typeof PayFn };
  jest.isolateModules(() => {
    loaded = { serviceScanDeviceId: require("../src/device").serviceScanDeviceId, payWithServiceScan: require("../src/pay").payWithServiceScan };
  });
  return loaded;
}

describe("serviceScanDeviceId", () => {
  beforeEach(() => {
    localStorage.clear();
    jest.restoreAllMocks();
    // jsdom has no crypto.randomUUID (a browser's secure context does): Node's stands in.
    Object.defineProperty(window.crypto, "randomUUID", { value: randomUUID, configurable: true });
  });
  afterAll(() => {
    Object.defineProperty(window.crypto, "randomUUID", { value: undefined, configurable: true });
  });

  it("makes a random UUID once and keeps it in localStorage for the next page loads", () => {
    const first = load().serviceScanDeviceId();
    expect(first).toMatch(UUID);
    expect(localStorage.getItem(KEY)).toBe(first);
    expect(load().serviceScanDeviceId()).toBe(first);
    localStorage.clear();
    expect(load().serviceScanDeviceId()).not.toBe(first);
  });

  it("replaces a stored value the plugin would refuse", () => {
    for (const bad of ["short", "<script>alert(1)</script>-padding", "x".repeat(65), "with space in it 0123"]) {
      localStorage.setItem(KEY, bad);
      const id = load().serviceScanDeviceId();
      expect(id).toMatch(UUID);
      expect(localStorage.getItem(KEY)).toBe(id);
    }
  });

  it("keeps one id per page load when storage is blocked", () => {
    jest.spyOn(Storage.prototype, "getItem").mockImplementation(() => {
      throw new DOMException("blocked", "SecurityError");
    });
    jest.spyOn(Storage.prototype, "setItem").mockImplementation(() => {
      throw new DOMException("blocked", "SecurityError");
    });
    const page = load();
    const id = page.serviceScanDeviceId();
    expect(id).toMatch(UUID);
    expect(page.serviceScanDeviceId()).toBe(id);
    expect(load().serviceScanDeviceId()).not.toBe(id);
  });

  it("is empty outside a secure context (no randomUUID), and the payment still goes ahead", async () => {
    Object.defineProperty(window.crypto, "randomUUID", { value: undefined, configurable: true });
    const { serviceScanDeviceId, payWithServiceScan } = load();
    expect(serviceScanDeviceId()).toBe("");
    const initiatePaymentSession = jest.fn(async () => ({}));
    const sdk = { store: { payment: { initiatePaymentSession }, cart: { complete: async () => ({ type: "order" as const, order: { id: "order_1" } }) } } };
    expect((await payWithServiceScan(sdk, { id: "cart_dev_0" }, { paymentMethodId: "sscard_x" })).type).toBe("order");
  });

  it("goes with the form's result and with a saved card as device_id, the same id each time", async () => {
    const { serviceScanDeviceId, payWithServiceScan } = load();
    const initiatePaymentSession = jest.fn(async (_cart: unknown, _body: { data?: Record<string, unknown> }) => ({}));
    const sdk = { store: { payment: { initiatePaymentSession }, cart: { complete: async () => ({ type: "order" as const, order: { id: "order_1" } }) } } };
    const form = { submit: async () => ({ formId: "6f1c1a52-8a4c-4d0e-9f0a-3b2b7b1e9c11", responseCode: "870" }) };
    await payWithServiceScan(sdk, { id: "cart_dev_1" }, { form });
    await payWithServiceScan(sdk, { id: "cart_dev_2" }, { paymentMethodId: "sscard_x" });
    const id = serviceScanDeviceId();
    expect(initiatePaymentSession.mock.calls.map(([, body]) => body.data?.device_id)).toEqual([id, id]);
  });
});
