import type { HttpTypes } from "@medusajs/types"
import { setAddresses } from "@lib/data/cart"

/** The address step: a form posting to a server action, which redirects to the payment step. */
export default function AddressForm({ cart, countryCode }: { cart: HttpTypes.StoreCart; countryCode: string }) {
  const address = cart.shipping_address
  const field = (name: string, label: string, value: string | null | undefined, autoComplete: string) => (
    <label>
      {label}
      <input name={name} defaultValue={value ?? ""} autoComplete={autoComplete} required />
    </label>
  )
  return (
    <section>
      <h2>Shipping address</h2>
      <form action={setAddresses}>
        <input type="hidden" name="country_code" value={countryCode} />
        {field("email", "Email", cart.email, "email")}
        {field("first_name", "First name", address?.first_name, "given-name")}
        {field("last_name", "Last name", address?.last_name, "family-name")}
        {field("address_1", "Address", address?.address_1, "address-line1")}
        {field("city", "City", address?.city, "address-level2")}
        {field("postal_code", "Postal code", address?.postal_code, "postal-code")}
        <button type="submit">Continue to payment</button>
      </form>
    </section>
  )
}
