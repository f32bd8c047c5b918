import "@testing-library/jest-dom";
import { act, render, renderHook, screen, waitFor } from "@testing-library/react";
import { StrictMode, createRef } from "react";
import {
  ServiceScanCardForm,
  ServiceScanError,
  ServiceScanLoadError,
  ServiceScanTimeoutError,
  serviceScanMessages,
  useServiceScanForm,
  type ServiceScanCardFormHandle,
  type ServiceScanPaymentSessionLike,
} from "../src/index";
import { freshUrl, installFakeService, resetPage, type FakeService } from "./fake-service";

let svc: FakeService;
beforeEach(() => {
  resetPage();
  svc = installFakeService();
});
afterEach(() => svc.stop());

const FORM_CONFIG = { uiVersion: 2, showExplanation: false, showResult: false, id: "pay_01J9", customerId: "cus_1" };
const session = (url = freshUrl()): ServiceScanPaymentSessionLike => ({
  data: { client_script_url: url, shareable_key: "pk_share_123", processor: "worldpay", form_config: FORM_CONFIG },
});

async function renderForm(props: Partial<Parameters<typeof ServiceScanCardForm>[0]> = {}, strict = false) {
  const ref = createRef<ServiceScanCardFormHandle>();
  const onReady = jest.fn();
  const el = <ServiceScanCardForm ref={ref} session={session()} onReady={onReady} {...props} />;
  const view = render(strict ? <StrictMode>{el}</StrictMode> : el);
  if (!props.onError) await waitFor(() => expect(onReady).toHaveBeenCalled());
  const frame = () => view.container.querySelector("iframe");
  const live = view.container.querySelector('[aria-live="polite"]') as HTMLElement;
  return { ...view, ref, onReady, frame, live };
}

