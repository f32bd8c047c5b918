import { Button, Input, Label, Select, Skeleton, Table, Text } from "@medusajs/ui"
import { useEffect, useRef, useState, type KeyboardEvent, type MouseEvent } from "react"
import { Link, useNavigate, useSearchParams } from "react-router-dom"
import { chargebackStatusLabel, formatMoney, groundTruthLabel } from "../lib/format"
import { useChargebacks } from "../lib/queries"
import { CHARGEBACK_STATUSES, type Chargeback, type ChargebackListQuery, type ChargebackStatus } from "../lib/types"
import { DueDate } from "./due-date"
import { EmptyState, ErrorState } from "./states"
import { ChargebackStatusBadge } from "./status-badges"

export const PAGE_SIZE = 20
const ALL = "all"
const SEARCH_DEBOUNCE_MS = 300

export type ListSort = "newest" | "due"

/**
 * The list's state lives in the URL (as on Medusa's own list pages), so a
 * filtered page can be bookmarked, shared, and survives a reload or Back.
 */
export function readListQuery(params: URLSearchParams): ChargebackListQuery & { sort: ListSort } {
  const status = params.get("status")
  const offset = Number(params.get("offset") ?? 0)
  return {
    status: CHARGEBACK_STATUSES.includes(status as ChargebackStatus) ? (status as ChargebackStatus) : undefined,
    due_before: params.get("due_before") || undefined,
    q: params.get("q") || undefined,
    offset: Number.isInteger(offset) && offset > 0 ? offset : 0,
    limit: PAGE_SIZE,
    sort: params.get("sort") === "due" ? "due" : "newest",
  }
}

/** What a row's evidence amounts to, in the words the merchant acts on. */
export function evidenceSummary(chargeback: Chargeback): string {
  const prs = chargeback.proof_requests
  if (!prs) {
    return "–"
  }
  if (prs.length === 0) {
    return "No scans"
  }
  const scans = prs.filter((pr) => pr.status === "complete").flatMap((pr) => pr.scans ?? [])
  const valid = scans.filter((scan) => groundTruthLabel(scan.ground_truth).verdict === "valid").length
  const invalid = scans.filter((scan) => groundTruthLabel(scan.ground_truth).verdict === "invalid").length
  const waiting = prs.some((pr) => ["to_submit", "submitting", "pending"].includes(pr.status))
  const parts: string[] = []
  if (valid) {
    parts.push(`${valid} worth disputing`)
  }
  if (invalid) {
    parts.push(`${invalid} likely true fraud`)
  }
  if (waiting) {
    parts.push("awaiting ServiceScan")
  }
  if (!parts.length && prs.some((pr) => pr.status === "failed")) {
    parts.push("request refused")
  }
  return parts.length ? parts.join(" · ") : "No verdict"
}

const FINAL = new Set(["won", "lost", "closed"])

