import "@testing-library/jest-dom";
import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { useState } from "react";
import {
  ServiceScanSavedCards,
  payWithServiceScan,
  serviceScanMessages,
  type ServiceScanSavedCard,
  type ServiceScanSavedCardsProps,
} from "../src/index";

const CARDS: ServiceScanSavedCard[] = [
  { id: "sscard_AAAAAAAAAAAAAAAAAAAAAA", brand: "Visa", last4: "4242" },
  { id: "sscard_BBBBBBBBBBBBBBBBBBBBBB", brand: null, last4: "4444" },
];

/** The picker as a storefront holds it: the choice and the checkbox in its own state. */
function Checkout(props: Partial<ServiceScanSavedCardsProps> & { initial?: string }) {
  const [value, setValue] = useState(props.initial ?? "");
  const [save, setSave] = useState(false);
  return (
    <form>
      <ServiceScanSavedCards cards={CARDS} value={value} onChange={setValue} save={save} onSaveChange={setSave} {...props} />
      <output data-testid="state">{JSON.stringify({ value, save })}</output>
    </form>
  );
}
const state = () => JSON.parse(screen.getByTestId("state").textContent!) as { value: string; save: boolean };

describe("ServiceScanSavedCards", () => {
  it("lists each saved card by brand and last four, then a new card, in one named radio group", () => {
    render(<Checkout />);
    const group = screen.getByRole("group", { name: "Pay with" });
    const radios = within(group).getAllByRole("radio");
    expect(radios.map((r) => r.closest("label")!.textContent)).toEqual([
      " Visa ending in 4242",
      " Card ending in 4444",
      " Use another card",
    ]);
    // One group: the browser moves between them with the arrow keys, and Tab leaves the group.
    expect(new Set(radios.map((r) => (r as HTMLInputElement).name)).size).toBe(1);
    expect((radios[0] as HTMLInputElement).name).not.toBe("");
    expect(screen.getByRole("radio", { name: "Use another card" })).toBeChecked();
  });

  it("picks a saved card, hides the save checkbox, and goes back to a new card", () => {
    render(<Checkout />);
    expect(screen.getByRole("checkbox", { name: "Save this card" })).not.toBeChecked();
    fireEvent.click(screen.getByRole("radio", { name: "Visa ending in 4242" }));
    expect(state()).toEqual({ value: CARDS[0].id, save: false });
    expect(screen.getByRole("radio", { name: "Visa ending in 4242" })).toBeChecked();
    expect(screen.getByRole("radio", { name: "Use another card" })).not.toBeChecked();
    // A saved card is already saved: nothing to tick.
    expect(screen.queryByRole("checkbox")).toBeNull();

    fireEvent.click(screen.getByRole("radio", { name: "Use another card" }));
    expect(state().value).toBe("");
    expect(screen.getByRole("checkbox", { name: "Save this card" })).toBeInTheDocument();
  });

  it("ticks and unticks Save this card (the label is the click target too)", () => {
    render(<Checkout />);
    fireEvent.click(screen.getByText("Save this card"));
    expect(state()).toEqual({ value: "", save: true });
    expect(screen.getByRole("checkbox", { name: "Save this card" })).toBeChecked();
    fireEvent.click(screen.getByRole("checkbox", { name: "Save this card" }));
    expect(state().save).toBe(false);
  });

  it("offers only a new card and the checkbox to a customer with no saved cards", () => {
    render(<Checkout cards={[]} />);
    expect(screen.getAllByRole("radio")).toHaveLength(1);
    expect(screen.getByRole("radio", { name: "Use another card" })).toBeChecked();
    expect(screen.getByRole("checkbox", { name: "Save this card" })).toBeInTheDocument();
  });

  it("announces an error in a polite live region", () => {
    const { rerender } = render(<Checkout initial={CARDS[0].id} />);
    const fieldset = screen.getByRole("group");
    const live = fieldset.querySelector('[aria-live="polite"]')!;
    expect(live).toBeInTheDocument();
    expect(live).toHaveTextContent("");
    rerender(<Checkout initial={CARDS[0].id} error="Your card was declined: expired card." />);
    expect(live).toHaveTextContent("Your card was declined: expired card.");

  });

  it("takes other texts (another language)", () => {
    render(
      <Checkout
        messages={{ payWith: "Payer avec", card: "Carte", endingIn: "se terminant par", newCard: "Une autre carte", saveCard: "Enregistrer cette carte" }}
      />,
    );
    expect(screen.getByRole("group", { name: "Payer avec" })).toBeInTheDocument();
    expect(screen.getByRole("radio", { name: "Carte se terminant par 4444" })).toBeInTheDocument();
    expect(screen.getByRole("checkbox", { name: "Enregistrer cette carte" })).toBeInTheDocument();
  });

  it("has English defaults in serviceScanMessages", () => {
    expect(serviceScanMessages).toMatchObject({
      payWith: "Pay with",
      card: "Card",
      endingIn: "ending in",
      newCard: "Use another card",
      saveCard: "Save this card",
    });
  });
});

describe("payWithServiceScan with saved cards", () => {
  type Cart = { id: string };
  const order = { id: "order_1" };
  function fakeSdk() {
    return {
      store: {
        payment: { initiatePaymentSession: jest.fn(async (_cart: Cart, _body: { provider_id: string; data?: Record<string, unknown> }) => ({})) },
        cart: { complete: jest.fn(async (_id: string) => ({ type: "order" as const, order })) },
      },
    };
  }
  const form = () => ({ submit: jest.fn(async () => ({ formId: "6f1c1a52-8a4c-4d0e-9f0a-3b2b7b1e9c11", responseCode: "870" })) });

  it("pays with a saved card: no form submission, the session names the card", async () => {
    const sdk = fakeSdk();
    const f = form();
    const result = await act(() => payWithServiceScan(sdk, { id: "cart_saved_1" }, { form: f, paymentMethodId: CARDS[0].id }));
    expect(result).toEqual({ type: "order", order });
    expect(f.submit).not.toHaveBeenCalled();
    expect(sdk.store.payment.initiatePaymentSession.mock.calls[0][1]).toEqual({
      provider_id: "pp_servicescan_servicescan",
      data: { payment_method_id: CARDS[0].id, device_id: expect.any(String) },
    });
  });

  it("needs no form at all for a saved card", async () => {
    const sdk = fakeSdk();
    const result = await payWithServiceScan(sdk, { id: "cart_saved_2" }, { paymentMethodId: CARDS[1].id });
    expect(result.type).toBe("order");
  });

  it("asks to save the form's card when Save this card is ticked, and only then", async () => {
    const sdk = fakeSdk();
    await payWithServiceScan(sdk, { id: "cart_saved_3" }, { form: form(), saveCard: true });
    await payWithServiceScan(sdk, { id: "cart_saved_4" }, { form: form(), saveCard: false });
    const [[, ticked], [, unticked]] = sdk.store.payment.initiatePaymentSession.mock.calls;
    expect(ticked.data).toEqual({ form_id: "6f1c1a52-8a4c-4d0e-9f0a-3b2b7b1e9c11", response_code: "870", save_card: true, device_id: expect.any(String) });
    expect(unticked.data).toEqual({ form_id: "6f1c1a52-8a4c-4d0e-9f0a-3b2b7b1e9c11", response_code: "870", save_card: false, device_id: expect.any(String) });
  });
});
