import {
  keepPreviousData,
  useMutation,
  useQuery,
  useQueryClient,
  type UseMutationOptions,
  type UseQueryOptions,
} from "@tanstack/react-query"
import { CHARGEBACK_CASE_FIELDS, EVIDENCE_FIELDS } from "../../api/admin/servicescan/query-config"
import { backendPath, sdk } from "./sdk"
import { normalizeHealth } from "./health"
import type {
  CaseImportReport,
  Chargeback,
  ChargebackListQuery,
  ChargebackOutcome,
  DisputeAction,
  DisputeCase,
  DisputeCaseListQuery,
  ListResponse,
  RecordChargebackInput,
  ServiceHealth,
} from "./types"

const API = "/admin/servicescan"

/**
 * Query keys, hierarchical so one invalidation reaches every view of the data:
 * `servicescanKeys.chargebacks()` covers lists (any filters) and details.
 */
export const servicescanKeys = {
  all: ["servicescan"] as const,
  chargebacks: () => [...servicescanKeys.all, "chargebacks"] as const,
  chargebackLists: () => [...servicescanKeys.chargebacks(), "list"] as const,
  chargebackList: (query: ChargebackListQuery) => [...servicescanKeys.chargebackLists(), query] as const,
  chargeback: (id: string) => [...servicescanKeys.chargebacks(), "detail", id] as const,
  cases: () => [...servicescanKeys.all, "cases"] as const,
  caseList: (query: DisputeCaseListQuery) => [...servicescanKeys.cases(), "list", query] as const,
  health: () => [...servicescanKeys.all, "health"] as const,
}

/** The processor's case behind each chargeback (null when there is none), beside the server's defaults. */
const CASE_FIELDS_PARAM = CHARGEBACK_CASE_FIELDS.map((field) => `+${field}`).join(",")

// `+` adds the evidence fields to the server's defaults instead of replacing them.
const EVIDENCE_FIELDS_PARAM = [...EVIDENCE_FIELDS.map((field) => `+${field}`), CASE_FIELDS_PARAM].join(",")

/**
 * The list's evidence summary needs only verdicts, not the whole evidence; its
 * status follows the case (lib/status-meanings.ts), so it needs our answer and
 * the network's decision.
 */
const SUMMARY_FIELDS_PARAM = [
  "proof_requests.id",
  "proof_requests.status",
  "proof_requests.scans.ground_truth",
  "dispute_case.id",
  "dispute_case.response_status",
  "dispute_case.outcome",
]
  .map((field) => `+${field}`)
  .join(",")

/**
 * The query string sent for a list request. Exported so the filter UI and its
 * spec agree on it: empty filters are left out rather than sent blank (the
 * server would reject `q=`), and a calendar date becomes the end of that day.
 */
export function chargebackListParams(
  query: ChargebackListQuery,
  fields?: string
): Record<string, string | number> {
  const params: Record<string, string | number> = {}
  const statuses = Array.isArray(query.status) ? query.status : query.status ? [query.status] : []
  if (statuses.length) {
    params.status = statuses.join(",")
  }
  if (query.order_id) {
    params.order_id = query.order_id
  }
  if (query.due_before) {
    params.due_before = dueBeforeParam(query.due_before)
  }
  if (query.due_after) {
    params.due_after = dueAfterParam(query.due_after)
  }
  const q = query.q?.trim()
  if (q) {
    params.q = q
  }
  if (query.order) {
    params.order = query.order
  }
  params.offset = query.offset ?? 0
  params.limit = query.limit ?? 20
  if (fields) {
    params.fields = fields
  }
  return params
}

/**
 * "Due on or before 12 March" in the merchant's time zone: the backend takes an
 * ISO date-time and keeps `due_by < due_before`, so we send the instant just
 * after the end of that local day.
 */
export function dueBeforeParam(date: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) {
    return date
  }
  const [year, month, day] = date.split("-").map(Number)
  return new Date(year, month - 1, day + 1, 0, 0, 0, 0).toISOString()
}

/** "Due on or after 12 March": from the start of that local day (an ISO date-time passes through). */
export function dueAfterParam(date: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) {
    return date
  }
  const [year, month, day] = date.split("-").map(Number)
  return new Date(year, month - 1, day, 0, 0, 0, 0).toISOString()
}

/**
 * The image proxy's URL for a scan. It is the only way the admin shows or
 * downloads an image: the service's own URL needs the secret key and answers
 * as an attachment, so it can be neither linked nor inlined.
 */
export function scanImageUrl(scanId: string, options: { download?: boolean } = {}): string {
  const path = `${API}/scans/${encodeURIComponent(scanId)}/image`
  return backendPath(options.download ? `${path}?download=1` : path)
}

type ChargebackResponse = { chargeback: Chargeback }

