// A loopback stand-in for the subset of Stripe's REST API the `stripe` payments adapter calls
// (server/platform/payments/stripe.ts), with a hosted checkout page whose "Pay" button completes the
// session and delivers the signed webhooks Stripe would send. stripe-mock is not available, and tests
// never leave loopback; the official SDK is pointed here with host/port/protocol.
//
//   import { startStripeFake } from "tests/helpers/stripe-fake";
//   const fake = await startStripeFake({ webhookUrl, webhookSecret });
//   // new Stripe(key, fake.clientOptions) or env STRIPE_API_BASE_URL=fake.url
//
// CLI (Playwright's webServer list):
//   npx tsx tests/helpers/stripe-fake.ts --port 12111 --webhook-url http://127.0.0.1:3000/api/v2/billing/webhooks/stripe --webhook-secret whsec_test
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";

/** How the fake hands its webhook events to the platform. */
export type DeliveryMode =
  /** Each event once, as it happens (the default). */
  | "once"
  /** Each event twice in a row (Stripe delivers at least once). */
  | "twice"
  /** Kept in `pending` until flush() (to deliver late, out of order, or race a redirect). */
  | "hold";

export interface StripeFakeOptions {
  /** The platform's POST /billing/webhooks/stripe. */
  webhookUrl: string;
  /** The signing secret the platform verifies with (STRIPE_WEBHOOK_SECRET). */
  webhookSecret: string;
  /** 0 or unset: a free port. */
  port?: number;
  delivery?: DeliveryMode;
}

export type FakeObject = Record<string, any>;

export interface FakeEvent {
  id: string;
  object: "event";
  type: string;
  created: number;
  livemode: false;
  api_version: string;
  data: { object: FakeObject };
}

export interface DeliveryResult {
  eventId: string;
  type: string;
  /** The platform's HTTP status; 0 when it could not be reached. */
  status: number;
  body: string;
}

export interface StripeFake {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  /** What to give the SDK: new Stripe(key, fake.clientOptions). */
  clientOptions: { host: string; port: number; protocol: "http" };
  /** Every API call received, in order (path without query, form body parsed). */
  requests: { method: string; path: string; body: FakeObject }[];
  customers: Map<string, FakeObject>;
  sessions: Map<string, FakeObject>;
  paymentIntents: Map<string, FakeObject>;
  invoices: Map<string, FakeObject>;
  subscriptions: Map<string, FakeObject>;
  /** Events held back (delivery "hold"). */
  pending: FakeEvent[];
  /** Every delivery attempt made and what the platform answered. */
  deliveries: DeliveryResult[];
  delivery: DeliveryMode;
  /**
   * What the "Pay" button does, without a browser: completes the session (paid; for a subscription,
   * its first invoice paid) and delivers its events per `delivery`. Returns the success_url to visit.
   */
  pay(sessionId: string): Promise<string>;
  /** Delivers the held events (all, or the first `count`), in order or reversed; clears them. */
  flush(options?: { reverse?: boolean; count?: number }): Promise<DeliveryResult[]>;
  /** Builds an event (a fresh evt_ id) without delivering it. */
  event(type: string, object: FakeObject): FakeEvent;
  /** Signs and posts one event to the platform; `secret` overrides the signing secret (a bad signature). */
  deliver(event: FakeEvent, options?: { secret?: string }): Promise<DeliveryResult>;
  /** A renewal: a new paid invoice on the subscription, delivered as invoice.paid. */
  renew(subscriptionId: string): Promise<FakeObject>;
  /** Cancels the subscription and delivers customer.subscription.deleted. */
  cancelSubscription(subscriptionId: string): Promise<void>;
  /** The next off-session payment intent is declined (card_declined). */
  declineNextCharge(): void;
  close(): Promise<void>;
}

const API_VERSION = "2026-10-28.endive";

