/**
 * Scale of the system suites. `npm test` runs the default; SERVICESCAN_SCALE=large
 * runs the larger setting (docs/reliability.md records its figures). Single
 * counts can be set directly too (SERVICESCAN_FAULT_CHECKOUTS, ...).
 */
const large = process.env.SERVICESCAN_SCALE === "large"

const count = (name: string, normal: number, big: number): number => {
  const value = process.env[name]
  if (value !== undefined) {
    const n = Number(value)
    if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive whole number, got "${value}"`)
    return n
  }
  return large ? big : normal
}

export const SCALE = {
  name: large ? "large" : "default",
  faultCheckouts: count("SERVICESCAN_FAULT_CHECKOUTS", 50, 200),
  faultChargebacks: count("SERVICESCAN_FAULT_CHARGEBACKS", 100, 500),
  instanceProofRequests: count("SERVICESCAN_INSTANCE_PROOF_REQUESTS", 100, 500),
}

/** The seed of a run's own random choices: SERVICESCAN_SEED to replay one, else a new one (printed). */
export function runSeed(): number {
  const fromEnv = process.env.SERVICESCAN_SEED
  if (fromEnv !== undefined) {
    const seed = Number(fromEnv)
    if (!Number.isInteger(seed)) throw new Error(`SERVICESCAN_SEED must be a whole number, got "${fromEnv}"`)
    return seed
  }
  return Math.floor(Math.random() * 2 ** 31)
}