export type CheckSummary = {
  submitted?: number
  submission_errors?: number
  checked?: number
  still_pending?: number
  completed?: number
  errors?: number
  skipped?: number
  chargebacks_changed?: number
}

type QueryOptions<T> = Omit<UseQueryOptions<T, Error, T, readonly unknown[]>, "queryKey" | "queryFn">

/** A page of chargebacks. `withEvidence` adds proof requests and scans to each row. */
export function useChargebacks(
  query: ChargebackListQuery,
  options: QueryOptions<ListResponse<Chargeback>> & { withEvidence?: boolean; withSummary?: boolean } = {}
) {
  const { withEvidence, withSummary, ...queryOptions } = options
  const fields = withEvidence ? EVIDENCE_FIELDS_PARAM : withSummary ? SUMMARY_FIELDS_PARAM : undefined
  return useQuery({
    queryKey: [...servicescanKeys.chargebackList(query), fields ?? "default"],
    queryFn: () =>
      sdk.client.fetch<ListResponse<Chargeback>>(`${API}/chargebacks`, {
        query: chargebackListParams(query, fields),
      }),
    // Paging and filtering keep the last page on screen instead of flashing a skeleton.
    placeholderData: keepPreviousData,
    ...queryOptions,
  })
}

/** One chargeback with its evidence (the detail endpoint includes it by default) and its processor case. */
export function useChargeback(id: string, options: QueryOptions<Chargeback> = {}) {
  return useQuery({
    queryKey: servicescanKeys.chargeback(id),
    queryFn: async () =>
      (
        await sdk.client.fetch<ChargebackResponse>(`${API}/chargebacks/${encodeURIComponent(id)}`, {
          query: { fields: CASE_FIELDS_PARAM },
        })
      ).chargeback,
    ...options,
  })
}

/** An order's chargebacks with their evidence, for the order page. */
export function useOrderChargebacks(orderId: string) {
  // An order rarely has more than one or two; 50 keeps this one request.
  return useChargebacks({ order_id: orderId, limit: 50 }, { withEvidence: true, placeholderData: undefined })
}

export function useServiceHealth(options: QueryOptions<ServiceHealth> = {}) {
  return useQuery({
    queryKey: servicescanKeys.health(),
    queryFn: async () => normalizeHealth(await sdk.client.fetch<unknown>(`${API}/health`)),
    // The endpoint probes the service; once a minute is plenty while the page is open.
    staleTime: 60_000,
    ...options,
  })
}

/** The query string of a case list; empty filters are left out, as for chargebacks. */
export function caseListParams(query: DisputeCaseListQuery): Record<string, string | number> {
  const params: Record<string, string | number> = {}
  if (query.status) {
    params.status = query.status
  }
  const q = query.q?.trim()
  if (q) {
    params.q = q
  }
  if (query.order) {
    params.order = query.order
  }
  params.offset = query.offset ?? 0
  params.limit = query.limit ?? 20
  return params
}

/** A page of the processor's cases; `{ status: "unmatched" }` is the admin's to-do list. */
export function useDisputeCases(query: DisputeCaseListQuery, options: QueryOptions<ListResponse<DisputeCase>> = {}) {
  return useQuery({
    queryKey: servicescanKeys.caseList(query),
    queryFn: () => sdk.client.fetch<ListResponse<DisputeCase>>(`${API}/cases`, { query: caseListParams(query) }),
    placeholderData: keepPreviousData,
    ...options,
  })
}

/**
 * The evidence pack's URL: generated on demand, answered as a PDF attachment,
 * authenticated by the admin's session cookie like the image proxy.
 */
export function evidencePackUrl(chargebackId: string): string {
  return backendPath(`${API}/chargebacks/${encodeURIComponent(chargebackId)}/evidence-pack`)
}

type MutationOptions<TData, TVariables> = Omit<UseMutationOptions<TData, Error, TVariables>, "mutationFn">

/**
 * After any change to a chargeback, every list and detail showing it is stale,
 * and so is the health page's pending count. The returned promise settles once
 * the chargeback views have their new data, not the health data.
 */
function useInvalidateChargebacks() {
  const queryClient = useQueryClient()
  // Refetch rather than write the mutation's answer into the cache: a detail
  // view needs the evidence fields, which a mutation's answer may not carry.
  return async () => {
    // Not awaited: the health route probes ServiceScan (up to its 10 s
    // timeout), and a mutation's button spins until its onSuccess settles,
    // worst exactly when the service is down. The count updates when it arrives.
    void queryClient.invalidateQueries({ queryKey: servicescanKeys.health() })
    // Awaited: the chargeback views (and the cases behind them) are what the admin looks at next.
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: servicescanKeys.chargebacks() }),
      queryClient.invalidateQueries({ queryKey: servicescanKeys.cases() }),
    ])
  }
}

export type RecordChargebackResult = { chargeback: Chargeback; created: boolean }

