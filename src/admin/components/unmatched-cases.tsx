import { Badge, Button, Input, Label, Skeleton, Table, Text } from "@medusajs/ui"
import { useEffect, useRef, useState } from "react"
import { useSearchParams } from "react-router-dom"
import { formatDay, formatMoney, gatewayDisplayName, replyByCountdown, todayUtc } from "../lib/format"
import { useDisputeCases, useServiceHealth } from "../lib/queries"
import type { DisputeCase } from "../lib/types"
import { AssignCaseDrawer } from "./assign-case-drawer"
import { EmptyState, ErrorState } from "./states"

export const CASES_PAGE_SIZE = 20
const SEARCH_DEBOUNCE_MS = 300

/** The view's state in the URL, like the chargeback list's (`q`, `offset`), beside `view=unmatched`. */
export function readCaseListQuery(params: URLSearchParams) {
  const offset = Number(params.get("offset") ?? 0)
  return {
    status: "unmatched" as const,
    q: params.get("q") || undefined,
    offset: Number.isInteger(offset) && offset > 0 ? offset : 0,
    limit: CASES_PAGE_SIZE,
  }
}

/**
 * The processor's cases that matched no payment of this store: never dropped,
 * shown with what the processor knows (transaction id, the order reference the
 * payment carried, amount, reason, reply-by day) so an admin can find the
 * order and assign the case to it before the deadline.
 */
