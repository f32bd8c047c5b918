import { reserveSandboxUrl } from "./sandbox"

/**
 * An authorization made straight at the sandbox's Worldpay (cnpAPI, the demo merchant), outside
 * this store, as another shop or the processor's portal would: a case raised on it matches no
 * payment of the store. `label` keeps each spec's request ids apart. Answers its cnpTxnId.
 */
export async function outsideWorldpayAuthorization(label: string, card = "4457119922390123"): Promise<string> {
  const post = async (body: string) => {
    const response = await fetch(`${reserveSandboxUrl()}/cnp/online`, {
      method: "POST",
      headers: { "content-type": "text/xml" },
      body: `<cnpOnlineRequest version="12.30" xmlns="http://www.vantivcnp.com/schema" merchantId="1234567"><authentication><user>demo-user</user><password>demo-password</password></authentication>${body}</cnpOnlineRequest>`,
    })
    return response.text()
  }
  const registered = await post(
    `<registerTokenRequest id="${label}-reg" reportGroup="rg"><orderId>${label}-1</orderId><accountNumber>${card}</accountNumber></registerTokenRequest>`
  )
  const token = /<cnpToken>(\d+)<\/cnpToken>/.exec(registered)?.[1]
  const authorized = await post(
    `<authorization id="${label}-${Date.now()}" reportGroup="rg"><orderId>${label}-order</orderId><amount>700</amount><orderSource>ecommerce</orderSource><token><cnpToken>${token}</cnpToken></token></authorization>`
  )
  const cnpTxnId = /<cnpTxnId>(\d+)<\/cnpTxnId>/.exec(authorized)?.[1]
  if (!cnpTxnId) {
    throw new Error(`no authorization: ${authorized}`)
  }
  return cnpTxnId
}
