export { Chargeback } from "./chargeback"
export { ProofRequest } from "./proof-request"
export { ScanEvidence } from "./scan-evidence"
