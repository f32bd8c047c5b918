// The place-order control, a separate entry (`medusa-servicescan-storefront/place-order`): a checkout
// that keeps its own button does not load it, and the main entry stays within its size budget.
import { useState, type ButtonHTMLAttributes, type ReactNode } from "react";
import type { ServiceScanPaymentError } from "./errors.js";
import type { ServiceScanPaymentResult } from "./pay.js";

/** What {@link ServiceScanPlaceOrder} hands to `renderButton`: spread it onto the store's own button. */
export interface ServiceScanPlaceOrderButtonProps {
  onClick(): void;
  /** True while paying, and when the `disabled` prop is. */
  disabled: boolean;
  /** True from the click until the payment failed (after an order it stays true: the page is leaving). */
  loading: boolean;
  children: ReactNode;
}

/** Props of {@link ServiceScanPlaceOrder}. */
export interface ServiceScanPlaceOrderProps<TOrder> {
  /**
   * Runs the payment, e.g. `() => payWithServiceScan(sdk, cart, { form: form.current })`. It must
   * resolve for every failure (as `payWithServiceScan` does): a rejection leaves the control loading.
   */
  pay(): Promise<ServiceScanPaymentResult<unknown, TOrder>>;
  /** Called with the placed order, e.g. to go to the confirmation page. */
  onOrder(order: TOrder): void;
  /** E.g. while the cart has no address or shipping method yet. */
  disabled?: boolean;
  /** The button's label (default "Place order"). */
  children?: ReactNode;
  /** Renders the store's own button instead of a `<button>`, e.g. `(p) => <Button {...p} isLoading={p.loading} />`. */
  renderButton?(props: ServiceScanPlaceOrderButtonProps): ReactNode;
  /** Put on the default `<button>`: `className`, `data-testid`, `aria-*`… */
  buttonProps?: ButtonHTMLAttributes<HTMLButtonElement> & { "data-testid"?: string };
  /** Called with every failed payment, validation problems included. */
  onError?(error: ServiceScanPaymentError): void;
  /**
   * Renders the error to show (`undefined` when there is none), where the host wants it; return
   * `null` to show it elsewhere (with `onError`). Default: `<p role="alert">{message}</p>`.
   * Validation problems are not passed: the card form has announced them already.
   */
  renderError?(error: ServiceScanPaymentError | undefined): ReactNode;
}

/**
 * The "Place order" control: calls `pay`, shows a loading state meanwhile
 * (disabled, `aria-busy`), then hands the order to `onOrder` or shows the
 * error. Takes the store's own button through `renderButton`, or classes and
 * a `data-testid` through `buttonProps`.
 */
export function ServiceScanPlaceOrder<TOrder>(p: ServiceScanPlaceOrderProps<TOrder>) {
  // One state, so a click clears the last error and starts loading in one update.
  const [{ loading = false, error }, set] = useState<{ loading?: boolean; error?: ServiceScanPaymentError }>({});
  const onClick = async () => {
    set({ loading: true });
    const r = await p.pay();
    // After an order the control stays loading: the page is leaving, and the cart is spent.
    if (r.type == "order") return p.onOrder(r.order);
    // Validation problems were announced next to the form already.
    set({ error: r.error.kind == "validation" ? undefined : r.error });
    p.onError?.(r.error);
  };
  const b = { onClick, disabled: loading || !!p.disabled, loading, children: p.children || "Place order" };
  return (
    <>
      {p.renderButton ? (
        p.renderButton(b)
      ) : (
        <button type="button" {...p.buttonProps} onClick={onClick} disabled={b.disabled} aria-busy={loading}>
          {b.children}
        </button>
      )}
      {p.renderError ? p.renderError(error) : error && <p role="alert">{error.message}</p>}
    </>
  );
}
