/**
 * `consulta webhooks …`. Thin: parse, call WebhookEndpointsService, print. Acts as the operator
 * unless `--as EMAIL` names a user. Exit codes: 0 ok, 1 refused or failed (including a test send
 * whose attempt failed), 2 usage error (including values the service rejects as invalid_request).
 */
import pino from 'pino';
import { systemClock } from '../clock.ts';
import { Notifier } from '../domain/notify/notifier.ts';
import { WebhookDispatcher } from '../domain/webhooks/dispatcher.ts';
import { WebhookEndpointsService, type EndpointOwnerRef } from '../domain/webhooks/endpoints.service.ts';
import type { WebhookAttempt, WebhookEndpoint } from '../domain/webhooks/types.ts';
import { AccessUsageError, listValue, print, runAccessCommand, stringFlag, type AccessCommandContext } from './keys.commands.ts';

const USAGE = 'webhooks add|list|show|rotate-secret|enable|disable|test|deliveries|retry (see consulta --help)';

/** An endpoint as the CLI prints it with --json (snake_case; never the secret). */
export function endpointJson(e: WebhookEndpoint): Record<string, unknown> {
  return {
    id: e.id,
    owner: e.owner,
    url: e.url,
    event_types: e.eventTypes,
    enabled: e.enabled,
    disabled: e.disabled,
    consecutive_failures: e.consecutiveFailures,
    previous_secret_expires_at: e.previousSecretExpiresAt,
    pending_messages: e.pendingMessages,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  };
}

function attemptJson(a: WebhookAttempt): Record<string, unknown> {
  return {
    webhook_id: a.messageId,
    event_id: a.eventId,
    event_type: a.eventType,
    attempt: a.attempt,
    attempted_at: a.attemptedAt,
    duration_ms: a.durationMs,
    status_code: a.statusCode,
    success: a.success,
    error: a.error,
    response_body: a.responseBody,
    message_status: a.messageStatus,
    next_attempt_at: a.nextAttemptAt,
  };
}

function ownerText(e: WebhookEndpoint): string {
  return e.owner.type === 'user' ? `user ${e.owner.email}` : `firm ${e.owner.slug}`;
}

function statusText(e: WebhookEndpoint): string {
  return e.disabled ? `disabled (${e.disabled.cause}: ${e.disabled.reason})` : 'enabled';
}

function endpointText(e: WebhookEndpoint): string {
  const rows: Array<[string, string]> = [
    ['id', e.id],
    ['url', e.url],
    ['owner', ownerText(e)],
    ['events', e.eventTypes ? e.eventTypes.join(', ') : 'all'],
    ['status', statusText(e)],
    ['failures', `${e.consecutiveFailures} consecutive`],
    ['waiting', `${e.pendingMessages} undelivered messages`],
    ['created', e.createdAt],
  ];
  if (e.previousSecretExpiresAt) rows.push(['rotation', `previous secret also signs until ${e.previousSecretExpiresAt}`]);
  return rows.map(([k, v]) => `${k.padEnd(10)}${v}`).join('\n');
}

function needId(args: string[], command: string): string {
  const id = args[0];
  if (id === undefined || id === '') throw new AccessUsageError(`webhooks ${command} needs an endpoint ID`);
  return id;
}

function secretText(verb: string, e: WebhookEndpoint, secret: string, extra: string[] = []): string {
  return [
    verb,
    '',
    'Signing secret — shown this once, it cannot be recovered. Store it with your receiver now:',
    '',
    `  ${secret}`,
    '',
    ...extra,
    endpointText(e),
  ].join('\n');
}

