import type { Metadata } from "next"
import { notFound } from "next/navigation"
import { addToCart } from "@lib/data/cart"
import { getProduct } from "@lib/data/products"
import { formatAmount } from "@lib/util/money"

type Props = { params: Promise<{ countryCode: string; handle: string }> }

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { countryCode, handle } = await params
  return { title: (await getProduct(countryCode, handle))?.title ?? "Product" }
}

export default async function ProductPage({ params }: Props) {
  const { countryCode, handle } = await params
  const product = await getProduct(countryCode, handle)
  const variant = product?.variants?.[0]
  if (!product || !variant) notFound()
  const price = variant.calculated_price
  return (
    <section>
      <h1>{product.title}</h1>
      {price && <p>{formatAmount(price.calculated_amount, price.currency_code)}</p>}
      {/* A plain form posting to a server action: it works before (and without) JavaScript. */}
      <form action={addToCart}>
        <input type="hidden" name="countryCode" value={countryCode} />
        <input type="hidden" name="variantId" value={variant.id} />
        <button type="submit">Add to cart</button>
      </form>
    </section>
  )
}