export function useRecordChargeback(options: MutationOptions<RecordChargebackResult, RecordChargebackInput> = {}) {
  const invalidate = useInvalidateChargebacks()
  return useMutation({
    mutationFn: (input: RecordChargebackInput) =>
      sdk.client.fetch<RecordChargebackResult>(`${API}/chargebacks`, { method: "POST", body: input }),
    ...options,
    onSuccess: async (data, variables, context) => {
      await invalidate()
      await options.onSuccess?.(data, variables, context)
    },
  })
}

export type AttachScanIdsResult = { chargeback: Chargeback; proof_request_id?: string | null }

export function useAttachScanIds(chargebackId: string, options: MutationOptions<AttachScanIdsResult, string[]> = {}) {
  const invalidate = useInvalidateChargebacks()
  return useMutation({
    mutationFn: (scanIds: string[]) =>
      sdk.client.fetch<AttachScanIdsResult>(`${API}/chargebacks/${chargebackId}/scans`, {
        method: "POST",
        body: { scan_ids: scanIds },
      }),
    ...options,
    onSuccess: async (data, variables, context) => {
      await invalidate()
      await options.onSuccess?.(data, variables, context)
    },
  })
}

export type CheckChargebackResult = { chargeback: Chargeback; check?: CheckSummary }

/** "Check now": sends what waits, polls what is pending; `resubmit` re-sends unconfirmed submissions. */
export function useCheckChargeback(
  chargebackId: string,
  options: MutationOptions<CheckChargebackResult, { resubmit?: boolean } | void> = {}
) {
  const invalidate = useInvalidateChargebacks()
  return useMutation({
    mutationFn: (variables: { resubmit?: boolean } | void) =>
      sdk.client.fetch<CheckChargebackResult>(`${API}/chargebacks/${chargebackId}/check`, {
        method: "POST",
        body: variables?.resubmit ? { resubmit: true } : {},
      }),
    ...options,
    onSuccess: async (data, variables, context) => {
      await invalidate()
      await options.onSuccess?.(data, variables, context)
    },
  })
}

export function useSetChargebackOutcome(
  chargebackId: string,
  options: MutationOptions<ChargebackResponse, ChargebackOutcome> = {}
) {
  const invalidate = useInvalidateChargebacks()
  return useMutation({
    mutationFn: (outcome: ChargebackOutcome) =>
      sdk.client.fetch<ChargebackResponse>(`${API}/chargebacks/${chargebackId}/outcome`, {
        method: "POST",
        body: { outcome },
      }),
    ...options,
    onSuccess: async (data, variables, context) => {
      await invalidate()
      await options.onSuccess?.(data, variables, context)
    },
  })
}

export type RespondResult = { chargeback: Chargeback; dispute_case: DisputeCase }

/**
 * "Send evidence" (`represent`: the evidence pack goes up to the case, then
 * the representment) or "Accept liability". The views refetch afterwards, so
 * the case's timeline shows the processor's new activity.
 */
export function useRespondToDispute(chargebackId: string, options: MutationOptions<RespondResult, DisputeAction> = {}) {
  const invalidate = useInvalidateChargebacks()
  return useMutation({
    mutationFn: (action: DisputeAction) =>
      sdk.client.fetch<RespondResult>(`${API}/chargebacks/${encodeURIComponent(chargebackId)}/respond`, {
        method: "POST",
        body: { action },
      }),
    ...options,
    onSuccess: async (data, variables, context) => {
      await invalidate()
      await options.onSuccess?.(data, variables, context)
    },
  })
}

export type AssignCaseResult = { dispute_case: DisputeCase; chargeback_id: string }

/** An unmatched case belongs to this order: its chargeback is recorded there and evidence collection starts. */
export function useAssignDisputeCase(caseId: string, options: MutationOptions<AssignCaseResult, string> = {}) {
  const invalidate = useInvalidateChargebacks()
  return useMutation({
    mutationFn: (orderId: string) =>
      sdk.client.fetch<AssignCaseResult>(`${API}/cases/${encodeURIComponent(caseId)}/assign`, {
        method: "POST",
        body: { order_id: orderId },
      }),
    ...options,
    onSuccess: async (data, variables, context) => {
      await invalidate()
      await options.onSuccess?.(data, variables, context)
    },
  })
}

/** "Import now": the case import job's run, outside its schedule. */
export function useImportDisputeCases(options: MutationOptions<{ import: CaseImportReport }, void> = {}) {
  const invalidate = useInvalidateChargebacks()
  return useMutation({
    mutationFn: () => sdk.client.fetch<{ import: CaseImportReport }>(`${API}/cases/import`, { method: "POST", body: {} }),
    ...options,
    onSuccess: async (data, variables, context) => {
      await invalidate()
      await options.onSuccess?.(data, variables, context)
    },
  })
}
