import type { Context } from "@medusajs/framework/types"
import { MedusaInternalService } from "@medusajs/framework/utils"
import { isIP } from "node:net"
import { isDeviceId } from "../../../lib/device-id"
import { CheckoutSignal } from "../models"
import { RESOLVED_OPTIONS, type ResolvedServiceScanModuleOptions, type WithResolvedOptions } from "../options"
import type { CheckoutSignalSqlRepository } from "../repositories/checkout-signal"
import type { CheckoutSignalInput, CheckoutSignalPayment } from "../types"

type InjectedDependencies = WithResolvedOptions & {
  checkoutSignalSqlRepository: CheckoutSignalSqlRepository
}

/** A user agent is kept to this many characters: enough to tell browsers apart, never a megabyte header. */
export const USER_AGENT_MAX_LENGTH = 512

const DAY_MS = 24 * 60 * 60 * 1000

/**
 * The checkout signals (the CheckoutSignal model; its CRUD is Medusa's): what
 * a ServiceScan completion looked like, kept as evidence for a fraud dispute
 * for `checkoutSignals.retentionDays`, and recorded only while
 * `checkoutSignals.enabled` (docs/privacy.md). The cart completion's guard
 * records, the order's payment refs fill in the payment, the retention job
 * purges; the CE 3.0 evaluation reads the rows.
 */
export class CheckoutSignalService extends MedusaInternalService(CheckoutSignal)<InjectedDependencies, typeof CheckoutSignal> {
  protected readonly sql_: CheckoutSignalSqlRepository
  protected readonly settings_: ResolvedServiceScanModuleOptions["checkoutSignals"]

  constructor(dependencies: InjectedDependencies) {
    super(dependencies)
    this.sql_ = dependencies.checkoutSignalSqlRepository
    this.settings_ = dependencies[RESOLVED_OPTIONS].checkoutSignals
  }

  /** Whether completions record signals, and for how many days they are kept. */
  get settings(): { enabled: boolean; retentionDays: number } {
    return { ...this.settings_ }
  }

  /**
   * Records (or, for a retried completion of the same session, updates) the
   * session's signals; null, recording nothing, when signals are turned off.
   * Each value is bounded here, whoever called: an IP must parse as one, a
   * device id must have the widget's shape (anything else is dropped, not
   * stored), a user agent is cut to {@link USER_AGENT_MAX_LENGTH}.
   */
  async record(input: CheckoutSignalInput, sharedContext: Context): Promise<{ id: string; inserted: boolean } | null> {
    if (!this.settings_.enabled) {
      return null
    }
    const userAgent = input.user_agent?.trim().slice(0, USER_AGENT_MAX_LENGTH) || null
    return await this.sql_.record(
      {
        ...input,
        ip_address: input.ip_address && isIP(input.ip_address) ? normalizeIp(input.ip_address) : null,
        user_agent: userAgent,
        device_id: isDeviceId(input.device_id) ? input.device_id : null,
      },
      sharedContext
    )
  }

  /** Fills in the payment of these sessions' signals where it is empty; answers the rows filled. */
  async linkPayments(payments: CheckoutSignalPayment[], sharedContext: Context): Promise<string[]> {
    return await this.sql_.linkPayments(payments, sharedContext)
  }

  /** Empties the payment of these rows again (a compensation). */
  async unlinkPayments(ids: string[], sharedContext: Context): Promise<void> {
    await this.sql_.unlinkPayments(ids, sharedContext)
  }

  /**
   * Hard-deletes one batch of up to `limit` signals older than the retention
   * (created more than `retentionDays` days before `now`); answers how many went.
   */
  async purgeExpired(now: Date, limit: number, sharedContext: Context): Promise<number> {
    const before = new Date(now.getTime() - this.settings_.retentionDays * DAY_MS)
    return await this.sql_.purgeCreatedBefore(before, limit, sharedContext)
  }
}

/** An IPv4 address Express reports in its IPv6-mapped form (`::ffff:203.0.113.7`) is kept as IPv4, so the same shopper compares equal. */
function normalizeIp(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip)
  return mapped ? mapped[1] : ip.toLowerCase()
}
