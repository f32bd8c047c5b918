/**
 * The module's internal services, one per concern; `service.ts` is the facade
 * workflows, routes and jobs call. As for Medusa's own modules (the payment
 * module's `PaymentProviderService`), the module loader imports every file of
 * this folder but this one and registers each class it exports in the
 * module's container as a singleton, under its name with a lower-case first
 * letter (`proofRequestService`); a service takes the others, the
 * repositories and the resolved options (loaders/validate-options.ts) from
 * there. A service named after a model (`ProofRequestService`) extends
 * Medusa's `MedusaInternalService` for that model, so it is also the model's
 * CRUD service, which the facade's generated methods call.
 *
 * The loader registers the functions these files export too (`describeError`,
 * `mapWithConcurrency`…); nothing resolves them from the container.
 */
export { ChargebackStatusService } from "./chargeback-status"
export { CheckoutAttemptService } from "./checkout-attempt"
export { CheckoutSignalService } from "./checkout-signal"
export { CompellingEvidenceService } from "./compelling-evidence"
export { FormBindingService } from "./checkout-form-binding"
export { DisputeCaseService } from "./dispute-case"
export { DisputeAnalyticsService } from "./dispute-analytics"
export { DisputesApiService } from "./disputes-api"
export { EvidenceVaultService } from "./evidence-vault"
export { PaymentRefService } from "./payment-ref"
export { ProofRequestService } from "./proof-request"
