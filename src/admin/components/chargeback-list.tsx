import {
  createDataTableColumnHelper,
  createDataTableFilterHelper,
  DataTable,
  Text,
  useDataTable,
  type DataTableDateComparisonOperator,
  type DataTableFilteringState,
  type DataTablePaginationState,
  type DataTableSortingState,
} from "@medusajs/ui"
import type { TFunction } from "i18next"
import { useEffect, useMemo, useRef, useState, type MouseEvent } from "react"
import { Link, useNavigate, useSearchParams } from "react-router-dom"
import { chargebackStatusLabel, formatDateTime, formatMoney, groundTruthLabel } from "../lib/format"
import { usePaginationWords, useServiceScanTranslation } from "../lib/i18n"
import { useChargebacks } from "../lib/queries"
import { CHARGEBACK_STATUSES, type Chargeback, type ChargebackListQuery, type ChargebackStatus } from "../lib/types"
import { DueDate } from "./due-date"
import { focusNewFilter } from "./filter-focus"
import { customerLabel, OrderReference } from "./order-reference"
import { ErrorState } from "./states"
import { ChargebackStatusBadge } from "./status-badges"

export const PAGE_SIZE = 20

/** Columns the server sorts by (its `order` param); the others are not sortable. */
export const SORTABLE = ["external_id", "amount", "due_by", "status", "created_at"] as const
const SORTABLE_SET = new Set<string>(SORTABLE)

const COLUMNS_STORAGE_KEY = "servicescan.disputes.columns"
/** Shown unless the admin hides them; "Recorded" is there to sort by and starts hidden. */
const DEFAULT_VISIBILITY: Record<string, boolean> = { created_at: false }

/** The list's state as the URL holds it (as Medusa's own lists do): bookmarkable, and it survives Back. */
export type ListState = {
  statuses: ChargebackStatus[]
  dueBy: DataTableDateComparisonOperator | null
  q: string
  order: string | null
  offset: number
}

/** Reads the URL: `status=open,won`, `due_by={"$gte":…}`, `q`, `order=-due_by`, `offset`; anything malformed is dropped. */
export function readListState(params: URLSearchParams): ListState {
  const statuses = (params.get("status") ?? "")
    .split(",")
    .filter((status): status is ChargebackStatus => CHARGEBACK_STATUSES.includes(status as ChargebackStatus))
  let dueBy: DataTableDateComparisonOperator | null = null
  try {
    const parsed: unknown = JSON.parse(params.get("due_by") ?? "null")
    if (parsed && typeof parsed === "object") {
      const entries = Object.entries(parsed).filter(
        ([key, value]) => ["$gte", "$gt", "$lte", "$lt"].includes(key) && typeof value === "string" && !Number.isNaN(Date.parse(value))
      )
      dueBy = entries.length ? Object.fromEntries(entries) : null
    }
  } catch {
    dueBy = null
  }
  const order = params.get("order")
  const offset = Number(params.get("offset") ?? 0)
  return {
    statuses,
    dueBy,
    q: params.get("q")?.trim() ?? "",
    order: order && SORTABLE_SET.has(order.replace(/^-/, "")) ? order : null,
    offset: Number.isInteger(offset) && offset > 0 ? offset : 0,
  }
}

