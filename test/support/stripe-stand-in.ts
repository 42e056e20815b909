/**
 * A local stand-in for the parts of Stripe's API that src/payments/stripe.provider.ts calls.
 * Stripe's own mock server cannot be installed here, so the Stripe tests run the real SDK and
 * the real signature verification against this: a node:http server on 127.0.0.1 that reads the
 * form-encoded bodies the SDK sends, answers with Stripe-shaped objects and error objects,
 * replays a request that repeats an `Idempotency-Key` (and refuses one reused with different
 * parameters), and records every call so tests can count captures and cancels.
 *
 * Test controls play the other side: `completeSession` is the person paying on the hosted page
 * (with one of Stripe's test cards) and returns the signed `checkout.session.completed` event;
 * `signedEvent` signs any event with `Stripe.webhooks.generateTestHeaderString`.
 *
 * Endpoints: POST /v1/checkout/sessions, GET /v1/checkout/sessions/:id,
 * POST /v1/checkout/sessions/:id/expire, GET /v1/payment_intents/:id,
 * POST /v1/payment_intents/:id/capture, POST /v1/payment_intents/:id/cancel; Connect:
 * POST /v1/accounts (type express only), GET /v1/accounts/:id, POST /v1/account_links.
 *
 * A Checkout Session with `payment_intent_data[transfer_data][destination]` is checked as Stripe
 * checks it (the account exists and can take charges; `application_fee_amount` is whole cents no
 * greater than the total) and its PaymentIntent carries `transfer_data` and
 * `application_fee_amount`. `finishOnboarding` plays the lawyer completing Stripe's onboarding
 * and returns the signed `account.updated` event.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

export interface StandInOptions {
  secretKey: string;
  webhookSecret: string;
  /** Stripe's notion of now (ms): tests pass their manual clock so expiries and signatures agree. */
  now: () => number;
}

export interface RecordedCall {
  method: string;
  path: string;
  /** The decoded form body (POST) or query (GET). */
  params: Record<string, unknown>;
  idempotencyKey: string | null;
  status: number;
  replayed: boolean;
}

export interface StandInSession {
  id: string;
  object: 'checkout.session';
  mode: string;
  status: 'open' | 'complete' | 'expired';
  payment_status: 'unpaid' | 'paid';
  amount_subtotal: number;
  amount_total: number;
  currency: string;
  allowed_payment_method_types: string[] | null;
  payment_method_types: string[];
  client_reference_id: string | null;
  customer_email: string | null;
  metadata: Record<string, string>;
  expires_at: number;
  created: number;
  success_url: string | null;
  cancel_url: string | null;
  url: string | null;
  payment_intent: string | null;
  livemode: false;
}

export interface StandInPaymentIntent {
  id: string;
  object: 'payment_intent';
  amount: number;
  amount_capturable: number;
  amount_received: number;
  currency: string;
  capture_method: string;
  status: 'requires_capture' | 'succeeded' | 'canceled';
  cancellation_reason: string | null;
  metadata: Record<string, string>;
  created: number;
  livemode: false;
  transfer_data: { destination: string } | null;
  application_fee_amount: number | null;
}

export interface StandInAccount {
  id: string;
  object: 'account';
  type: 'express';
  country: string;
  email: string | null;
  charges_enabled: boolean;
  payouts_enabled: boolean;
  details_submitted: boolean;
  capabilities: Record<string, string>;
  metadata: Record<string, string>;
  created: number;
}

export interface SignedEvent {
  id: string;
  /** The exact bytes to deliver. */
  body: string;
  /** The `Stripe-Signature` header. */
  header: string;
}

interface StoredResponse {
  fingerprint: string;
  status: number;
  body: string;
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: Record<string, unknown>,
  ) {
    super(String(error.message));
  }
}

const invalid = (message: string, extra: Record<string, unknown> = {}) => new ApiError(400, { type: 'invalid_request_error', message, ...extra });