export const UnmatchedCases = () => {
  const [params, setParams] = useSearchParams()
  const query = readCaseListQuery(params)
  const [search, setSearch] = useState(query.q ?? "")
  const [assigning, setAssigning] = useState<DisputeCase | null>(null)
  const { data: health } = useServiceHealth({ retry: false })
  const { data, isLoading, isError, error, refetch, isFetching } = useDisputeCases(query)
  const items = data?.items ?? []
  const count = data?.count ?? 0
  const offset = query.offset
  const pageIndex = Math.floor(offset / CASES_PAGE_SIZE)
  const pageCount = Math.max(1, Math.ceil(count / CASES_PAGE_SIZE))
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
        if (resetPage) {
          next.delete("offset")
        }
        return next
      },
      { replace: true }
    )

  // As on the chargeback list: the box follows the URL, and typing searches after a pause.
  const pushed = useRef(query.q ?? "")
  useEffect(() => {
    const q = query.q ?? ""
    if (q !== pushed.current) {
      pushed.current = q
      setSearch(q)
    }
  }, [query.q])
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

  const notConfigured = health?.dispute_gateway === null

  return (
    <>
      <div className="flex flex-col gap-3 px-6 py-4 md:flex-row md:items-end" role="search">
        <div className="flex min-w-[14rem] flex-1 flex-col gap-y-1">
          <Label htmlFor="cases-search" size="xsmall" weight="plus" className="text-ui-fg-subtle">
            Search cases
          </Label>
          <Input
            id="cases-search"
            type="search"
            size="small"
            value={search}
            placeholder="Case id, transaction id, order reference or reason"
            onChange={(event) => setSearch(event.target.value)}
          />
        </div>
      </div>

      {isError ? (
        <ErrorState title="Could not load the unmatched cases" error={error} onRetry={() => void refetch()} />
      ) : isLoading ? (
        <div className="flex flex-col gap-y-2 px-6 py-4" role="status" aria-busy="true" aria-label="Loading unmatched cases">
          {Array.from({ length: 3 }, (_, index) => (
            <Skeleton key={index} className="h-8 w-full" />
          ))}
        </div>
      ) : items.length === 0 ? (
        query.q ? (
          <EmptyState title="No unmatched case matches" description="Try another search, or clear it." />
        ) : notConfigured ? (
          <EmptyState
            title="No dispute gateway configured"
            description="Cases are imported from the processor's chargeback API once the servicescan module's disputeGateway option is set (Worldpay: its Chargeback API URL, and your cnpAPI user and password)."
          />
        ) : (
          <EmptyState
            title="No unmatched cases"
            description="Every case imported from the processor matched one of your orders. A case that matches none shows up here, to be assigned by hand."
          />
        )
      ) : (
        <div className={isFetching ? "opacity-60 transition-opacity" : undefined} aria-busy={isFetching}>
          <Table>
            <Table.Header>
              <Table.Row>
                <Table.HeaderCell>Case</Table.HeaderCell>
                <Table.HeaderCell className="text-right">Amount</Table.HeaderCell>
                <Table.HeaderCell>Reason</Table.HeaderCell>
                <Table.HeaderCell>Reply by</Table.HeaderCell>
                <Table.HeaderCell>At the processor</Table.HeaderCell>
                <Table.HeaderCell>Why unmatched</Table.HeaderCell>
                <Table.HeaderCell>
                  <span className="sr-only">Actions</span>
                </Table.HeaderCell>
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {items.map((item) => {
                const countdown = replyByCountdown(item.reply_by, today)
                return (
                  <Table.Row key={item.id} data-testid="unmatched-case-row">
                    <Table.Cell>
                      <div className="flex flex-col py-2">
                        <Text size="small" leading="compact" weight="plus" className="font-mono">
                          {item.case_id}
                        </Text>
                        <Text size="xsmall" leading="compact" className="text-ui-fg-subtle">
                          {[gatewayDisplayName(item.gateway), item.cycle].filter(Boolean).join(" · ")}
                        </Text>
                      </div>
                    </Table.Cell>
                    <Table.Cell className="text-right tabular-nums">{formatMoney(item.amount, item.currency_code)}</Table.Cell>
                    <Table.Cell className="max-w-[14rem]">
                      <span className="block truncate" title={item.reason_description ?? undefined}>
                        {[item.reason_code, item.reason_description].filter(Boolean).join(" · ") || "–"}
                      </span>
                    </Table.Cell>
                    <Table.Cell>
                      <span className="inline-flex flex-wrap items-center gap-x-2 gap-y-1">
                        <span>{formatDay(item.reply_by)}</span>
                        {countdown && (
                          <Badge size="2xsmall" color={countdown.color}>
                            {countdown.label}
                          </Badge>
                        )}
                      </span>
                    </Table.Cell>
                    <Table.Cell>
                      <div className="flex flex-col py-2">
                        <Text size="xsmall" leading="compact" className="font-mono" title="The processor's transaction id">
                          Transaction {item.processor_transaction_id ?? "–"}
                        </Text>
                        <Text size="xsmall" leading="compact" className="text-ui-fg-subtle font-mono" title="The order reference the payment carried">
                          Order ref. {item.processor_order_id ?? "–"}
                        </Text>
                      </div>
                    </Table.Cell>
                    <Table.Cell className="max-w-[16rem]">
                      <Text size="xsmall" leading="compact" className="text-ui-fg-subtle whitespace-normal">
                        {item.match_note ?? "–"}
                      </Text>
                    </Table.Cell>
                    <Table.Cell className="text-right">
                      <Button
                        size="small"
                        variant="secondary"
                        onClick={() => setAssigning(item)}
                      >
                        Assign to order<span className="sr-only"> (case {item.case_id})</span>
                      </Button>
                    </Table.Cell>
                  </Table.Row>
                )
              })}
            </Table.Body>
          </Table>
        </div>
      )}

      {!isError && count > 0 && (
        <Table.Pagination
          count={count}
          pageSize={CASES_PAGE_SIZE}
          pageIndex={pageIndex}
          pageCount={pageCount}
          canPreviousPage={pageIndex > 0}
          canNextPage={pageIndex + 1 < pageCount}
          previousPage={() =>
            update({ offset: offset - CASES_PAGE_SIZE > 0 ? String(offset - CASES_PAGE_SIZE) : undefined }, false)
          }
          nextPage={() => update({ offset: String(offset + CASES_PAGE_SIZE) }, false)}
        />
      )}

      <AssignCaseDrawer disputeCase={assigning} onOpenChange={(open) => !open && setAssigning(null)} />
    </>
  )
}
