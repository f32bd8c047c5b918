import "@testing-library/jest-dom";
import { act, fireEvent, render, screen } from "@testing-library/react";
import type { ReactNode } from "react";
import { payWithServiceScan, type ServiceScanPaymentError, type ServiceScanSdk } from "../src/index";
import { ServiceScanPlaceOrder, type ServiceScanPlaceOrderButtonProps } from "../src/place-order";

type Cart = { id: string };
type Order = { id: string };
type Completion = Awaited<ReturnType<ServiceScanSdk<Cart, Order>["store"]["cart"]["complete"]>>;

/** An SDK whose `cart.complete` answers when the test says so, so the loading state can be seen. */
function pendingSdk() {
  let answer!: (value: Completion) => void;
  const calls: string[] = [];
  const sdk: ServiceScanSdk<Cart, Order> = {
    store: {
      payment: { initiatePaymentSession: async (_cart, body) => calls.push(`session ${JSON.stringify(body.data)}`) },
      cart: {
        complete: (id) => {
          calls.push(`complete ${id}`);
          return new Promise<Completion>((resolve) => (answer = resolve));
        },
      },
    },
  };
  return { sdk, calls, answer: (value: Completion) => act(async () => answer(value)) };
}
const validForm = { submit: async () => ({ formId: "form_1", responseCode: "870" }) };

/** The DTC starter's own Button (`@modules/common/components/ui`): `isLoading` shows a spinner. */
function StoreButton(props: { onClick(): void; disabled: boolean; isLoading: boolean; children: ReactNode; "data-testid": string; className: string }) {
  return (
    <button className={props.className} disabled={props.disabled || props.isLoading} onClick={props.onClick} data-testid={props["data-testid"]}>
      {props.isLoading ? <span data-testid="spinner" /> : props.children}
    </button>
  );
}

describe("ServiceScanPlaceOrder", () => {
  it("puts classes and a data-testid on its own button, shows loading while paying, then hands over the order", async () => {
    const { sdk, calls, answer } = pendingSdk();
    const onOrder = jest.fn();
    render(
      <ServiceScanPlaceOrder
        pay={() => payWithServiceScan(sdk, { id: "cart_po1" }, { form: validForm })}
        onOrder={onOrder}
        buttonProps={{ className: "btn btn-large", "data-testid": "submit-order-button" }}
      />,
    );
    const button = screen.getByTestId("submit-order-button");
    expect(button).toHaveTextContent("Place order");
    expect(button).toHaveClass("btn", "btn-large");
    expect(button).toHaveAttribute("type", "button");
    expect(button).toBeEnabled();

    await act(async () => fireEvent.click(button));
    expect(button).toBeDisabled();
    expect(button).toHaveAttribute("aria-busy", "true");
    expect(calls).toEqual([expect.stringMatching(/^session \{"form_id":"form_1","response_code":"870","device_id":"[\w-]*"\}$/), "complete cart_po1"]);

    await answer({ type: "order", order: { id: "order_1" } });
    expect(onOrder).toHaveBeenCalledWith({ id: "order_1" });
    // The page is leaving for the confirmation: a second click must not reach the spent cart.
    expect(button).toBeDisabled();
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("renders the host's Button through renderButton, with its loading state, and the decline where the host puts it", async () => {
    const { sdk, answer } = pendingSdk();
    const onError = jest.fn<void, [ServiceScanPaymentError]>();
    const seen: ServiceScanPlaceOrderButtonProps[] = [];
    render(
      <div>
        <ServiceScanPlaceOrder
          pay={() => payWithServiceScan(sdk, { id: "cart_po2" }, { form: validForm })}
          onOrder={() => undefined}
          onError={onError}
          renderButton={(p) => (seen.push(p), <StoreButton {...p} isLoading={p.loading} className="large" data-testid="submit-order-button" />)}
          renderError={(error) => error && <div data-testid="servicescan-payment-error-message">{error.message}</div>}
        >
          Pay now
        </ServiceScanPlaceOrder>
      </div>,
    );
    const button = screen.getByTestId("submit-order-button");
    expect(button).toHaveTextContent("Pay now");
    await act(async () => fireEvent.click(button));
    expect(screen.getByTestId("spinner")).toBeInTheDocument();
    expect(seen.at(-1)).toMatchObject({ loading: true, disabled: true });

    await answer({ type: "cart", cart: { id: "cart_po2" }, error: { message: "Your card was declined. Please try another card." } });
    expect(screen.getByTestId("servicescan-payment-error-message")).toHaveTextContent("Your card was declined.");
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onError.mock.calls[0][0].kind).toBe("declined");
    // The default alert is not rendered when the host renders the error.
    expect(screen.queryByRole("alert")).toBeNull();
    expect(screen.queryByTestId("spinner")).toBeNull();
    expect(button).toBeEnabled();
    expect(seen.at(-1)).toMatchObject({ loading: false, disabled: false, children: "Pay now" });
  });

  it("shows a failure in a role=alert paragraph by default, clears it on the next click, and leaves validation to the form", async () => {
    const { sdk, answer } = pendingSdk();
    let form = validForm;
    const onError = jest.fn<void, [ServiceScanPaymentError]>();
    render(
      <ServiceScanPlaceOrder pay={() => payWithServiceScan(sdk, { id: "cart_po3" }, { form })} onOrder={() => undefined} onError={onError} />,
    );
    const button = screen.getByRole("button", { name: "Place order" });
    await act(async () => fireEvent.click(button));
    await answer({ type: "cart", cart: { id: "cart_po3" }, error: { message: "Your card was declined." } });
    expect(screen.getByRole("alert")).toHaveTextContent("Your card was declined.");

    // A typo in the form: announced by the card form's own live region, so no second copy here.
    form = { submit: async () => ({ formId: "form_2", responseCode: "871" }) };
    await act(async () => fireEvent.click(button));
    expect(screen.queryByRole("alert")).toBeNull();
    expect(onError.mock.calls.map(([e]) => e.kind)).toEqual(["declined", "validation"]);
    expect(button).toBeEnabled();
  });

  it("stays disabled while the host says the cart is not ready", () => {
    render(<ServiceScanPlaceOrder pay={() => new Promise(() => undefined)} onOrder={() => undefined} disabled />);
    expect(screen.getByRole("button", { name: "Place order" })).toBeDisabled();
  });
});
