import type { BigNumberInput } from "@medusajs/framework/types"
import { MathBN, MedusaError } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { currencyExponent, toMinorUnits } from "../../processors/money"

export type ValidateChargebackForOrderStepInput = {
  amount: BigNumberInput
  currency_code: string
  order: { id: string; currency_code: string; total: BigNumberInput }
}

/**
 * A chargeback disputes money the order took: in the order's currency, at
 * that currency's precision, and not more than the order's total. Anything
 * else is a mistake upstream, answered 400 naming the field, before anything
 * is recorded or sent. Reads only.
 */
export const validateChargebackForOrderStep = createStep(
  "servicescan-validate-chargeback-for-order",
  async (input: ValidateChargebackForOrderStepInput) => {
    const { order } = input
    const currency = input.currency_code.toLowerCase()
    const orderCurrency = order.currency_code.toLowerCase()
    if (currency !== orderCurrency) {
      throw new MedusaError(
        MedusaError.Types.INVALID_DATA,
        `currency_code ${currency} differs from the currency of order ${order.id} (${orderCurrency})`
      )
    }
    const amount = MathBN.convert(input.amount)
    const total = MathBN.convert(order.total)
    if (MathBN.gt(amount, total)) {
      throw new MedusaError(
        MedusaError.Types.INVALID_DATA,
        `amount ${amount.toFixed()} is larger than the total of order ${order.id} (${total.toFixed()} ${currency})`
      )
    }
    try {
      toMinorUnits(amount, currency)
    } catch {
      throw new MedusaError(
        MedusaError.Types.INVALID_DATA,
        `amount ${amount.toFixed()} has more decimal places than ${currency} allows (${currencyExponent(currency)})`
      )
    }
    return new StepResponse(undefined)
  }
)
