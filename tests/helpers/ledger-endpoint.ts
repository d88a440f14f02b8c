// The framework's run-ledger webhook endpoint for tests: a loopback server handing each delivery to
// receiveLedgerWebhook (what app/api/platform-webhooks/route.ts wraps), registered on the framework's
// embedded account as the framework registers it. Needs startFramework({ outboundAllowLoopback: true }).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { ensureLedgerWebhook, receiveLedgerWebhook, type LedgerDelivery } from "@/server/framework/tenancy/run-ledger-webhook";
import { TEST_SECRET, type FrameworkHarness } from "./framework";

export interface LedgerDeliveryRecord {
  body: string;
  headers: Record<string, string>;
  /** "dropped": answered 200 without reaching the ledger (a delivery lost on the way). */
  result: LedgerDelivery | "dropped";
}

export interface LedgerEndpoint {
  url: string;
  deliveries: LedgerDeliveryRecord[];
  /** While on, deliveries are answered 200 and never reach the ledger. */
  drop(on: boolean): void;
  close(): Promise<void>;
}

export async function startLedgerEndpoint(fw: FrameworkHarness): Promise<LedgerEndpoint> {
  const deliveries: LedgerDeliveryRecord[] = [];
  let dropping = false;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)]));
      const handle = async (): Promise<LedgerDelivery | "dropped"> =>
        dropping ? "dropped" : receiveLedgerWebhook(fw.database.prisma, await fw.connect(), body, headers, [TEST_SECRET]);
      handle().then(
        (result) => {
          deliveries.push({ body, headers, result });
          res.writeHead(result !== "dropped" && result.outcome === "rejected" ? 401 : 200).end();
        },
        () => res.writeHead(500).end(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/platform-webhooks`;
  if (!(await ensureLedgerWebhook(fw.database.prisma, await fw.connect(), url, [TEST_SECRET]))) {
    throw new Error("the platform refused the ledger's webhook (is outboundAllowLoopback on?)");
  }
  return {
    url,
    deliveries,
    drop: (on) => void (dropping = on),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