/** Filters, table and pagination of the Disputes page. */
export const ChargebackList = () => {
  const navigate = useNavigate()
  const [params, setParams] = useSearchParams()
  const { sort, ...query } = readListQuery(params)
  const [search, setSearch] = useState(query.q ?? "")

  const update = (changes: Record<string, string | undefined>, resetPage = true) => {
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
  }

  // The search box follows the URL when something else changes it (Back,
  // "Clear filters"), but not when the change is our own debounced push:
  // that would overwrite what the admin typed in the meantime.
  const pushed = useRef(query.q ?? "")
  useEffect(() => {
    const q = query.q ?? ""
    if (q !== pushed.current) {
      pushed.current = q
      setSearch(q)
    }
  }, [query.q])

  // Typing searches after a short pause, not on every keystroke.
  useEffect(() => {
    const trimmed = search.trim()
    if (trimmed === pushed.current) {
      return
    }
    const timer = setTimeout(() => {
      pushed.current = trimmed
      update({ q: trimmed || undefined })
    }, SEARCH_DEBOUNCE_MS)
    return () => clearTimeout(timer)
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [search])

  const { data, isLoading, isError, error, refetch, isFetching } = useChargebacks(
    { ...query, order: sort === "due" ? "due_by" : undefined },
    { withSummary: true }
  )
  const items = data?.items ?? []
  const count = data?.count ?? 0
  const offset = query.offset ?? 0
  const pageIndex = Math.floor(offset / PAGE_SIZE)
  const pageCount = Math.max(1, Math.ceil(count / PAGE_SIZE))
  const filtered = Boolean(query.status || query.due_before || query.q)

  const open = (chargeback: Chargeback) => navigate(`/disputes/${chargeback.id}`)

  return (
    <>
      <div className="flex flex-col gap-3 px-6 py-4 md:flex-row md:flex-wrap md:items-end" role="search">
        <div className="flex min-w-[14rem] flex-1 flex-col gap-y-1">
          <Label htmlFor="disputes-search" size="xsmall" weight="plus" className="text-ui-fg-subtle">
            Search
          </Label>
          {/* type="search" gives Medusa's input its own magnifier icon. */}
          <Input
            id="disputes-search"
            type="search"
            size="small"
            value={search}
            placeholder="Dispute id, order id or reason"
            onChange={(event) => setSearch(event.target.value)}
          />
        </div>
        <div className="flex flex-col gap-y-1">
          <Label id="disputes-status-label" size="xsmall" weight="plus" className="text-ui-fg-subtle">
            Status
          </Label>
          <Select size="small" value={query.status ?? ALL} onValueChange={(value) => update({ status: value === ALL ? undefined : value })}>
            <Select.Trigger className="w-44" aria-labelledby="disputes-status-label">
              <Select.Value />
            </Select.Trigger>
            <Select.Content>
              <Select.Item value={ALL}>All statuses</Select.Item>
              {CHARGEBACK_STATUSES.map((status) => (
                <Select.Item key={status} value={status}>
                  {chargebackStatusLabel(status).label}
                </Select.Item>
              ))}
            </Select.Content>
          </Select>
        </div>
        <div className="flex flex-col gap-y-1">
          <Label htmlFor="disputes-due-before" size="xsmall" weight="plus" className="text-ui-fg-subtle">
            Respond by, on or before
          </Label>
          <Input
            id="disputes-due-before"
            type="date"
            size="small"
            className="w-44"
            value={query.due_before ?? ""}
            onChange={(event) => update({ due_before: event.target.value || undefined })}
          />
        </div>
        <div className="flex flex-col gap-y-1">
          <Label id="disputes-sort-label" size="xsmall" weight="plus" className="text-ui-fg-subtle">
            Sort
          </Label>
          <Select size="small" value={sort} onValueChange={(value) => update({ sort: value === "due" ? "due" : undefined })}>
            <Select.Trigger className="w-40" aria-labelledby="disputes-sort-label">
              <Select.Value />
            </Select.Trigger>
            <Select.Content>
              <Select.Item value="newest">Newest first</Select.Item>
              <Select.Item value="due">Deadline first</Select.Item>
            </Select.Content>
          </Select>
        </div>
        {filtered && (
          <Button
            size="small"
            variant="transparent"
            onClick={() => {
              pushed.current = ""
              setSearch("")
              update({ status: undefined, due_before: undefined, q: undefined })
            }}
          >
            Clear filters
          </Button>
        )}
      </div>

      {isError ? (
        <ErrorState title="Could not load chargebacks" error={error} onRetry={() => void refetch()} />
      ) : isLoading ? (
        <div className="flex flex-col gap-y-2 px-6 py-4" role="status" aria-busy="true" aria-label="Loading chargebacks">
          {Array.from({ length: 5 }, (_, index) => (
            <Skeleton key={index} className="h-8 w-full" />
          ))}
        </div>
      ) : items.length === 0 ? (
        filtered ? (
          <EmptyState title="No chargebacks match" description="Try other filters, or clear them to see every chargeback." />
        ) : (
          <EmptyState
            title="No chargebacks yet"
            description="Chargebacks arrive from the processor's webhook, or you record them on an order. Each one sends the order's card scans to ServiceScan for evidence."
          />
        )
      ) : (
        <div className={isFetching ? "opacity-60 transition-opacity" : undefined} aria-busy={isFetching}>
          <Table>
            <Table.Header>
              <Table.Row>
                <Table.HeaderCell>Dispute</Table.HeaderCell>
                <Table.HeaderCell>Order</Table.HeaderCell>
                <Table.HeaderCell className="text-right">Amount</Table.HeaderCell>
                <Table.HeaderCell>Reason</Table.HeaderCell>
                <Table.HeaderCell>Respond by</Table.HeaderCell>
                <Table.HeaderCell>Status</Table.HeaderCell>
                <Table.HeaderCell>Evidence</Table.HeaderCell>
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {items.map((chargeback) => (
                <Table.Row
                  key={chargeback.id}
                  className="cursor-pointer"
                  onClick={() => open(chargeback)}
                  data-testid="chargeback-row"
                >
                  <Table.Cell>
                    <Link
                      to={`/disputes/${chargeback.id}`}
                      className="text-ui-fg-base hover:text-ui-fg-interactive font-medium"
                      onClick={(event: MouseEvent) => event.stopPropagation()}
                    >
                      {chargeback.external_id}
                    </Link>
                  </Table.Cell>
                  <Table.Cell>
                    <Link
                      to={`/orders/${chargeback.order_id}`}
                      className="text-ui-fg-interactive hover:text-ui-fg-interactive-hover font-mono"
                      onClick={(event: MouseEvent) => event.stopPropagation()}
                      onKeyDown={(event: KeyboardEvent) => event.stopPropagation()}
                      aria-label={`Order ${chargeback.order_id}`}
                    >
                      {chargeback.order_id}
                    </Link>
                  </Table.Cell>
                  <Table.Cell className="text-right tabular-nums">
                    {formatMoney(chargeback.amount, chargeback.currency_code)}
                  </Table.Cell>
                  <Table.Cell className="max-w-[12rem] truncate" title={chargeback.reason ?? undefined}>
                    {chargeback.reason || chargeback.reason_code || "–"}
                  </Table.Cell>
                  <Table.Cell>
                    <DueDate dueBy={chargeback.due_by} settled={FINAL.has(chargeback.status)} />
                  </Table.Cell>
                  <Table.Cell>
                    <ChargebackStatusBadge status={chargeback.status} />
                  </Table.Cell>
                  <Table.Cell>
                    <Text size="small" leading="compact" className="text-ui-fg-subtle">
                      {evidenceSummary(chargeback)}
                    </Text>
                  </Table.Cell>
                </Table.Row>
              ))}
            </Table.Body>
          </Table>
        </div>
      )}

      {!isError && count > 0 && (
        <Table.Pagination
          count={count}
          pageSize={PAGE_SIZE}
          pageIndex={pageIndex}
          pageCount={pageCount}
          canPreviousPage={pageIndex > 0}
          canNextPage={pageIndex + 1 < pageCount}
          previousPage={() => update({ offset: offset - PAGE_SIZE > 0 ? String(offset - PAGE_SIZE) : undefined }, false)}
          nextPage={() => update({ offset: String(offset + PAGE_SIZE) }, false)}
        />
      )}
    </>
  )
}
