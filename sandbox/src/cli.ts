#!/usr/bin/env node
import { startSandbox, type Sandbox } from "./index";
import { TEST_CARDS } from "./test-cards";

const USAGE = `Usage: servicescan-sandbox [options]

A local, in-memory copy of the ServiceScan hosted card form, token exchange and chargeback
disputes API, with simulated Worldpay (cnpAPI) and Adyen (Checkout, Disputes, webhooks) processors.

Options:
  --port <n>           port to listen on (default 4010; 0 picks a free port)
  --host <host>        interface to bind (default 127.0.0.1)
  --proof-delay <ms>   label scans and complete proof requests by themselves after <ms>
  --max-document-bytes <n>
                       Chargeback API per-document size limit (default 2097152, 2 MiB)
  --fraud-label <word> "invalid" (the spec's word, default) or "fraud" (the real service's)
  --adyen-webhook-url <url>
                       where the demo Adyen merchant's notifications go (default: nowhere)
  --quiet              do not log requests
  -h, --help           show this help

Environment:
  SERVICESCAN_SANDBOX_SHAREABLE_KEY, SERVICESCAN_SANDBOX_PAYMENT_TOKEN_KEY,
  SERVICESCAN_SANDBOX_SECRET_KEY   override the demo account's keys
`;

interface CliOptions {
  port: number;
  host: string;
  proofDelayMs?: number;
  maxDocumentBytes?: number;
  fraudLabel?: "invalid" | "fraud";
  adyenWebhookUrl?: string;
  quiet: boolean;
}

function parseArgs(argv: string[]): ({ help: true } | ({ help: false } & CliOptions)) {
  const out: CliOptions = { port: 4010, host: "127.0.0.1", quiet: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === "") throw new Error(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case "-h":
      case "--help":
        return { help: true };
      case "--port": {
        const v = value();
        const port = Number(v);
        if (!/^\d+$/.test(v) || port > 65535) throw new Error(`--port must be an integer from 0 to 65535, got ${v}`);
        out.port = port;
        break;
      }
      case "--host":
        out.host = value();
        break;
      case "--proof-delay": {
        const v = value();
        if (!/^\d+$/.test(v)) throw new Error(`--proof-delay must be a number of milliseconds, got ${v}`);
        out.proofDelayMs = Number(v);
        break;
      }
      case "--max-document-bytes": {
        const v = value();
        if (!/^\d+$/.test(v) || Number(v) < 1) throw new Error(`--max-document-bytes must be a positive number of bytes, got ${v}`);
        out.maxDocumentBytes = Number(v);
        break;
      }
      case "--fraud-label": {
        const v = value();
        if (v !== "invalid" && v !== "fraud") throw new Error(`--fraud-label must be "invalid" or "fraud", got ${v}`);
        out.fraudLabel = v;
        break;
      }
      case "--adyen-webhook-url":
        out.adyenWebhookUrl = value();
        break;
      case "--quiet":
        out.quiet = true;
        break;
      default:
        throw new Error(`unknown option: ${arg}`);
    }
  }
  return { help: false, ...out };
}

async function main(): Promise<void> {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`servicescan-sandbox: ${error instanceof Error ? error.message : error}\n\n${USAGE}`);
    process.exit(2);
  }
  if (args.help) {
    process.stdout.write(USAGE);
    return;
  }
  const quiet = args.quiet;
  let sandbox: Sandbox;
  try {
    sandbox = await startSandbox({
      port: args.port,
      host: args.host,
      proofDelayMs: args.proofDelayMs,
      ...(args.maxDocumentBytes === undefined ? {} : { maxDocumentBytes: args.maxDocumentBytes }),
      fraudLabel: args.fraudLabel,
      ...(args.adyenWebhookUrl === undefined ? {} : { adyen: { webhookUrl: args.adyenWebhookUrl } }),
      logger: (level, message) => {
        if (quiet && level === "info") return;
        const line = `${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} ${message}\n`;
        (level === "info" ? process.stdout : process.stderr).write(line);
      },
    });
  } catch (error) {
    const code = error instanceof Error && "code" in error ? error.code : undefined;
    const reason = code === "EADDRINUSE" ? `port ${args.port} is already in use (try --port 0)` : String(error instanceof Error ? error.message : error);
    process.stderr.write(`servicescan-sandbox: cannot start: ${reason}\n`);
    process.exit(1);
  }

  // Before the banner: whoever reads "listening on" may signal us straight away.
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal} received, stopping the sandbox\n`);
    sandbox.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`servicescan-sandbox: error while stopping: ${error}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);

  const { demo, url } = sandbox;
  process.stdout.write(
    [
      `ServiceScan sandbox listening on ${url}`,
      ``,
      `  client script        ${url}/client.js`,
      `  checkout / base URL  ${url}`,
      `  control API          ${url}/__sandbox`,
      ``,
      `Demo account ${demo.accountId} (domains: localhost, 127.0.0.1 on any port)`,
      `  shareable key        ${demo.keys.shareable}`,
      `  payment token key    ${demo.keys.paymentToken}`,
      `  secret key           ${demo.keys.secret}`,
      ``,
      `Simulated Worldpay cnpAPI processor`,
      `  url                  ${demo.processor.url}`,
      `  merchantId           ${demo.processor.merchantId}`,
      `  user / password      ${demo.processor.user} / ${demo.processor.password}`,
      `  Chargeback API       ${url}/chargebacks, documents ${url}/services/chargebacks (HTTP Basic, the same user / password)`,
      ``,
      `Simulated Adyen (token exchange: ${url}/api/v1/adyen/form/<form_id>)`,
      `  Checkout API         ${demo.adyen.checkoutUrl}`,
      `  Disputes API         ${demo.adyen.disputesUrl}`,
      `  merchant account     ${demo.adyen.merchantAccount} (company ${demo.adyen.companyAccount})`,
      `  X-API-Key            ${demo.adyen.apiKey}`,
      `  Basic user / pass    ${demo.adyen.username} / ${demo.adyen.password}`,
      `  webhook HMAC key     ${demo.adyen.hmacKey}`,
      `  webhook              ${demo.adyen.webhookUrl ?? "(none; --adyen-webhook-url or POST /__sandbox/adyen/merchants/<account>)"}, Basic ${demo.adyen.webhookUsername} / ${demo.adyen.webhookPassword}`,
      ``,
      `Test cards`,
      ...TEST_CARDS.map((c) => `  ${c.number.padEnd(19)}  ${c.label}`),
      ``,
      args.proofDelayMs === undefined
        ? `Proof requests complete when their scans are labelled (see the control API).`
        : `Proof requests complete by themselves after ${args.proofDelayMs} ms.`,
      `Press Ctrl+C to stop.`,
      ``,
    ].join("\n") + "\n",
  );
}

void main();
