// Server-side saved cards (`medusa-servicescan-storefront/server`): for storefronts such as Medusa's
// DTC starter that keep the customer's token in a cookie only the server reads, and have no browser SDK.
// No "use client" here: these run in Server Components and server actions.
import type { ServiceScanSavedCard } from "./types.js";

/**
 * The part of `@medusajs/js-sdk`'s `Medusa` client these helpers call
 * (`sdk.client.fetch`); typed structurally so the package never imports the SDK.
 */
export interface ServiceScanServerSdk {
  client: {
    fetch<T>(path: string, init?: { method?: string; headers?: Record<string, string> }): Promise<T>;
  };
}

/** Auth headers as a server action has them, e.g. the starter's `await getAuthHeaders()` (`{}` for a guest). */
export type ServiceScanAuthHeaders = { authorization?: string } & Record<string, string>;

const PATH = "/store/servicescan/payment-methods";

/**
 * The signed-in customer's saved cards, most recently saved first
 * (`GET /store/servicescan/payment-methods` with `headers`). A guest (no
 * `authorization` header) or an expired token (401) gets `[]` without
 * failing the page: they pay with a new card. Other failures reject.
 */
export async function listServiceScanSavedCards(
  sdk: ServiceScanServerSdk,
  headers: ServiceScanAuthHeaders,
): Promise<ServiceScanSavedCard[]> {
  if (!headers.authorization) return [];
  try {
    const { payment_methods } = await sdk.client.fetch<{ payment_methods: ServiceScanSavedCard[] }>(PATH, { headers: { ...headers } });
    return payment_methods;
  } catch (e) {
    if ((e as { status?: unknown } | null)?.status == 401) return [];
    throw e;
  }
}

/**
 * Deletes one of the signed-in customer's saved cards
 * (`DELETE /store/servicescan/payment-methods/:id` with `headers`). Rejects
 * with the SDK's error (404 for a card that is not theirs, 401 signed out).
 */
export async function deleteServiceScanSavedCard(
  sdk: ServiceScanServerSdk,
  id: string,
  headers: ServiceScanAuthHeaders,
): Promise<{ id: string; deleted: boolean }> {
  return sdk.client.fetch(`${PATH}/${encodeURIComponent(id)}`, { method: "DELETE", headers: { ...headers } });
}

export type { ServiceScanSavedCard } from "./types.js";
