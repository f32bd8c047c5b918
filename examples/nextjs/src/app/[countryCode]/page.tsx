import Link from "next/link"
import { listProducts } from "@lib/data/products"
import { formatAmount } from "@lib/util/money"

export default async function StorePage({ params }: { params: Promise<{ countryCode: string }> }) {
  const { countryCode } = await params
  const products = await listProducts(countryCode)
  return (
    <section>
      <h1>Products</h1>
      {products.length === 0 && <p>Nothing for sale in this country yet.</p>}
      <ul>
        {products.map((product) => {
          const price = product.variants?.[0]?.calculated_price
          return (
            <li key={product.id}>
              <Link href={`/${countryCode}/products/${product.handle}`}>{product.title}</Link>{" "}
              {price && formatAmount(price.calculated_amount, price.currency_code)}
            </li>
          )
        })}
      </ul>
    </section>
  )
}
