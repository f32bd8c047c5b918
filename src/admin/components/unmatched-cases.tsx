import {
  Badge,
  Button,
  createDataTableColumnHelper,
  DataTable,
  Text,
  useDataTable,
  type DataTablePaginationState,
  type DataTableSortingState,
} from "@medusajs/ui"
import { useEffect, useMemo, useRef, useState, type MouseEvent } from "react"
import { useSearchParams } from "react-router-dom"
import { formatDay, formatMoney, gatewayDisplayName, replyByCountdown, todayUtc } from "../lib/format"
import { usePaginationWords, useServiceScanTranslation } from "../lib/i18n"
import { useDisputeCases, useServiceHealth } from "../lib/queries"
import type { DisputeCase, DisputeCaseListQuery } from "../lib/types"
import { AssignCaseDrawer } from "./assign-case-drawer"
import { ErrorState } from "./states"

export const CASES_PAGE_SIZE = 20

/** Columns the cases route sorts by (its `order` param, Medusa's own list ordering); the others are not sortable. */
export const CASE_SORTABLE = ["case_id", "amount", "reply_by", "created_at"] as const
const CASE_SORTABLE_SET = new Set<string>(CASE_SORTABLE)

/** The view's state in the URL, like the chargeback list's (`q`, `order`, `offset`), beside `view=unmatched`. */
export function readCaseListQuery(params: URLSearchParams): DisputeCaseListQuery & { offset: number; limit: number } {
  const offset = Number(params.get("offset") ?? 0)
  const order = params.get("order")
  return {
    status: "unmatched" as const,
    q: params.get("q")?.trim() || undefined,
    order: order && CASE_SORTABLE_SET.has(order.replace(/^-/, "")) ? order : undefined,
    offset: Number.isInteger(offset) && offset > 0 ? offset : 0,
    limit: CASES_PAGE_SIZE,
  }
}

const columnHelper = createDataTableColumnHelper<DisputeCase>()

/**
 * The processor's cases that matched no payment of this store: never dropped,
 * shown with what the processor knows (transaction id, the order reference the
 * payment carried, amount, reason, reply-by day) so an admin can find the
 * order and assign the case to it before the deadline. `@medusajs/ui`'s
 * DataTable, as the chargeback list: search, sorting and pages by the server.
 */