describe("<ServiceScanCardForm>", () => {
  it("attaches exactly once under StrictMode's double mount", async () => {
    const { frame, onReady } = await renderForm({}, true);
    expect(svc.scripts).toHaveLength(1);
    expect(svc.namespace.Form).toHaveBeenCalledTimes(1);
    expect(svc.forms[0].attach).toHaveBeenCalledTimes(1);
    expect(document.querySelectorAll("iframe")).toHaveLength(1);
    expect(frame()).toBeInTheDocument();
    expect(onReady).toHaveBeenCalledTimes(1);
  });

  it("passes the shareable key and the session's form_config (plus its callback) to ServiceScan.Form", async () => {
    await renderForm();
    expect(svc.forms[0].key).toBe("pk_share_123");
    expect(svc.forms[0].config).toEqual({ ...FORM_CONFIG, callback: expect.any(Function) });
    // attach() got the widget's own empty container.
    const target = svc.forms[0].attach.mock.calls[0][0];
    expect(target.tagName).toBe("DIV");
  });

  it("does not re-create the form when the parent re-renders with an equal session", async () => {
    const s = session();
    const ref = createRef<ServiceScanCardFormHandle>();
    const onReady = jest.fn();
    const view = render(<ServiceScanCardForm ref={ref} session={s} onReady={onReady} />);
    await waitFor(() => expect(onReady).toHaveBeenCalled());
    // A fresh but equal object, as a refetched cart would give.
    view.rerender(<ServiceScanCardForm ref={ref} session={JSON.parse(JSON.stringify(s))} onReady={() => {}} />);
    view.rerender(<ServiceScanCardForm ref={ref} session={JSON.parse(JSON.stringify(s))} onReady={() => {}} />);
    expect(svc.namespace.Form).toHaveBeenCalledTimes(1);
    expect(view.container.querySelectorAll("iframe")).toHaveLength(1);
  });

  it("re-attaches into an emptied container when the session's key changes", async () => {
    const s = session();
    const view = render(<ServiceScanCardForm session={s} />);
    await waitFor(() => expect(svc.forms).toHaveLength(1));
    const next = { data: { ...s.data, shareable_key: "pk_share_456" } };
    view.rerender(<ServiceScanCardForm session={next} />);
    await waitFor(() => expect(svc.forms).toHaveLength(2));
    expect(svc.forms[1].key).toBe("pk_share_456");
    expect(view.container.querySelectorAll("iframe")).toHaveLength(1);
  });

  it("renders an idle container and loads nothing until the session has data", async () => {
    const view = render(<ServiceScanCardForm session={undefined} />);
    await new Promise((r) => setTimeout(r, 20));
    expect(svc.scripts).toHaveLength(0);
    view.rerender(<ServiceScanCardForm session={session()} />);
    await waitFor(() => expect(view.container.querySelector("iframe")).toBeInTheDocument());
  });

  it("cleans up on unmount: empties the container, drops the form, rejects submit", async () => {
    const { ref, unmount, container } = await renderForm();
    const target = svc.forms[0].attach.mock.calls[0][0];
    expect(target.childElementCount).toBe(1);
    const handle = ref.current!;
    unmount();
    expect(target.childElementCount).toBe(0);
    expect(container.innerHTML).toBe("");
    await expect(handle.submit()).rejects.toBeInstanceOf(ServiceScanError);
    expect(svc.forms[0].getId).not.toHaveBeenCalled();
  });

  it("does not attach when unmounted before the script arrives", async () => {
    const view = render(<ServiceScanCardForm session={session()} />);
    view.unmount();
    await waitFor(() => expect((window as { ServiceScan?: unknown }).ServiceScan).toBeDefined());
    await new Promise((r) => setTimeout(r, 10));
    expect(svc.namespace.Form).not.toHaveBeenCalled();
  });

  it("rejects a pending submit when unmounted, instead of leaving it to time out", async () => {
    svc.getIdMode = "silent";
    const { ref, unmount } = await renderForm();
    const pending = ref.current!.submit();
    await waitFor(() => expect(svc.forms[0].getId).toHaveBeenCalled());
    unmount();
    await expect(pending).rejects.toThrow(/unmounted/);
  });

  it("gives the iframe a title when the script did not", async () => {
    const { frame } = await renderForm();
    expect(frame()).toHaveAttribute("title", serviceScanMessages.frameTitle);
  });

  it("keeps the script's own iframe title", async () => {
    svc.titledFrame = true;
    const { frame } = await renderForm();
    expect(frame()).toHaveAttribute("title", "ServiceScan card form");
  });

  it("titles an iframe the script inserts after attach() returns", async () => {
    svc.lateFrame = true;
    const { frame } = await renderForm({ messages: { frameTitle: "Formulaire de carte sécurisé" } });
    await waitFor(() => expect(frame()).toHaveAttribute("title", "Formulaire de carte sécurisé"));
  });

  describe("submit()", () => {
    it.each(["sync", "promise", "callback-first"] as const)(
      "resolves with the form id and code when getId() answers %s",
      async (mode) => {
        svc.getIdMode = mode;
        const { ref } = await renderForm();
        let result;
        await act(async () => {
          result = await ref.current!.submit();
        });
        expect(result).toEqual({ formId: expect.stringMatching(/^form-\d+$/), responseCode: "870" });
        expect(svc.forms[0].getId).toHaveBeenCalledTimes(1);
      },
    );

    it("rejects with ServiceScanTimeoutError when the callback never comes", async () => {
      svc.getIdMode = "silent";
      const { ref } = await renderForm({ timeoutMs: 40 });
      const started = Date.now();
      const error = await ref.current!.submit().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceScanTimeoutError);
      expect(error).toMatchObject({ timeoutMs: 40, name: "ServiceScanTimeoutError" });
      expect(Date.now() - started).toBeGreaterThanOrEqual(35);
      // The form still works afterwards, and a late callback for the old id is ignored.
      svc.getIdMode = "sync";
      svc.forms[0].config.callback!("form-stale", "871");
      let result;
      await act(async () => {
        result = await ref.current!.submit();
      });
      expect(result).toMatchObject({ responseCode: "870" });
    });

    it("rejects when getId() throws", async () => {
      svc.getIdMode = "throws";
      const { ref } = await renderForm();
      await expect(ref.current!.submit()).rejects.toThrow("getId failed");
    });

    it("shares one submission between concurrent calls (double click)", async () => {
      const { ref } = await renderForm();
      let results: unknown[] = [];
      await act(async () => {
        results = await Promise.all([ref.current!.submit(), ref.current!.submit()]);
      });
      expect(svc.forms[0].getId).toHaveBeenCalledTimes(1);
      expect(results[0]).toBe(results[1]);
    });

    it("waits for the form when called while the script is still loading", async () => {
      const ref = createRef<ServiceScanCardFormHandle>();
      render(<ServiceScanCardForm ref={ref} session={session()} />);
      let result;
      await act(async () => {
        result = await ref.current!.submit();
      });
      expect(result).toMatchObject({ responseCode: "870" });
    });

    it("announces a validation problem politely and moves focus to the form", async () => {
      svc.code = "871";
      const { ref, frame, live } = await renderForm();
      expect(live).toHaveTextContent("");
      let result;
      await act(async () => {
        result = await ref.current!.submit();
      });
      expect(result).toMatchObject({ responseCode: "871" });
      expect(live).toHaveAttribute("aria-live", "polite");
      expect(live).toHaveTextContent(serviceScanMessages["871"]);
      expect(live).toContainElement(screen.getByText(serviceScanMessages["871"]));
      expect(document.activeElement).toBe(frame());

      // Fixed: the message goes away.
      svc.code = "870";
      await act(async () => {
        await ref.current!.submit();
      });
      expect(live).toHaveTextContent("");
    });

    it("announces the same validation problem again on each attempt", async () => {
      svc.code = "871";
      const { ref, live } = await renderForm();
      // Screen readers speak what is added to a live region; an untouched region is silent.
      let records: MutationRecord[] = [];
      const observer = new MutationObserver((batch) => records.push(...batch));
      observer.observe(live, { childList: true, subtree: true, characterData: true });
      const announced = () => {
        const added = [...records, ...observer.takeRecords()].flatMap((r) => Array.from(r.addedNodes));
        records = [];
        return added.map((n) => n.textContent);
      };
      for (let attempt = 1; attempt <= 2; attempt++) {
        await act(async () => {
          await ref.current!.submit();
        });
        expect(announced()).toEqual([serviceScanMessages["871"]]);
        expect(live).toHaveTextContent(serviceScanMessages["871"]);
      }
      observer.disconnect();
    });

    it("clears an earlier validation message when a later submit fails without a code", async () => {
      svc.code = "871";
      const { ref, live } = await renderForm();
      await act(async () => {
        await ref.current!.submit();
      });
      expect(live).toHaveTextContent(serviceScanMessages["871"]);

      // The page shows its own network error; the stale card message must not sit next to it.
      svc.getIdMode = "throws";
      await act(async () => {
        await expect(ref.current!.submit()).rejects.toThrow("getId failed");
      });
      expect(live).toHaveTextContent("");
      expect(live).toBeEmptyDOMElement();
    });

    it("announces validation problems in the given language", async () => {
      svc.code = "886";
      const { ref, live } = await renderForm({ messages: { 886: "La date d'expiration n'est pas valide." } });
      await act(async () => {
        await ref.current!.submit();
      });
      expect(live).toHaveTextContent("La date d'expiration n'est pas valide.");
    });
  });

  it("reports a script load failure through onError and the live region; a remount retries", async () => {
    svc.outcome = "network";
    const s = session();
    const onError = jest.fn();
    const view = render(<ServiceScanCardForm session={s} onError={onError} />);
    await waitFor(() => expect(onError).toHaveBeenCalledTimes(1));
    expect(onError.mock.calls[0][0]).toBeInstanceOf(ServiceScanLoadError);
    expect(onError.mock.calls[0][0]).toMatchObject({ kind: "network" });
    const live = view.container.querySelector('[aria-live="polite"]');
    expect(live).toHaveTextContent(serviceScanMessages.loadFailed);
    view.unmount();

    svc.outcome = "ok";
    const onReady = jest.fn();
    const again = render(<ServiceScanCardForm session={s} onReady={onReady} />);
    await waitFor(() => expect(onReady).toHaveBeenCalled());
    expect(again.container.querySelector("iframe")).toBeInTheDocument();
    expect(svc.scripts).toHaveLength(2);
  });

  it("reports a throwing ServiceScan.Form as a 'script' load error", async () => {
    svc.namespace.Form.mockImplementationOnce(() => {
      throw new Error("invalid key");
    });
    const onError = jest.fn();
    render(<ServiceScanCardForm session={session()} onError={onError} />);
    await waitFor(() => expect(onError).toHaveBeenCalled());
    expect(onError.mock.calls[0][0]).toMatchObject({ kind: "script", cause: expect.any(Error) });
  });
});

describe("useServiceScanForm", () => {
  it("exposes status, ref and submit for custom layouts", async () => {
    const url = freshUrl();
    const container = document.createElement("div");
    document.body.appendChild(container);
    const { result } = renderHook(() =>
      useServiceScanForm({ clientScriptUrl: url, shareableKey: "pk_share_123", config: { uiVersion: 2 } }),
    );
    expect(result.current.status).toBe("idle");
    act(() => result.current.ref(container));
    await waitFor(() => expect(result.current.status).toBe("ready"));
    expect(container.querySelector("iframe")).toBeInTheDocument();
    svc.code = "882";
    let out;
    await act(async () => {
      out = await result.current.submit();
    });
    expect(out).toMatchObject({ responseCode: "882" });
    act(() => result.current.focus());
    expect(document.activeElement).toBe(container.querySelector("iframe"));
  });
});
