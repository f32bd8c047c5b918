import Link from "next/link"
import type { ReactNode } from "react"

// Every page reads the store at request time (prices, the visitor's cart): nothing is prerendered
// at build time, when no Medusa is running, and each response carries its own CSP nonce.
export const dynamic = "force-dynamic"

export default async function CountryLayout({
  children,
  params,
}: {
  children: ReactNode
  params: Promise<{ countryCode: string }>
}) {
  const { countryCode } = await params
  return (
    <>
      <header>
        <Link href={`/${countryCode}`}>ServiceScan example store</Link>
      </header>
      <main>{children}</main>
    </>
  )
}