export const UnmatchedCases = () => {
  const { t, i18n } = useServiceScanTranslation()
  const paginationWords = usePaginationWords()
  const locale = i18n.language
  const [params, setParams] = useSearchParams()
  const query = readCaseListQuery(params)
  const [assigning, setAssigning] = useState<DisputeCase | null>(null)
  const { data: health } = useServiceHealth({ retry: false })
  const { data, isLoading, isError, error, refetch, isFetching } = useDisputeCases(query)
  const items = data?.items ?? []
  const today = todayUtc()

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
        // A new search or order starts at the first page.
        if (resetPage) {
          next.delete("offset")
        }
        return next
      },
      { replace: true }
    )

  const columns = useMemo(
    () => [
      columnHelper.accessor("case_id", {
        header: t("unmatched.columns.case"),
        enableSorting: true,
        sortLabel: t("unmatched.columns.case"),
        cell: ({ row }) => (
          <div className="flex flex-col py-2">
            <Text size="small" leading="compact" weight="plus" className="font-mono">
              {row.original.case_id}
            </Text>
            <Text size="xsmall" leading="compact" className="text-ui-fg-subtle">
              {[gatewayDisplayName(row.original.gateway), row.original.cycle].filter(Boolean).join(" · ")}
            </Text>
          </div>
        ),
      }),
      columnHelper.accessor("amount", {
        header: t("unmatched.columns.amount"),
        enableSorting: true,
        sortLabel: t("unmatched.columns.amount"),
        align: "right",
        cell: ({ row }) => (
          <span className="tabular-nums">{formatMoney(row.original.amount, row.original.currency_code, locale)}</span>
        ),
      }),
      columnHelper.accessor("reason_code", {
        header: t("unmatched.columns.reason"),
        cell: ({ row }) => (
          <span className="block max-w-[14rem] truncate" title={row.original.reason_description ?? undefined}>
            {[row.original.reason_code, row.original.reason_description].filter(Boolean).join(" · ") || t("common.none")}
          </span>
        ),
      }),
      columnHelper.accessor("reply_by", {
        header: t("unmatched.columns.replyBy"),
        enableSorting: true,
        sortLabel: t("unmatched.columns.replyBy"),
        cell: ({ row }) => {
          const countdown = replyByCountdown(row.original.reply_by, today)
          return (
            <span className="inline-flex flex-wrap items-center gap-x-2 gap-y-1">
              <span>{formatDay(row.original.reply_by, locale)}</span>
              {countdown && (
                <Badge size="2xsmall" color={countdown.color}>
                  {countdown.label === "passed"
                    ? t("case.countdown.passed")
                    : countdown.label === "due today"
                      ? t("case.countdown.today")
                      : t("case.countdown.days", { count: countdown.days })}
                </Badge>
              )}
            </span>
          )
        },
      }),
      columnHelper.display({
        id: "processor",
        header: t("unmatched.columns.processor"),
        cell: ({ row }) => (
          <div className="flex flex-col py-2">
            <Text size="xsmall" leading="compact" className="font-mono" title={t("unmatched.transactionTitle")}>
              {t("unmatched.transaction", { id: row.original.processor_transaction_id ?? t("common.none") })}
            </Text>
            <Text size="xsmall" leading="compact" className="text-ui-fg-subtle font-mono" title={t("unmatched.orderRefTitle")}>
              {t("unmatched.orderRef", { id: row.original.processor_order_id ?? t("common.none") })}
            </Text>
          </div>
        ),
      }),
      columnHelper.accessor("match_note", {
        header: t("unmatched.columns.why"),
        cell: ({ row }) => (
          <Text size="xsmall" leading="compact" className="text-ui-fg-subtle max-w-[16rem] whitespace-normal">
            {row.original.match_note ?? t("common.none")}
          </Text>
        ),
      }),
      columnHelper.accessor("created_at", {
        header: t("unmatched.columns.received"),
        enableSorting: true,
        sortLabel: t("unmatched.columns.received"),
        // Only there to sort by (newest cases first); the reply-by day is what matters on screen.
        cell: ({ row }) => formatDay(row.original.created_at?.slice(0, 10), locale),
      }),
      columnHelper.display({
        id: "actions",
        header: () => <span className="sr-only">{t("unmatched.columns.actions")}</span>,
        cell: ({ row }) => (
          <div className="flex justify-end">
            <Button
              size="small"
              variant="secondary"
              onClick={(event: MouseEvent) => {
                event.stopPropagation()
                setAssigning(row.original)
              }}
            >
              {t("unmatched.assign")}
              <span className="sr-only">{t("unmatched.assignCase", { id: row.original.case_id })}</span>
            </Button>
          </div>
        ),
      }),
    ],
    [t, locale, today]
  )

  const sorting: DataTableSortingState | null = query.order
    ? { id: query.order.replace(/^-/, ""), desc: query.order.startsWith("-") }
    : null
  const pagination: DataTablePaginationState = { pageIndex: Math.floor(query.offset / CASES_PAGE_SIZE), pageSize: CASES_PAGE_SIZE }

  const instance = useDataTable({
    data: items,
    columns,
    getRowId: (row) => row.id,
    rowCount: data?.count ?? 0,
    isLoading: isLoading || (isFetching && !items.length),
    sorting: {
      state: sorting,
      onSortingChange: (next) => update({ order: next ? `${next.desc ? "-" : ""}${next.id}` : undefined }),
    },
    search: {
      state: query.q ?? "",
      onSearchChange: (value) => update({ q: value.trim() || undefined }),
    },
    pagination: {
      state: pagination,
      onPaginationChange: (next) =>
        update({ offset: next.pageIndex > 0 ? String(next.pageIndex * next.pageSize) : undefined }, false),
    },
    // "Received" is for sorting; it starts hidden, as "Recorded" does on the chargeback list.
    columnVisibility: { state: { created_at: false }, onColumnVisibilityChange: () => undefined },
  })

  // As on the chargeback list: the library's <table>, search box and menu button carry no name of their own.
  const root = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const element = root.current
    if (!element) {
      return
    }
    element.querySelector("table")?.setAttribute("aria-label", t("unmatched.tableLabel"))
    element.querySelector("input[type='search']")?.setAttribute("aria-label", t("unmatched.search"))
    element.querySelector("[data-menu='sort'] button")?.setAttribute("aria-label", t("unmatched.sortMenu"))
  })

  if (isError) {
    return <ErrorState title={t("unmatched.couldNotLoad")} error={error} onRetry={() => void refetch()} />
  }

  const notConfigured = health?.dispute_gateway === null
  const empty = notConfigured ? "unmatched.noGateway" : "unmatched.empty"
  return (
    <div ref={root} aria-busy={isFetching} className={isFetching && items.length ? "opacity-60 transition-opacity" : undefined}>
      {isLoading && (
        <span role="status" className="sr-only">
          {t("unmatched.loading")}
        </span>
      )}
      <DataTable instance={instance}>
        <DataTable.Toolbar translations={{ sort: t("unmatched.sortMenu") }}>
          <div className="flex w-full items-center justify-end gap-x-2">
            <span data-menu="sort">
              <DataTable.SortingMenu tooltip={t("unmatched.sortMenu")} />
            </span>
            <DataTable.Search placeholder={t("unmatched.searchPlaceholder")} />
          </div>
        </DataTable.Toolbar>
        <DataTable.Table
          emptyState={{
            empty: { heading: t(`${empty}.heading`), description: t(`${empty}.description`) },
            filtered: { heading: t("unmatched.filteredEmpty.heading"), description: t("unmatched.filteredEmpty.description") },
          }}
        />
        <DataTable.Pagination translations={paginationWords} />
      </DataTable>
      <AssignCaseDrawer disputeCase={assigning} onOpenChange={(open) => !open && setAssigning(null)} />
    </div>
  )
}