/** `a[b][0][c]=v` pairs into nested objects and arrays, as Stripe reads them. */
export function decodeForm(text: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const parts = key.split(/\[|\]\[|\]/).filter((p) => p !== '');
    let node: Record<string, unknown> | unknown[] = root;
    parts.forEach((part, i) => {
      const last = i === parts.length - 1;
      const container = node as Record<string, unknown>;
      if (last) {
        container[part] = value;
        return;
      }
      if (container[part] === undefined) container[part] = /^\d+$/.test(parts[i + 1]!) ? [] : {};
      node = container[part] as Record<string, unknown>;
    });
  }
  return root;
}

const TEST_CARDS: Record<string, 'ok' | 'card_declined' | 'insufficient_funds'> = {
  '4242424242424242': 'ok',
  '4000000000000002': 'card_declined',
  '4000000000009995': 'insufficient_funds',
};

const newId = (prefix: string) => `${prefix}_test_${randomBytes(12).toString('hex')}`;

export class StripeStandIn {
  readonly calls: RecordedCall[] = [];
  readonly sessions = new Map<string, StandInSession>();
  readonly paymentIntents = new Map<string, StandInPaymentIntent>();
  /** Refunds created, in order (a replayed idempotent request creates none). */
  readonly refunds: Array<{ id: string; object: 'refund'; payment_intent: string; amount: number; currency: string; status: 'succeeded'; reason: string | null; metadata: Record<string, string>; reverse_transfer: boolean; refund_application_fee: boolean; created: number }> = [];
  /** What the session was created with that the Session object does not echo. */
  readonly sessionParams = new Map<string, Record<string, unknown>>();
  readonly accounts = new Map<string, StandInAccount>();
  /** Account links handed out: url → the account and the URLs Stripe sends her back to. */
  readonly accountLinks = new Map<string, { account: string; refresh_url: string; return_url: string; type: string }>();
  private readonly idempotent = new Map<string, StoredResponse>();
  private failures: Array<{ status: number; method?: string; path?: RegExp }> = [];

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
    private readonly options: StandInOptions,
  ) {}

  /** Listens on 127.0.0.1 (a random port). */
  static async start(options: StandInOptions): Promise<StripeStandIn> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const standIn = new StripeStandIn(server, `http://127.0.0.1:${port}`, options);
    server.on('request', (req, res) => void standIn.handle(req, res));
    return standIn;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Calls to `method` whose path matches. */
  callsTo(method: string, path: RegExp): RecordedCall[] {
    return this.calls.filter((c) => c.method === method && path.test(c.path));
  }

  /**
   * The next `count` API requests (those to `method` `path` when given) answer `status` without
   * doing anything: an outage, which the SDK retries with the same idempotency key.
   */
  failNext(count: number, options: { status?: number; method?: string; path?: RegExp } = {}): void {
    for (let i = 0; i < count; i++) this.failures.push({ status: options.status ?? 500, method: options.method, path: options.path });
  }

  /**
   * The person pays on the hosted page. With a test card that succeeds, the session completes
   * (a manual-capture PaymentIntent in `requires_capture`) and the signed
   * `checkout.session.completed` event is returned; a declined card leaves the session open, as
   * Stripe's page does, and no event is sent.
   */
  completeSession(sessionId: string, cardNumber = '4242 4242 4242 4242'): { ok: true; event: SignedEvent; paymentIntent: StandInPaymentIntent } | { ok: false; code: string } {
    const session = this.sessions.get(sessionId);
    if (!session) throw new Error(`no session ${sessionId}`);
    if (session.status !== 'open' || this.nowSeconds() >= session.expires_at) throw new Error(`session ${sessionId} is ${session.status}; it cannot be paid`);
    const outcome = TEST_CARDS[cardNumber.replace(/[\s-]/g, '')] ?? 'card_declined';
    if (outcome !== 'ok') return { ok: false, code: outcome };
    const params = this.sessionParams.get(sessionId)!;
    const intentData = (params.payment_intent_data ?? {}) as Record<string, unknown>;
    const manual = intentData.capture_method === 'manual';
    const transfer = intentData.transfer_data as Record<string, unknown> | undefined;
    const intent: StandInPaymentIntent = {
      id: newId('pi'),
      object: 'payment_intent',
      amount: session.amount_total,
      amount_capturable: manual ? session.amount_total : 0,
      amount_received: manual ? 0 : session.amount_total,
      currency: session.currency,
      capture_method: manual ? 'manual' : 'automatic_async',
      status: manual ? 'requires_capture' : 'succeeded',
      cancellation_reason: null,
      metadata: { ...((intentData.metadata ?? {}) as Record<string, string>) },
      created: this.nowSeconds(),
      livemode: false,
      transfer_data: transfer ? { destination: String(transfer.destination) } : null,
      application_fee_amount: intentData.application_fee_amount === undefined ? null : Number(intentData.application_fee_amount),
    };
    this.paymentIntents.set(intent.id, intent);
    session.status = 'complete';
    // With manual capture nothing has been paid yet: the session completes `unpaid`.
    session.payment_status = manual ? 'unpaid' : 'paid';
    session.payment_intent = intent.id;
    return { ok: true, event: this.signedEvent('checkout.session.completed', session), paymentIntent: intent };
  }

  /**
   * The lawyer finishes Stripe's onboarding (or Stripe reviews her account): the account's
   * capabilities change and the signed `account.updated` event is returned.
   */
  finishOnboarding(accountId: string, state: { charges_enabled?: boolean; payouts_enabled?: boolean; details_submitted?: boolean } = {}): SignedEvent {
    const account = this.accounts.get(accountId);
    if (!account) throw new Error(`no account ${accountId}`);
    account.details_submitted = state.details_submitted ?? true;
    account.charges_enabled = state.charges_enabled ?? true;
    account.payouts_enabled = state.payouts_enabled ?? true;
    account.capabilities = { card_payments: account.charges_enabled ? 'active' : 'inactive', transfers: account.charges_enabled ? 'active' : 'inactive' };
    return this.signedEvent('account.updated', account);
  }

  /** A signed event carrying a snapshot of `object`; `timestamp` (s) and `secret` override the defaults. */
  signedEvent(type: string, object: object, options: { timestamp?: number; secret?: string; id?: string } = {}): SignedEvent {
    const id = options.id ?? newId('evt');
    const event = {
      id,
      object: 'event',
      api_version: Stripe.API_VERSION,
      created: this.nowSeconds(),
      data: { object: structuredClone(object) },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    };
    // Pretty-printed, as Stripe sends it: the receiver must verify these bytes, not a re-serialisation.
    const body = JSON.stringify(event, null, 2);
    const header = Stripe.webhooks.generateTestHeaderString({
      payload: body,
      secret: options.secret ?? this.options.webhookSecret,
      timestamp: options.timestamp ?? this.nowSeconds(),
    });
    return { id, body, header };
  }

  /**
   * The same event delivered again now: Stripe signs every delivery attempt with the time it is
   * sent, so a late (or retried) delivery carries a fresh timestamp over the same bytes.
   */
  resign(event: SignedEvent): SignedEvent {
    return { ...event, header: Stripe.webhooks.generateTestHeaderString({ payload: event.body, secret: this.options.webhookSecret, timestamp: this.nowSeconds() }) };
  }

  private nowSeconds(): number {
    return Math.floor(this.options.now() / 1000);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', this.url);
    const method = req.method ?? 'GET';
    const params = decodeForm(method === 'GET' ? url.search.slice(1) : raw);
    const keyHeader = req.headers['idempotency-key'];
    const idempotencyKey = typeof keyHeader === 'string' ? keyHeader : null;
    const record = (status: number, replayed: boolean) => this.calls.push({ method, path: url.pathname, params, idempotencyKey, status, replayed });
    const send = (status: number, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': newId('req'), ...headers });
      res.end(body);
    };

    if (req.headers.authorization !== `Bearer ${this.options.secretKey}`) {
      record(401, false);
      return send(401, JSON.stringify({ error: { type: 'invalid_request_error', message: 'Invalid API Key provided.' } }));
    }
    const failing = this.failures.findIndex((f) => (f.method === undefined || f.method === method) && (f.path === undefined || f.path.test(url.pathname)));
    if (failing >= 0) {
      const [failure] = this.failures.splice(failing, 1);
      record(failure!.status, false);
      return send(failure!.status, JSON.stringify({ error: { type: 'api_error', message: 'The stand-in was told to fail this request.' } }));
    }
    const fingerprint = createHash('sha256').update(`${method} ${url.pathname} ${raw}`).digest('hex');
    if (idempotencyKey && method === 'POST') {
      const stored = this.idempotent.get(idempotencyKey);
      if (stored) {
        if (stored.fingerprint !== fingerprint) {
          record(400, false);
          return send(400, JSON.stringify({ error: { type: 'idempotency_error', message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.` } }));
        }
        record(stored.status, true);
        return send(stored.status, stored.body, { 'idempotency-key': idempotencyKey, 'idempotent-replayed': 'true' });
      }
    }
    let status = 200;
    let body: string;
    try {
      body = JSON.stringify(this.route(method, url.pathname, params));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      status = err.status;
      body = JSON.stringify({ error: err.error });
    }
    // Like Stripe, a request that failed validation saves no idempotent result.
    const validationFailure = status === 400 && JSON.parse(body).error?.code === 'parameter_invalid';
    if (idempotencyKey && method === 'POST' && !validationFailure) this.idempotent.set(idempotencyKey, { fingerprint, status, body });
    record(status, false);
    send(status, body, idempotencyKey ? { 'idempotency-key': idempotencyKey } : {});
  }

  private route(method: string, path: string, params: Record<string, unknown>): object {
    let m: RegExpExecArray | null;
    if (method === 'POST' && path === '/v1/checkout/sessions') return this.createSession(params);
    if (method === 'GET' && (m = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path))) return this.session(m[1]!);
    if (method === 'POST' && (m = /^\/v1\/checkout\/sessions\/([^/]+)\/expire$/.exec(path))) return this.expireSession(m[1]!);
    if (method === 'GET' && (m = /^\/v1\/payment_intents\/([^/]+)$/.exec(path))) return this.paymentIntent(m[1]!);
    if (method === 'POST' && (m = /^\/v1\/payment_intents\/([^/]+)\/capture$/.exec(path))) return this.capture(m[1]!);
    if (method === 'POST' && (m = /^\/v1\/payment_intents\/([^/]+)\/cancel$/.exec(path))) return this.cancel(m[1]!, params);
    if (method === 'POST' && path === '/v1/refunds') return this.refund(params);
    if (method === 'POST' && path === '/v1/accounts') return this.createAccount(params);
    if (method === 'GET' && (m = /^\/v1\/accounts\/([^/]+)$/.exec(path))) return this.account(m[1]!);
    if (method === 'POST' && path === '/v1/account_links') return this.createAccountLink(params);
    throw new ApiError(404, { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}).` });
  }

  private createSession(params: Record<string, unknown>): StandInSession {
    const paramInvalid = (param: string, message: string) => invalid(message, { code: 'parameter_invalid', param });
    if (params.mode !== 'payment') throw paramInvalid('mode', 'The stand-in implements mode=payment only.');
    if (typeof params.success_url !== 'string') throw paramInvalid('success_url', 'Missing required param: success_url.');
    const items = params.line_items as Array<Record<string, unknown>> | undefined;
    if (!Array.isArray(items) || items.length === 0) throw paramInvalid('line_items', 'line_items is required in payment mode.');
    let total = 0;
    let currency: string | null = null;
    items.forEach((item, i) => {
      const price = item.price_data as Record<string, unknown> | undefined;
      const amount = Number(price?.unit_amount);
      const quantity = Number(item.quantity ?? 1);
      if (!price || !Number.isInteger(amount) || amount < 0) throw paramInvalid(`line_items[${i}][price_data][unit_amount]`, 'Invalid integer.');
      if (typeof (price.product_data as Record<string, unknown> | undefined)?.name !== 'string') {
        throw paramInvalid(`line_items[${i}][price_data][product_data][name]`, 'Missing required param: name.');
      }
      if (currency !== null && price.currency !== currency) throw paramInvalid(`line_items[${i}][price_data][currency]`, 'All line items must share one currency.');
      currency = String(price.currency);
      total += amount * quantity;
    });
    const now = this.nowSeconds();
    const expiresAt = params.expires_at === undefined ? now + 86_400 : Number(params.expires_at);
    if (!Number.isInteger(expiresAt) || expiresAt < now + 30 * 60 || expiresAt > now + 86_400) {
      throw paramInvalid('expires_at', 'The `expires_at` timestamp must be between 30 minutes and 24 hours after the current time.');
    }
    const intentData = (params.payment_intent_data ?? {}) as Record<string, unknown>;
    if (intentData.capture_method !== undefined && !['automatic', 'automatic_async', 'manual'].includes(String(intentData.capture_method))) {
      throw paramInvalid('payment_intent_data[capture_method]', 'Invalid capture_method.');
    }
    const transfer = intentData.transfer_data as Record<string, unknown> | undefined;
    if (transfer !== undefined) {
      const destination = this.accounts.get(String(transfer.destination));
      if (!destination) throw paramInvalid('payment_intent_data[transfer_data][destination]', `No such destination: '${String(transfer.destination)}'`);
      if (!destination.charges_enabled) {
        throw paramInvalid('payment_intent_data[transfer_data][destination]', 'Your destination account needs to have at least one of the following capabilities enabled: transfers, crypto_transfers, legacy_payments');
      }
    }
    if (intentData.application_fee_amount !== undefined) {
      const fee = Number(intentData.application_fee_amount);
      if (transfer === undefined) throw paramInvalid('payment_intent_data[application_fee_amount]', 'Can only apply an application_fee_amount when the PaymentIntent is attempting a direct payment (using an OAuth key or Stripe-Account header) or destination payment (using `transfer_data[destination]`).');
      if (!Number.isInteger(fee) || fee < 0 || fee > total) throw paramInvalid('payment_intent_data[application_fee_amount]', 'Invalid application_fee_amount.');
    }
    const allowed = params.allowed_payment_method_types as string[] | undefined;
    const id = newId('cs');
    const session: StandInSession = {
      id,
      object: 'checkout.session',
      mode: 'payment',
      status: 'open',
      payment_status: 'unpaid',
      amount_subtotal: total,
      amount_total: total,
      currency: currency!,
      allowed_payment_method_types: allowed ?? null,
      payment_method_types: allowed ?? ['card'],
      client_reference_id: typeof params.client_reference_id === 'string' ? params.client_reference_id : null,
      customer_email: typeof params.customer_email === 'string' ? params.customer_email : null,
      metadata: { ...((params.metadata ?? {}) as Record<string, string>) },
      expires_at: expiresAt,
      created: now,
      success_url: params.success_url,
      cancel_url: typeof params.cancel_url === 'string' ? params.cancel_url : null,
      url: `${this.url}/c/pay/${id}`,
      payment_intent: null,
      livemode: false,
    };
    this.sessions.set(id, session);
    this.sessionParams.set(id, params);
    return session;
  }

  private createAccount(params: Record<string, unknown>): StandInAccount {
    const paramInvalid = (param: string, message: string) => invalid(message, { code: 'parameter_invalid', param });
    if (params.type !== 'express') throw paramInvalid('type', 'The stand-in implements type=express only.');
    if (typeof params.country !== 'string' || !/^[A-Z]{2}$/.test(params.country)) throw paramInvalid('country', 'Invalid country.');
    const account: StandInAccount = {
      id: newId('acct'),
      object: 'account',
      type: 'express',
      country: params.country,
      email: typeof params.email === 'string' ? params.email : null,
      charges_enabled: false,
      payouts_enabled: false,
      details_submitted: false,
      capabilities: Object.fromEntries(Object.keys((params.capabilities ?? {}) as Record<string, unknown>).map((k) => [k, 'inactive'])),
      metadata: { ...((params.metadata ?? {}) as Record<string, string>) },
      created: this.nowSeconds(),
    };
    this.accounts.set(account.id, account);
    return account;
  }

  private account(id: string): StandInAccount {
    const account = this.accounts.get(id);
    if (!account) throw new ApiError(404, { type: 'invalid_request_error', code: 'resource_missing', param: 'account', message: `No such account: '${id}'` });
    return account;
  }

  private createAccountLink(params: Record<string, unknown>): object {
    const paramInvalid = (param: string, message: string) => invalid(message, { code: 'parameter_invalid', param });
    const account = this.account(String(params.account));
    if (params.type !== 'account_onboarding' && params.type !== 'account_update') throw paramInvalid('type', 'Invalid type.');
    for (const key of ['refresh_url', 'return_url'] as const) {
      if (typeof params[key] !== 'string' || !/^https?:\/\//.test(params[key])) throw paramInvalid(key, `Not a valid URL: ${key}.`);
    }
    const url = `${this.url}/setup/e/${account.id}/${randomBytes(8).toString('hex')}`;
    this.accountLinks.set(url, { account: account.id, refresh_url: String(params.refresh_url), return_url: String(params.return_url), type: String(params.type) });
    return { object: 'account_link', created: this.nowSeconds(), expires_at: this.nowSeconds() + 300, url };
  }

  private session(id: string): StandInSession {
    const session = this.sessions.get(id);
    if (!session) throw new ApiError(404, { type: 'invalid_request_error', code: 'resource_missing', param: 'session', message: `No such checkout.session: '${id}'` });
    return session;
  }

  private expireSession(id: string): StandInSession {
    const session = this.session(id);
    if (session.status !== 'open') {
      throw invalid(`Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${session.status}".`);
    }
    session.status = 'expired';
    session.url = null;
    return session;
  }

  private paymentIntent(id: string): StandInPaymentIntent {
    const intent = this.paymentIntents.get(id);
    if (!intent) throw new ApiError(404, { type: 'invalid_request_error', code: 'resource_missing', param: 'intent', message: `No such payment_intent: '${id}'` });
    return intent;
  }

  private capture(id: string): StandInPaymentIntent {
    const intent = this.paymentIntent(id);
    if (intent.status !== 'requires_capture') {
      throw invalid(
        `This PaymentIntent could not be captured because it has a status of ${intent.status}. Only a PaymentIntent with one of the following statuses may be captured: requires_capture.`,
        { code: 'payment_intent_unexpected_state', payment_intent: intent },
      );
    }
    intent.status = 'succeeded';
    intent.amount_received = intent.amount;
    intent.amount_capturable = 0;
    return intent;
  }

  private cancel(id: string, params: Record<string, unknown>): StandInPaymentIntent {
    const intent = this.paymentIntent(id);
    if (intent.status !== 'requires_capture') {
      throw invalid(
        `You cannot cancel this PaymentIntent because it has a status of ${intent.status}. Only a PaymentIntent with one of the following statuses may be canceled: requires_payment_method, requires_capture, requires_confirmation, requires_action, processing.`,
        { code: 'payment_intent_unexpected_state', payment_intent: intent },
      );
    }
    intent.status = 'canceled';
    intent.amount_capturable = 0;
    intent.cancellation_reason = typeof params.cancellation_reason === 'string' ? params.cancellation_reason : null;
    return intent;
  }

  /** A refund of a captured (succeeded) PaymentIntent, at most what is left of it, as Stripe answers. */
  private refund(params: Record<string, unknown>): object {
    const id = typeof params.payment_intent === 'string' ? params.payment_intent : '';
    const intent = this.paymentIntent(id);
    if (intent.status !== 'succeeded') {
      throw invalid(`This PaymentIntent (${id}) does not have a successful charge to refund.`, { code: 'charge_not_refundable' });
    }
    const refunded = this.refunds.filter((r) => r.payment_intent === id).reduce((sum, r) => sum + r.amount, 0);
    const amount = params.amount === undefined ? intent.amount - refunded : Number(params.amount);
    if (refunded >= intent.amount) throw invalid(`Charge for ${id} has already been refunded.`, { code: 'charge_already_refunded' });
    if (!Number.isInteger(amount) || amount <= 0 || amount > intent.amount - refunded) {
      throw invalid(`Refund amount (${amount}) is greater than unrefunded amount on charge (${intent.amount - refunded}).`, { code: 'amount_too_large', param: 'amount' });
    }
    const refund = {
      id: newId('re'),
      object: 'refund' as const,
      payment_intent: id,
      amount,
      currency: intent.currency,
      status: 'succeeded' as const,
      reason: typeof params.reason === 'string' ? params.reason : null,
      metadata: { ...((params.metadata ?? {}) as Record<string, string>) },
      reverse_transfer: params.reverse_transfer === 'true' || params.reverse_transfer === true,
      refund_application_fee: params.refund_application_fee === 'true' || params.refund_application_fee === true,
      created: this.nowSeconds(),
    };
    this.refunds.push(refund);
    return refund;
  }
}
