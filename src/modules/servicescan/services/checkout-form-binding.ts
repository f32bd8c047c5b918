import type { Context } from "@medusajs/framework/types"
import { MedusaInternalService } from "@medusajs/framework/utils"
import { FormBinding } from "../models"
import type { FormBindingSqlRepository } from "../repositories/checkout-form-binding"
import type { FormCheckout } from "../types"

type InjectedDependencies = {
  formBindingSqlRepository: FormBindingSqlRepository
}

/**
 * The checkout's binding of each hosted-form id to the checkout it was first
 * sent into (the FormBinding model; its CRUD is Medusa's). Whether a form may
 * pay in a checkout is decided by `sameCheckout` (lifecycle/form-binding.ts).
 *
 * A checkout concern in the disputes module because its table is here: Medusa
 * gives a payment provider no tables of its own, and a module reads only its
 * own. The store routes' session-data middleware, the cart completion's guard
 * and the saved-card steps call it through the module's service.
 */
export class FormBindingService extends MedusaInternalService(FormBinding)<InjectedDependencies, typeof FormBinding> {
  protected readonly sql_: FormBindingSqlRepository

  constructor(dependencies: InjectedDependencies) {
    super(dependencies)
    this.sql_ = dependencies.formBindingSqlRepository
  }

  /**
   * Binds a hosted-form id to the checkout it is being sent into, unless it
   * belongs to one already, and answers the checkout it belongs to: the caller
   * refuses the form when that is another collection or another customer.
   * Keeps only a hash of the form id.
   */
  async bind(formId: string, checkout: FormCheckout, sharedContext: Context): Promise<FormCheckout> {
    return await this.sql_.bind(formId, checkout, sharedContext)
  }

  /** The checkouts these form ids are bound to, by lower-cased form id; a form id never sent is absent. */
  async read(formIds: string[], sharedContext: Context): Promise<Map<string, FormCheckout>> {
    return await this.sql_.read(formIds, sharedContext)
  }
}