/** `consulta webhooks <subcommand> …` */
export async function runWebhooksCommand(ctx: AccessCommandContext): Promise<number> {
  const [sub, ...rest] = ctx.args;
  const { flags, json, config, database } = ctx;
  if (!sub) {
    process.stderr.write(`consulta: ${USAGE}\n`);
    return 2;
  }
  return runAccessCommand(ctx, async (services, actor) => {
    const logger = pino({ level: config.logLevel === 'silent' ? 'silent' : 'info', base: undefined }, pino.destination(2));
    // `webhooks test` makes its first attempt from this process, with the same rules as `serve`.
    const dispatcher = new WebhookDispatcher({
      database,
      clock: systemClock,
      config,
      notifier: new Notifier({ database, mailer: services.mailer, clock: systemClock, logger }),
      logger,
    });
    const webhooks = new WebhookEndpointsService({ database, clock: systemClock, config, accounts: services.accounts, dispatcher });
    const show = (e: WebhookEndpoint, verb: string) => {
      print(json, endpointJson(e), `${verb ? `${verb}\n` : ''}${endpointText(e)}`);
      return 0;
    };
    try {
      switch (sub) {
        case 'add': {
          const ownerEmail = stringFlag(flags, 'owner');
          const firmSlug = stringFlag(flags, 'firm');
          if (ownerEmail !== undefined && firmSlug !== undefined) throw new AccessUsageError('webhooks add takes --owner EMAIL or --firm SLUG, not both');
          const url = stringFlag(flags, 'url');
          if (url === undefined) throw new AccessUsageError('webhooks add needs --url URL');
          const events = stringFlag(flags, 'events');
          const owner: EndpointOwnerRef | null = firmSlug !== undefined ? { firmSlug } : ownerEmail !== undefined ? { ownerEmail } : null;
          const { endpoint, secret } = await webhooks.create(actor, owner, { url, eventTypes: events === undefined ? null : listValue(events) });
          print(json, { ...endpointJson(endpoint), secret }, secretText(`Added webhook endpoint ${endpoint.id} for ${ownerText(endpoint)}.`, endpoint, secret));
          return 0;
        }
        case 'list': {
          const endpoints = await webhooks.list(actor, { ownerEmail: stringFlag(flags, 'owner'), firmSlug: stringFlag(flags, 'firm') });
          const lines = endpoints.map((e) => [e.id, (e.enabled ? 'enabled' : 'disabled').padEnd(8), ownerText(e), e.url].join('  '));
          print(json, { endpoints: endpoints.map(endpointJson) }, endpoints.length ? lines.join('\n') : 'no webhook endpoints');
          return 0;
        }
        case 'show':
          return show(await webhooks.get(actor, needId(rest, 'show')), '');
        case 'rotate-secret': {
          const { endpoint, secret } = await webhooks.rotateSecret(actor, needId(rest, 'rotate-secret'));
          print(
            json,
            { ...endpointJson(endpoint), secret },
            secretText('New signing secret issued.', endpoint, secret, [
              `For 24 hours (until ${endpoint.previousSecretExpiresAt}) every message is signed with both the old and the new secret;`,
              'switch your receiver to the new one within that time.',
              '',
            ]),
          );
          return 0;
        }
        case 'enable':
          return show(await webhooks.enable(actor, needId(rest, 'enable')), 'Enabled: waiting messages are due now, new events are delivered.');
        case 'disable': {
          const id = needId(rest, 'disable');
          const reason = stringFlag(flags, 'reason');
          if (reason === undefined) throw new AccessUsageError('webhooks disable needs --reason R');
          return show(await webhooks.disable(actor, id, reason), 'Disabled: messages wait until the endpoint is enabled again.');
        }
        case 'test':
        case 'retry': {
          let sent: Awaited<ReturnType<typeof webhooks.sendTest>>;
          if (sub === 'test') sent = await webhooks.sendTest(actor, needId(rest, 'test'));
          else {
            const messageId = rest[1];
            if (messageId === undefined || messageId === '') throw new AccessUsageError('webhooks retry needs an endpoint ID and a message ID (msg_…, from webhooks deliveries)');
            sent = await webhooks.retryMessage(actor, needId(rest, 'retry'), messageId);
          }
          const what = sub === 'test' ? 'test message' : 'message';
          const a = sent.attempt;
          const data = {
            webhook_id: sent.messageId,
            attempt: a && {
              attempt: a.attempt,
              success: a.success,
              status_code: a.statusCode,
              duration_ms: a.durationMs,
              error: a.error,
              response_body: a.responseBody,
              message_status: a.messageStatus,
              next_attempt_at: a.nextAttemptAt,
              disabled_endpoint: a.disabledEndpoint,
            },
          };
          const attemptNo = a && sub === 'retry' ? ` (attempt ${a.attempt})` : '';
          const text = !a
            ? `Queued ${what} ${sent.messageId}.`
            : a.success
              ? `Delivered ${what} ${sent.messageId}${attemptNo}: HTTP ${a.statusCode} in ${a.durationMs} ms.`
              : `${what[0]!.toUpperCase()}${what.slice(1)} ${sent.messageId}${attemptNo} failed: ${a.error ?? 'no response'} (${a.durationMs} ms).${a.nextAttemptAt ? ` Next attempt at ${a.nextAttemptAt}.` : a.messageStatus === 'dead' ? ' It is dead again.' : ''}`;
          print(json, data, text);
          return a && !a.success ? 1 : 0;
        }
        case 'deliveries': {
          const id = needId(rest, 'deliveries');
          const rawLimit = stringFlag(flags, 'limit');
          if (rawLimit !== undefined && !/^\d+$/.test(rawLimit)) throw new AccessUsageError('--limit expects a whole number');
          const attempts = await webhooks.deliveries(actor, id, rawLimit === undefined ? undefined : Number(rawLimit));
          const lines = attempts.map((a) =>
            [a.attemptedAt, a.messageId, a.eventType.padEnd(24), `#${a.attempt}`, (a.statusCode === null ? '---' : String(a.statusCode)).padEnd(3), `${a.durationMs} ms`.padStart(8), a.success ? 'ok' : (a.error ?? 'failed'), `(${a.messageStatus})`].join('  '),
          );
          print(json, { deliveries: attempts.map(attemptJson) }, attempts.length ? lines.join('\n') : 'no delivery attempts yet');
          return 0;
        }
        default:
          throw new AccessUsageError(`unknown webhooks command "${sub}"; ${USAGE}`);
      }
    } finally {
      await dispatcher.stop();
    }
  });
}