/** A local calendar day `YYYY-MM-DD` of a date-time (what the date picker meant). */
function localDay(iso: string): string {
  const date = new Date(iso)
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, "0")}-${String(date.getDate()).padStart(2, "0")}`
}

/**
 * The list request for a URL state. The date filter's bounds become the
 * server's `due_after`/`due_before`: an inclusive bound (`$gte`, `$lte`, what
 * the date picker sets) is a whole local day, an exclusive one is the instant.
 */
export function listQueryFor(state: ListState): ChargebackListQuery {
  const due = state.dueBy ?? {}
  return {
    status: state.statuses.length ? state.statuses : undefined,
    q: state.q || undefined,
    order: state.order ?? undefined,
    due_after: due.$gte ? localDay(due.$gte) : due.$gt,
    due_before: due.$lte ? localDay(due.$lte) : due.$lt,
    offset: state.offset,
    limit: PAGE_SIZE,
  }
}

/** What a row's evidence amounts to, in the words the merchant acts on. */
export function evidenceSummary(chargeback: Chargeback, t: TFunction): string {
  const prs = chargeback.proof_requests
  if (!prs) {
    return t("list.evidence.notLoaded")
  }
  if (prs.length === 0) {
    return t("list.evidence.noScans")
  }
  const scans = prs.filter((pr) => pr.status === "complete").flatMap((pr) => pr.scans ?? [])
  const valid = scans.filter((scan) => groundTruthLabel(scan.ground_truth).verdict === "valid").length
  const invalid = scans.filter((scan) => groundTruthLabel(scan.ground_truth).verdict === "invalid").length
  const waiting = prs.some((pr) => ["to_submit", "submitting", "pending"].includes(pr.status))
  const parts: string[] = []
  if (valid) {
    parts.push(t("list.evidence.worth", { count: valid }))
  }
  if (invalid) {
    parts.push(t("list.evidence.fraud", { count: invalid }))
  }
  if (waiting) {
    parts.push(t("list.evidence.awaiting"))
  }
  if (!parts.length && prs.some((pr) => pr.status === "failed")) {
    parts.push(t("list.evidence.refused"))
  }
  return parts.length ? parts.join(" · ") : t("list.evidence.noVerdict")
}

const FINAL = new Set(["won", "lost", "closed"])
const DAY_MS = 24 * 60 * 60 * 1000

function startOfToday(): Date {
  const now = new Date()
  return new Date(now.getFullYear(), now.getMonth(), now.getDate())
}

function readStoredVisibility(): Record<string, boolean> {
  try {
    const stored: unknown = JSON.parse(window.localStorage.getItem(COLUMNS_STORAGE_KEY) ?? "null")
    if (stored && typeof stored === "object") {
      return Object.fromEntries(Object.entries(stored).filter(([, value]) => typeof value === "boolean"))
    }
  } catch {
    // A private window or a value from another version: the defaults.
  }
  return DEFAULT_VISIBILITY
}

const columnHelper = createDataTableColumnHelper<Chargeback>()
const filterHelper = createDataTableFilterHelper<Chargeback>()

/**
 * The Disputes list on `@medusajs/ui`'s DataTable, as Medusa's own lists are:
 * search, filters, sorting, pages and column choice, all done by the server
 * through the list route's query parameters, with the state in the URL.
 */
export const ChargebackList = () => {
  const { t, i18n } = useServiceScanTranslation()
  const paginationWords = usePaginationWords()
  const locale = i18n.language
  const navigate = useNavigate()
  const [params, setParams] = useSearchParams()
  const state = readListState(params)
  const query = listQueryFor(state)

  const { data, isLoading, isError, error, refetch, isFetching } = useChargebacks(query, { withSummary: true })
  const items = data?.items ?? []

  const update = (changes: Record<string, string | undefined>, resetPage = true) =>
    setParams(
      (previous) => {
        const next = new URLSearchParams(previous)
        for (const [key, value] of Object.entries(changes)) {
          if (value) {
            next.set(key, value)
          } else {
            next.delete(key)
          }
        }
        // A new filter starts at the first page; page 3 of the old results means nothing.
        if (resetPage) {
          next.delete("offset")
        }
        return next
      },
      { replace: true }
    )

  const columns = useMemo(
    () => [
      columnHelper.accessor("external_id", {
        header: t("list.columns.dispute"),
        enableSorting: true,
        sortLabel: t("list.columns.dispute"),
        cell: ({ row }) => (
          // A real link: the row's click is for the mouse, the link for the keyboard and screen readers.
          <Link
            to={`/disputes/${row.original.id}`}
            className="text-ui-fg-base hover:text-ui-fg-interactive font-medium"
            onClick={(event: MouseEvent) => event.stopPropagation()}
          >
            {row.original.external_id}
          </Link>
        ),
      }),
      columnHelper.display({
        id: "order",
        header: t("list.columns.order"),
        cell: ({ row }) => <OrderReference chargeback={row.original} withCustomer={false} />,
      }),
      columnHelper.display({
        id: "customer",
        header: t("list.columns.customer"),
        cell: ({ row }) => {
          const order = row.original.order
          const customer = customerLabel(order)
          return (
            <Text as="span" size="small" leading="compact" className="truncate" data-testid="order-customer">
              {order === null ? t("list.orderGone") : (customer ?? (order ? t("list.guest") : t("common.none")))}
            </Text>
          )
        },
      }),
      columnHelper.accessor("amount", {
        header: t("list.columns.amount"),
        enableSorting: true,
        sortLabel: t("list.columns.amount"),
        align: "right",
        cell: ({ row }) => (
          <span className="tabular-nums">{formatMoney(row.original.amount, row.original.currency_code, locale)}</span>
        ),
      }),
      columnHelper.accessor("reason", {
        header: t("list.columns.reason"),
        cell: ({ row }) => (
          <span title={row.original.reason ?? undefined}>
            {row.original.reason || row.original.reason_code || t("common.none")}
          </span>
        ),
      }),
      columnHelper.accessor("due_by", {
        header: t("list.columns.dueBy"),
        enableSorting: true,
        sortLabel: t("list.columns.dueBy"),
        cell: ({ row }) => <DueDate dueBy={row.original.due_by} settled={FINAL.has(row.original.status)} />,
      }),
      columnHelper.accessor("status", {
        header: t("list.columns.status"),
        enableSorting: true,
        sortLabel: t("list.columns.status"),
        cell: ({ row }) => <ChargebackStatusBadge chargeback={row.original} />,
      }),
      columnHelper.display({
        id: "evidence",
        header: t("list.columns.evidence"),
        cell: ({ row }) => (
          <Text as="span" size="small" leading="compact" className="text-ui-fg-subtle">
            {evidenceSummary(row.original, t)}
          </Text>
        ),
      }),
      columnHelper.accessor("created_at", {
        header: t("list.columns.recorded"),
        enableSorting: true,
        sortLabel: t("list.columns.recorded"),
        cell: ({ row }) => formatDateTime(row.original.created_at, locale),
      }),
    ],
    [t, locale]
  )

  const filters = useMemo(() => {
    const today = startOfToday()
    const inDays = (days: number) => new Date(today.getTime() + (days + 1) * DAY_MS).toISOString()
    return [
      filterHelper.accessor("status", {
        type: "multiselect",
        label: t("list.filters.status"),
        options: CHARGEBACK_STATUSES.map((status) => ({
          value: status,
          label: t(`status.chargeback.${status}`, { defaultValue: chargebackStatusLabel(status).label }),
        })),
      }),
      filterHelper.accessor("due_by", {
        type: "date",
        label: t("list.filters.dueBy"),
        format: "date",
        rangeOptionLabel: t("list.filters.range"),
        rangeOptionStartLabel: t("list.filters.from"),
        rangeOptionEndLabel: t("list.filters.to"),
        formatDateValue: (value) => new Intl.DateTimeFormat(locale, { dateStyle: "medium" }).format(value),
        options: [
          { label: t("list.filters.overdue"), value: { $lt: today.toISOString() } },
          { label: t("list.filters.next7Days"), value: { $gt: today.toISOString(), $lt: inDays(7) } },
          { label: t("list.filters.next30Days"), value: { $gt: today.toISOString(), $lt: inDays(30) } },
        ],
      }),
    ]
  }, [t, locale])

  // A filter just added from the menu has no value yet: it stays on screen (its
  // options open) without reaching the URL or the server until one is chosen.
  const [pendingFilters, setPendingFilters] = useState<DataTableFilteringState>({})
  const filtering: DataTableFilteringState = {
    ...pendingFilters,
    ...(state.statuses.length ? { status: state.statuses } : {}),
    ...(state.dueBy ? { due_by: state.dueBy } : {}),
  }
  const sorting: DataTableSortingState | null = state.order
    ? { id: state.order.replace(/^-/, ""), desc: state.order.startsWith("-") }
    : null
  const pagination: DataTablePaginationState = { pageIndex: Math.floor(state.offset / PAGE_SIZE), pageSize: PAGE_SIZE }

  const [columnVisibility, setColumnVisibility] = useState<Record<string, boolean>>(readStoredVisibility)

  const instance = useDataTable({
    data: items,
    columns,
    filters,
    getRowId: (row) => row.id,
    rowCount: data?.count ?? 0,
    isLoading: isLoading || (isFetching && !items.length),
    onRowClick: (_event, row) => navigate(`/disputes/${row.id}`),
    filtering: {
      state: filtering,
      onFilteringChange: (next) => {
        setPendingFilters(
          Object.fromEntries(
            Object.entries(next).filter(([, value]) => value === null || (Array.isArray(value) && value.length === 0))
          )
        )
        const statuses = Array.isArray(next.status) ? next.status.filter((s): s is string => typeof s === "string") : []
        const due = next.due_by && typeof next.due_by === "object" ? JSON.stringify(next.due_by) : undefined
        update({ status: statuses.join(",") || undefined, due_by: due })
      },
    },
    sorting: {
      state: sorting,
      onSortingChange: (next) => update({ order: next ? `${next.desc ? "-" : ""}${next.id}` : undefined }),
    },
    search: {
      state: state.q,
      onSearchChange: (value) => update({ q: value.trim() || undefined }),
    },
    pagination: {
      state: pagination,
      onPaginationChange: (next) =>
        update({ offset: next.pageIndex > 0 ? String(next.pageIndex * next.pageSize) : undefined }, false),
    },
    columnVisibility: {
      state: columnVisibility,
      onColumnVisibilityChange: (next) => {
        setColumnVisibility(next)
        try {
          window.localStorage.setItem(COLUMNS_STORAGE_KEY, JSON.stringify(next))
        } catch {
          // Not persisted (private window); it still applies to this visit.
        }
      },
    },
  })

  // The library's icon buttons and its <table> carry no name of their own;
  // a screen reader would announce "button" and an unnamed table.
  const root = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const element = root.current
    if (!element) {
      return
    }
    element.querySelector("table")?.setAttribute("aria-label", t("list.tableLabel"))
    // A placeholder is not a label: it disappears once the admin types.
    element.querySelector("input[type='search']")?.setAttribute("aria-label", t("list.search"))
    const named: [string, string][] = [
      ["[data-menu='filter'] button", t("list.filterMenu")],
      ["[data-menu='sort'] button", t("list.sortMenu")],
      ["[data-menu='columns'] button", t("list.columnsMenu")],
    ]
    for (const [selector, label] of named) {
      element.querySelector(selector)?.setAttribute("aria-label", label)
    }
  })

  if (isError) {
    return <ErrorState title={t("list.couldNotLoad")} error={error} onRetry={() => void refetch()} />
  }

  return (
    <div ref={root} aria-busy={isFetching} className={isFetching && items.length ? "opacity-60 transition-opacity" : undefined}>
      {isLoading && (
        <span role="status" className="sr-only">
          {t("list.loading")}
        </span>
      )}
      <DataTable instance={instance}>
        <DataTable.Toolbar
          className="flex flex-col items-start justify-between gap-2 md:flex-row md:items-center"
          translations={{ clearAll: t("list.clearAll"), sort: t("list.sortMenu"), columns: t("list.columnsMenu") }}
          alwaysShowFilterBar
        >
          <div className="flex w-full items-center justify-end gap-x-2">
            <span data-menu="filter">
              <DataTable.FilterMenu
                tooltip={t("list.filterMenu")}
                onAddFilter={(id, value) => {
                  instance.addFilter({ id, value })
                  // Keyboard users land in the new filter's options, not back on the funnel.
                  focusNewFilter(root.current?.querySelector<HTMLElement>("[data-menu='filter'] button") ?? null)
                }}
              />
            </span>
            <span data-menu="sort">
              <DataTable.SortingMenu tooltip={t("list.sortMenu")} />
            </span>
            <span data-menu="columns">
              <DataTable.ColumnVisibilityMenu tooltip={t("list.columnsMenu")} />
            </span>
            <DataTable.Search placeholder={t("list.searchPlaceholder")} />
          </div>
        </DataTable.Toolbar>
        <DataTable.Table
          emptyState={{
            empty: { heading: t("list.empty.heading"), description: t("list.empty.description") },
            filtered: { heading: t("list.filteredEmpty.heading"), description: t("list.filteredEmpty.description") },
          }}
        />
        <DataTable.Pagination translations={paginationWords} />
      </DataTable>
    </div>
  )
}
