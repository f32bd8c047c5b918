// The tiny storefront page of the real-browser spec: the widget (from source) in StrictMode,
// a session-like object pointing at the sandbox, and a page button that calls submit().
import { StrictMode, useRef, useState } from "react";
import { createRoot } from "react-dom/client";
import { ServiceScanCardForm, type ServiceScanCardFormHandle } from "../../src/index.js";

declare global {
  interface Window {
    __SANDBOX__: { url: string; shareableKey: string };
  }
}

function App() {
  const form = useRef<ServiceScanCardFormHandle>(null);
  const [ready, setReady] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const [result, setResult] = useState("");
  // A new (equal) object each render, as a storefront refetching its cart would pass.
  const session = {
    data: {
      client_script_url: `${window.__SANDBOX__.url}/client.js`,
      shareable_key: window.__SANDBOX__.shareableKey,
      processor: "worldpay",
      form_config: { uiVersion: 2, showExplanation: false, showResult: false, id: "paysess_browser_1" },
    },
  };

  async function pay() {
    const n = attempt + 1;
    setAttempt(n);
    try {
      setResult(JSON.stringify({ n, ...(await form.current!.submit()) }));
    } catch (e) {
      setResult(JSON.stringify({ n, error: String(e) }));
    }
  }

  return (
    <main>
      <h1>Checkout</h1>
      <ServiceScanCardForm
        ref={form}
        session={session}
        className="card-form"
        onReady={() => setReady(true)}
        onError={(e) => setResult(JSON.stringify({ n: -1, error: e.kind }))}
      />
      <button id="pay" type="button" disabled={!ready} onClick={pay}>
        Pay
      </button>
      <output id="result">{result}</output>
    </main>
  );
}

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
