/**
 * Every raw SQL statement of the module, one class per concern, each on
 * Medusa's `MikroOrmBase` like the pricing module's `PricingRepository`: a
 * statement runs on the caller's manager or transaction (`getActiveManager`).
 * Table and column names come from the models (`names.ts`).
 *
 * Medusa's module loader imports every file of this folder but this one and
 * registers each class it exports in the module's container, under its name
 * with a lower-case first letter (`proofRequestSqlRepository`); the services
 * take them from there. The names end in `SqlRepository` so that none takes
 * the place of the ORM repository the loader makes for each model
 * (`proofRequestRepository`), which the generated CRUD methods use.
 */
export { ChargebackStatusSqlRepository } from "./chargeback-status"
export { CheckoutAttemptSqlRepository } from "./checkout-attempt"
export { CheckoutSignalSqlRepository } from "./checkout-signal"
export { CompellingEvidenceSqlRepository } from "./compelling-evidence"
export { FormBindingSqlRepository } from "./checkout-form-binding"
export { DisputeCaseSqlRepository } from "./dispute-case"
export { DisputeAnalyticsSqlRepository } from "./dispute-analytics"
export { EvidenceVaultSqlRepository } from "./evidence-vault"
export { PaymentRefSqlRepository } from "./payment-ref"
export { ProcessorEventSqlRepository } from "./processor-event"
export { ProofRequestSqlRepository } from "./proof-request"
