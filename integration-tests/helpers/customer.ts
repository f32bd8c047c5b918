import type { AxiosInstance } from "axios"
import type { SeededStore } from "./store"

export type SignedInCustomer = {
  id: string
  email: string
  /** Store API headers of this customer's requests: the publishable key and their bearer token. */
  headers: { headers: Record<string, string> }
}

/**
 * Registers a customer through Medusa's store API (emailpass), as a
 * storefront's sign-up form does, and signs them in.
 */
export async function signUpCustomer(
  api: AxiosInstance,
  store: SeededStore,
  email: string,
  password = "correct horse battery staple"
): Promise<SignedInCustomer> {
  const { data: registered } = await api.post("/auth/customer/emailpass/register", { email, password })
  const { data: created } = await api.post(
    "/store/customers",
    { email, first_name: email.split("@")[0] },
    { headers: { ...store.storeHeaders.headers, authorization: `Bearer ${registered.token}` } }
  )
  const { data: login } = await api.post("/auth/customer/emailpass", { email, password })
  return {
    id: created.customer.id,
    email,
    headers: { headers: { ...store.storeHeaders.headers, authorization: `Bearer ${login.token}` } },
  }
}