const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString("hex")}`;
const now = () => Math.floor(Date.now() / 1000);

/** Stripe's form encoding (a[b][0][c]=x) back into nested objects and arrays. */
export function parseStripeForm(text: string): FakeObject {
  const root: FakeObject = {};
  for (const [rawKey, value] of new URLSearchParams(text)) {
    const path = rawKey.split(/\]\[|\[|\]/).filter((part) => part !== "");
    let node: FakeObject = root;
    path.forEach((part, index) => {
      if (index === path.length - 1) node[part] = value;
      else node = node[part] ??= {};
    });
  }
  const arrays = (value: unknown): unknown => {
    if (value === null || typeof value !== "object") return value;
    const entries = Object.entries(value as FakeObject).map(([key, inner]) => [key, arrays(inner)] as const);
    if (entries.length > 0 && entries.every(([key]) => /^\d+$/.test(key))) {
      return entries.sort(([a], [b]) => Number(a) - Number(b)).map(([, inner]) => inner);
    }
    return Object.fromEntries(entries);
  };
  return arrays(root) as FakeObject;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[char]!);

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

export async function startStripeFake(options: StripeFakeOptions): Promise<StripeFake> {
  const signer = new Stripe("sk_test_fake_signer");
  const customers = new Map<string, FakeObject>();
  const sessions = new Map<string, FakeObject>();
  const paymentIntents = new Map<string, FakeObject>();
  const invoices = new Map<string, FakeObject>();
  const subscriptions = new Map<string, FakeObject>();
  const paymentMethods = new Map<string, FakeObject>();
  const requests: StripeFake["requests"] = [];
  let declineNext = false;
  let base = "";

  const event = (type: string, object: FakeObject): FakeEvent => ({
    id: newId("evt"),
    object: "event",
    type,
    created: now(),
    livemode: false,
    api_version: API_VERSION,
    data: { object: structuredClone(object) },
  });

  async function deliver(evt: FakeEvent, deliverOptions: { secret?: string } = {}): Promise<DeliveryResult> {
    const payload = JSON.stringify(evt);
    const signature = signer.webhooks.generateTestHeaderString({ payload, secret: deliverOptions.secret ?? options.webhookSecret });
    const response = await fetch(options.webhookUrl, {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": signature },
      body: payload,
    });
    const result = { eventId: evt.id, type: evt.type, status: response.status, body: await response.text() };
    fake.deliveries.push(result);
    return result;
  }

  async function emit(events: FakeEvent[]): Promise<void> {
    for (const evt of events) {
      if (fake.delivery === "hold") fake.pending.push(evt);
      else {
        await deliver(evt);
        if (fake.delivery === "twice") await deliver(evt);
      }
    }
  }

  // Stripe sends this event after it has answered the API call. A platform that is already gone (the
  // suite closing) is a failed delivery, recorded like Stripe's dashboard would, not an unhandled error.
  const inFlight = new Set<Promise<void>>();
  function emitLater(events: FakeEvent[]): void {
    const sending = emit(events)
      .catch((error: unknown) => {
        for (const evt of events) fake.deliveries.push({ eventId: evt.id, type: evt.type, status: 0, body: String(error) });
      })
      .finally(() => inFlight.delete(sending));
    inFlight.add(sending);
  }

  const paymentMethodFor = (customerId: string | null) => {
    const method = { id: newId("pm"), object: "payment_method", type: "card", customer: customerId, card: { brand: "visa", last4: "4242" } };
    paymentMethods.set(method.id, method);
    return method;
  };

  function invoiceFor(customer: string | null, amount: number, extra: FakeObject = {}): FakeObject {
    const id = newId("in");
    const invoice = {
      id,
      object: "invoice",
      customer,
      status: "paid",
      amount_paid: amount,
      amount_due: amount,
      currency: "usd",
      number: `FAKE-${String(invoices.size + 1).padStart(4, "0")}`,
      hosted_invoice_url: `${base}/invoices/${id}`,
      invoice_pdf: `${base}/invoices/${id}/pdf`,
      created: now(),
      ...extra,
    };
    invoices.set(id, invoice);
    return invoice;
  }

  function subscriptionInvoice(subscription: FakeObject, reason: string): FakeObject {
    const start = now();
    const end = start + (subscription.interval === "year" ? 365 : 30) * 86_400;
    subscription.current_period_end = end;
    return invoiceFor(subscription.customer, subscription.amount, {
      billing_reason: reason,
      parent: {
        type: "subscription_details",
        subscription_details: { subscription: subscription.id, metadata: subscription.metadata },
      },
      lines: { object: "list", data: [{ id: newId("il"), amount: subscription.amount, period: { start, end } }] },
      period_start: start,
      period_end: end,
    });
  }

  async function pay(sessionId: string): Promise<string> {
    const session = sessions.get(sessionId);
    if (!session) throw new Error(`no such checkout session ${sessionId}`);
    const events: FakeEvent[] = [];
    if (session.status !== "complete") {
      session.status = "complete";
      session.payment_status = "paid";
      const method = paymentMethodFor(session.customer);
      if (session.mode === "subscription") {
        const recurring = session.line_items?.[0]?.price_data?.recurring?.interval ?? "month";
        const subscription = {
          id: newId("sub"),
          object: "subscription",
          customer: session.customer,
          status: "active",
          metadata: session.subscription_data?.metadata ?? {},
          interval: recurring,
          amount: session.amount_total,
          current_period_end: 0,
        };
        subscriptions.set(subscription.id, subscription);
        const invoice = subscriptionInvoice(subscription, "subscription_create");
        session.subscription = subscription.id;
        session.invoice = invoice.id;
        events.push(event("checkout.session.completed", session), event("invoice.paid", invoice));
      } else {
        const intent = {
          id: newId("pi"),
          object: "payment_intent",
          amount: session.amount_total,
          currency: session.currency,
          customer: session.customer,
          payment_method: method.id,
          status: "succeeded",
          metadata: session.payment_intent_data?.metadata ?? {},
        };
        paymentIntents.set(intent.id, intent);
        session.payment_intent = intent.id;
        if (session.invoice_creation?.enabled === "true" || session.invoice_creation?.enabled === true) {
          session.invoice = invoiceFor(session.customer, session.amount_total).id;
        }
        events.push(event("checkout.session.completed", session));
      }
    }
    await emit(events);
    return String(session.success_url ?? `${base}/`).replace("{CHECKOUT_SESSION_ID}", session.id);
  }

  const expand = (object: FakeObject, fields: string[]): FakeObject => {
    const copy = structuredClone(object);
    const stores: Record<string, Map<string, FakeObject>> = {
      payment_intent: paymentIntents,
      invoice: invoices,
      subscription: subscriptions,
      customer: customers,
      payment_method: paymentMethods,
    };
    for (const field of fields) {
      const store = stores[field];
      if (store && typeof copy[field] === "string") copy[field] = structuredClone(store.get(copy[field]) ?? copy[field]);
    }
    return copy;
  };

  const stripeError = (response: ServerResponse, status: number, message: string, extra: FakeObject = {}) =>
    sendJson(response, status, { error: { type: "invalid_request_error", message, ...extra } });

  function sendJson(response: ServerResponse, status: number, body: unknown) {
    response.writeHead(status, { "content-type": "application/json", "request-id": newId("req") });
    response.end(JSON.stringify(body));
  }

  function sendHtml(response: ServerResponse, status: number, title: string, body: string) {
    response.writeHead(status, { "content-type": "text/html; charset=utf-8" });
    response.end(`<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body>${body}</body></html>`);
  }

  function createSession(body: FakeObject): FakeObject {
    const items: FakeObject[] = Array.isArray(body.line_items) ? body.line_items : [];
    const amount = items.reduce(
      (sum, item) => sum + Number(item.price_data?.unit_amount ?? 0) * Number(item.quantity ?? 1),
      0,
    );
    const id = newId("cs_test");
    const session = {
      id,
      object: "checkout.session",
      url: `${base}/pay/${id}`,
      mode: body.mode ?? "payment",
      status: "open",
      payment_status: "unpaid",
      amount_total: amount,
      currency: items[0]?.price_data?.currency ?? "usd",
      customer: body.customer ?? null,
      client_reference_id: body.client_reference_id ?? null,
      metadata: body.metadata ?? {},
      success_url: body.success_url,
      cancel_url: body.cancel_url ?? null,
      line_items: items,
      payment_intent_data: body.payment_intent_data,
      subscription_data: body.subscription_data,
      invoice_creation: body.invoice_creation,
      payment_intent: null,
      subscription: null,
      invoice: null,
      created: now(),
    };
    sessions.set(id, session);
    return session;
  }

  function createPaymentIntent(body: FakeObject, response: ServerResponse) {
    const customer = body.customer ? customers.get(body.customer) : undefined;
    const method = body.payment_method ? paymentMethods.get(body.payment_method) : undefined;
    if (!customer || !method) return stripeError(response, 400, "No such customer or payment method");
    const intent: FakeObject = {
      id: newId("pi"),
      object: "payment_intent",
      amount: Number(body.amount),
      currency: body.currency ?? "usd",
      customer: customer.id,
      payment_method: method.id,
      metadata: body.metadata ?? {},
      status: "succeeded",
      created: now(),
    };
    if (declineNext) {
      declineNext = false;
      intent.status = "requires_payment_method";
      paymentIntents.set(intent.id, intent);
      return sendJson(response, 402, {
        error: { type: "card_error", code: "card_declined", decline_code: "generic_decline", message: "Your card was declined.", payment_intent: intent },
      });
    }
    paymentIntents.set(intent.id, intent);
    sendJson(response, 200, intent);
    emitLater([event("payment_intent.succeeded", intent)]);
  }

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const url = new URL(request.url ?? "/", base);
    const method = request.method ?? "GET";
    const text = await readBody(request);
    const form = method === "GET" ? parseStripeForm(url.search.slice(1)) : parseStripeForm(text);
    const parts = url.pathname.split("/").filter(Boolean);

    // Pages a browser visits
    if (parts[0] === "pay" && parts[1]) {
      const session = sessions.get(parts[1]);
      if (!session) return sendHtml(response, 404, "Not found", "<p>No such checkout session.</p>");
      if (method === "POST") {
        const target = await pay(session.id);
        response.writeHead(303, { location: target });
        return response.end();
      }
      const dollars = (session.amount_total / 100).toFixed(2);
      return sendHtml(
        response,
        200,
        "Fake checkout",
        `<h1>Fake checkout</h1><p>Pay <strong data-testid="amount">$${dollars}</strong> (${escapeHtml(session.mode)}).</p>` +
          `<form method="post" action="/pay/${escapeHtml(session.id)}"><button type="submit">Pay</button></form>`,
      );
    }
    if (parts[0] === "portal" && parts[1]) {
      return sendHtml(response, 200, "Fake billing portal", `<h1>Fake billing portal</h1><p>${escapeHtml(parts[1])}</p>`);
    }
    if (parts[0] === "invoices" && parts[1]) {
      const invoice = invoices.get(parts[1]);
      if (!invoice) return sendHtml(response, 404, "Not found", "<p>No such invoice.</p>");
      if (parts[2] === "pdf") {
        response.writeHead(200, { "content-type": "application/pdf" });
        return response.end(`%PDF-1.4 fake invoice ${invoice.id}`);
      }
      return sendHtml(response, 200, `Invoice ${invoice.number}`, `<h1>Invoice ${escapeHtml(invoice.number)}</h1>`);
    }

    // The API
    if (parts[0] !== "v1") return stripeError(response, 404, `Unrecognized request URL (${method}: ${url.pathname})`);
    requests.push({ method, path: url.pathname, body: form });
    const route = `${method} /${parts.slice(1).join("/")}`;
    const expansions: string[] = Array.isArray(form.expand) ? form.expand : [];
    const found = (store: Map<string, FakeObject>, id: string | undefined) => {
      const object = id ? store.get(id) : undefined;
      if (!object) stripeError(response, 404, `No such object: '${id}'`, { code: "resource_missing" });
      return object;
    };

    if (route === "POST /customers") {
      const customer = { id: newId("cus"), object: "customer", email: form.email ?? null, name: form.name ?? null, metadata: form.metadata ?? {} };
      customers.set(customer.id, customer);
      return sendJson(response, 200, customer);
    }
    if (method === "GET" && parts[1] === "customers" && parts.length === 3) {
      const customer = found(customers, parts[2]);
      return customer && sendJson(response, 200, customer);
    }
    if (route === "POST /checkout/sessions") {
      if (!form.success_url) return stripeError(response, 400, "Missing required param: success_url.", { param: "success_url" });
      return sendJson(response, 200, createSession(form));
    }
    if (method === "GET" && parts[1] === "checkout" && parts[2] === "sessions" && parts.length === 4) {
      const session = found(sessions, parts[3]);
      return session && sendJson(response, 200, expand(session, expansions));
    }
    if (route === "POST /billing_portal/sessions") {
      if (!form.customer || !customers.has(form.customer)) return stripeError(response, 400, "No such customer", { param: "customer" });
      const id = newId("bps");
      return sendJson(response, 200, { id, object: "billing_portal.session", customer: form.customer, return_url: form.return_url, url: `${base}/portal/${id}` });
    }
    if (route === "POST /payment_intents") return createPaymentIntent(form, response);
    if (method === "GET" && parts[1] === "payment_intents" && parts.length === 3) {
      const intent = found(paymentIntents, parts[2]);
      return intent && sendJson(response, 200, expand(intent, expansions));
    }
    if (method === "GET" && parts[1] === "invoices" && parts.length === 3) {
      const invoice = found(invoices, parts[2]);
      return invoice && sendJson(response, 200, invoice);
    }
    if (method === "GET" && parts[1] === "subscriptions" && parts.length === 3) {
      const subscription = found(subscriptions, parts[2]);
      return subscription && sendJson(response, 200, subscription);
    }
    return stripeError(response, 404, `Unrecognized request URL (${method}: ${url.pathname})`);
  }

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) stripeError(response, 500, error instanceof Error ? error.message : String(error));
      else response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;

  const fake: StripeFake = {
    url: base,
    port,
    clientOptions: { host: "127.0.0.1", port, protocol: "http" },
    requests,
    customers,
    sessions,
    paymentIntents,
    invoices,
    subscriptions,
    pending: [],
    deliveries: [],
    delivery: options.delivery ?? "once",
    pay,
    event,
    deliver,
    async flush(flushOptions = {}) {
      const taken = fake.pending.splice(0, flushOptions.count ?? fake.pending.length);
      if (flushOptions.reverse) taken.reverse();
      const results: DeliveryResult[] = [];
      for (const evt of taken) results.push(await deliver(evt));
      return results;
    },
    async renew(subscriptionId) {
      const subscription = subscriptions.get(subscriptionId);
      if (!subscription) throw new Error(`no such subscription ${subscriptionId}`);
      const invoice = subscriptionInvoice(subscription, "subscription_cycle");
      await emit([event("invoice.paid", invoice)]);
      return invoice;
    },
    async cancelSubscription(subscriptionId) {
      const subscription = subscriptions.get(subscriptionId);
      if (!subscription) throw new Error(`no such subscription ${subscriptionId}`);
      subscription.status = "canceled";
      await emit([event("customer.subscription.deleted", subscription)]);
    },
    declineNextCharge() {
      declineNext = true;
    },
    async close() {
      await Promise.all(inFlight);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}

// CLI: npx tsx tests/helpers/stripe-fake.ts --port N --webhook-url URL --webhook-secret S [--delivery once|twice|hold]
const isMain = typeof process !== "undefined" && process.argv[1] !== undefined && /stripe-fake\.ts$/.test(process.argv[1]);
if (isMain) {
  const argument = (name: string) => {
    const index = process.argv.indexOf(`--${name}`);
    return index === -1 ? undefined : process.argv[index + 1];
  };
  const webhookUrl = argument("webhook-url");
  const webhookSecret = argument("webhook-secret");
  if (!webhookUrl || !webhookSecret) {
    console.error("usage: tsx tests/helpers/stripe-fake.ts --port N --webhook-url URL --webhook-secret S [--delivery once|twice|hold]");
    process.exit(2);
  }
  void startStripeFake({
    webhookUrl,
    webhookSecret,
    port: Number(argument("port") ?? 12111),
    delivery: (argument("delivery") as DeliveryMode | undefined) ?? "once",
  }).then((fake) => console.log(`stripe fake listening on ${fake.url}`));
}
