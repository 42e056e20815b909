/**
 * API keys (live and test, scopes, expiry, the secret shown once), for a person
 * (`/developer/keys`) and for a firm (`/firms/:slug/keys`, with IP allow-lists and suspension).
 * Every rule — who may see or change a key, validation, who lifts which suspension — is
 * KeysService's; these routes read forms, call it and pick pages.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { h } from 'preact';
import { keyStatus } from '../../domain/access/api-key.ts';
import type { ApiKeyRecord, Actor } from '../../domain/access/types.ts';
import { DomainError } from '../../domain/errors.ts';
import type { Messages } from '../../i18n/index.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { requireUser } from '../guards.ts';
import { CreatedKeyPage, KeyDetailPage, KeysListPage, NewKeyPage, RevokeKeyPage, emptyKeyForm, type KeyDetailState, type KeyForm, type KeyRow, type KeysOwner } from './keys.page.tsx';

type Body = Record<string, unknown>;
type KeysText = Messages['keys'];
const text = (v: unknown, max = 1000): string => (typeof v === 'string' ? v.slice(0, max) : '');
const list = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : []);

/** Allow-list text as typed (lines or commas) → entries; empty → null (any address). */
export function parseAllowList(raw: string): string[] | null {
  const entries = raw.split(/[\s,]+/).map((e) => e.trim()).filter(Boolean).slice(0, 200);
  return entries.length > 0 ? entries : null;
}

/** The field errors of a refused key, in the page's language, by form field. */
function formErrors(err: DomainError, t: KeysText, allowEntries: string[] | null): KeyForm['errors'] {
  const out: KeyForm['errors'] = {};
  for (const e of err.errors ?? []) {
    const p = e.pointer;
    if (p.startsWith('/mode')) out.mode = t.errMode;
    else if (p.startsWith('/name')) out.name = t.errName;
    else if (p.startsWith('/scopes')) out.scopes = t.errScopes;
    else if (p.startsWith('/expires_at')) out.expires = t.errExpires;
    else if (p.startsWith('/allowed_ips')) {
      const index = Number(p.split('/')[2]);
      const entry = Number.isInteger(index) ? allowEntries?.[index] : undefined;
      out.allowList = [out.allowList, entry !== undefined ? t.errAllowEntry(entry) : t.errAllowList].filter(Boolean).join(' ');
    }
  }
  if (Object.keys(out).length === 0) out.name = err.message;
  return out;
}

export function keysArea({ keys, accounts, clock, config }: DashboardDeps) {
  const actorOf = (userId: string): Actor => ({ type: 'user', userId });

  /** Whose keys this URL is about; a firm the person is not a member of is not found. */
  const ownerOf = async (request: FastifyRequest, actor: Actor): Promise<KeysOwner> => {
    const slug = (request.params as { slug?: string }).slug;
    if (slug === undefined) return { kind: 'user', base: '/developer' };
    const firm = await accounts.getFirm(actor, slug);
    return { kind: 'firm', base: `/firms/${encodeURIComponent(firm.slug)}`, slug: firm.slug, name: firm.name };
  };

  const belongs = (key: ApiKeyRecord, owner: KeysOwner, userId: string) =>
    owner.kind === 'user' ? key.owner.type === 'user' && key.owner.userId === userId : key.owner.type === 'firm' && key.owner.slug === owner.slug;

  const rowsOf = async (records: ApiKeyRecord[], owner: KeysOwner): Promise<KeyRow[]> => {
    const lastUsed = await keys.lastUsed(records);
    const now = clock.now();
    const creators = new Map<string, string | null>();
    if (owner.kind === 'firm') {
      for (const id of new Set(records.map((k) => k.createdByUserId).filter((x): x is string => x !== null))) {
        creators.set(id, (await accounts.findUserById(id))?.email ?? null);
      }
    }
    return records.map((key) => ({ key, status: keyStatus(key, now), lastUsed: lastUsed.get(key.id) ?? null, createdBy: key.createdByUserId ? creators.get(key.createdByUserId) ?? null : null }));
  };

  /** The key named in the URL, if it is this owner's and the person may see it; 404 otherwise. */
  const keyOf = async (request: FastifyRequest, actor: Actor, owner: KeysOwner, userId: string): Promise<KeyRow> => {
    const id = (request.params as { id: string }).id;
    const key = await keys.get(actor, id);
    if (!belongs(key, owner, userId)) throw new DomainError('not_found', `no key ${id}`);
    return (await rowsOf([key], owner))[0]!;
  };

  const signedIn = (request: FastifyRequest, reply: FastifyReply) => {
    const user = requireUser(request, reply);
    return user ? { user, actor: actorOf(user.id) } : null;
  };

  return async (site: FastifyInstance) => {
    for (const base of ['/developer', '/firms/:slug']) {
      site.get(`${base}/keys`, { schema: { hide: true } }, async (request, reply) => {
        const me = signedIn(request, reply);
        if (!me) return reply;
        const owner = await ownerOf(request, me.actor);
        const records = await keys.list(me.actor, owner.kind === 'firm' ? { firmSlug: owner.slug } : {});
        return reply.page(h(KeysListPage, { ctx: request.site, owner, rows: await rowsOf(records, owner) }));
      });

      site.get(`${base}/keys/new`, { schema: { hide: true } }, async (request, reply) => {
        const me = signedIn(request, reply);
        if (!me) return reply;
        const owner = await ownerOf(request, me.actor);
        // The same permission as listing them: a member who may not manage keys sees the 403 page here too.
        if (owner.kind === 'firm') await keys.list(me.actor, { firmSlug: owner.slug });
        const mode = (request.query as { mode?: unknown }).mode === 'live' ? 'live' : 'test';
        return reply.page(h(NewKeyPage, { ctx: request.site, owner, form: emptyKeyForm(mode) }));
      });

      site.post<{ Body: Body }>(`${base}/keys`, { schema: { hide: true } }, async (request, reply) => {
        const me = signedIn(request, reply);
        if (!me) return reply;
        const owner = await ownerOf(request, me.actor);
        const t = request.site.t.keys;
        const body = request.body ?? {};
        const form: KeyForm = {
          mode: text(body.mode, 10),
          name: text(body.name, 200),
          scopes: list(body.scopes).slice(0, 20),
          expires: text(body.expires, 20),
          allowList: owner.kind === 'firm' ? text(body.allow_list, 8000) : '',
          errors: {},
        };
        let expiresAt: string | null = null;
        if (form.expires !== '') {
          if (/^\d{4}-\d{2}-\d{2}$/.test(form.expires) && !Number.isNaN(Date.parse(`${form.expires}T23:59:59Z`))) expiresAt = `${form.expires}T23:59:59Z`;
          else form.errors.expires = t.errExpires;
        }
        const allowEntries = parseAllowList(form.allowList);
        if (form.errors.expires) return reply.page(h(NewKeyPage, { ctx: request.site, owner, form }), 400);
        try {
          const created = await keys.create(me.actor, owner.kind === 'firm' ? { firmSlug: owner.slug } : { ownerEmail: me.user.email }, {
            mode: form.mode as 'live' | 'test',
            name: form.name,
            scopes: form.scopes,
            expiresAt,
            allowedIps: allowEntries,
          });
          const [row] = await rowsOf([created.key], owner);
          // The secret is in this response only: never in a URL, a redirect or a later page.
          return reply.page(h(CreatedKeyPage, { ctx: request.site, owner, row: row!, token: created.token, apiBase: config.baseUrl }), 201);
        } catch (err) {
          if (!(err instanceof DomainError) || err.code !== 'invalid_request') throw err;
          form.errors = formErrors(err, t, allowEntries);
          return reply.page(h(NewKeyPage, { ctx: request.site, owner, form }), 400);
        }
      });

      site.get(`${base}/keys/:id`, { schema: { hide: true } }, async (request, reply) => {
        const me = signedIn(request, reply);
        if (!me) return reply;
        const owner = await ownerOf(request, me.actor);
        const t = request.site.t.keys;
        const done = (request.query as { done?: string }).done;
        const message = { revoked: t.revoked, suspended: t.suspended, unsuspended: t.unsuspended, 'allow-list': t.allowListSaved }[done ?? ''];
        const state: KeyDetailState = message ? { notice: { kind: 'ok', text: message } } : {};
        return reply.page(h(KeyDetailPage, { ctx: request.site, owner, row: await keyOf(request, me.actor, owner, me.user.id), state }));
      });

      site.get(`${base}/keys/:id/revoke`, { schema: { hide: true } }, async (request, reply) => {
        const me = signedIn(request, reply);
        if (!me) return reply;
        const owner = await ownerOf(request, me.actor);
        const row = await keyOf(request, me.actor, owner, me.user.id);
        if (row.key.revokedAt !== null) return reply.code(303).redirect(`${owner.base}/keys/${row.key.id}`);
        return reply.page(h(RevokeKeyPage, { ctx: request.site, owner, row }));
      });

      site.post<{ Body: Body }>(`${base}/keys/:id/revoke`, { schema: { hide: true } }, async (request, reply) => {
        const me = signedIn(request, reply);
        if (!me) return reply;
        const owner = await ownerOf(request, me.actor);
        const row = await keyOf(request, me.actor, owner, me.user.id);
        if (request.body?.confirm !== 'yes') return reply.page(h(RevokeKeyPage, { ctx: request.site, owner, row, error: request.site.t.keys.revokeConfirmMissing }), 400);
        await keys.revoke(me.actor, row.key.id);
        return reply.code(303).redirect(`${owner.base}/keys/${row.key.id}?done=revoked`);
      });
    }

    // Firm keys only: the IP allow-list and suspension by the firm.
    const firmAction = (
      path: string,
      act: (actor: Actor, key: ApiKeyRecord, body: Body, t: KeysText) => Promise<{ done: string } | KeyDetailState>,
    ) =>
      site.post<{ Body: Body }>(`/firms/:slug/keys/:id/${path}`, { schema: { hide: true } }, async (request, reply) => {
        const me = signedIn(request, reply);
        if (!me) return reply;
        const owner = await ownerOf(request, me.actor);
        const row = await keyOf(request, me.actor, owner, me.user.id);
        const t = request.site.t.keys;
        let outcome: { done: string } | KeyDetailState;
        try {
          outcome = await act(me.actor, row.key, request.body ?? {}, t);
        } catch (err) {
          if (!(err instanceof DomainError)) throw err;
          // The domain's refusals (an operator's suspension, a revoked key) are answers, not failures.
          if (err.code === 'forbidden' || err.code === 'conflict') {
            const text = row.key.revokedAt !== null ? t.revokedCannotChange : row.key.suspension?.by === 'operator' ? t.operatorSuspensionNote : t.refused;
            return reply.page(h(KeyDetailPage, { ctx: request.site, owner, row, state: { notice: { kind: 'bad', text } } }), err.code === 'forbidden' ? 403 : 409);
          }
          throw err;
        }
        if ('done' in outcome) return reply.code(303).redirect(`${owner.base}/keys/${row.key.id}?done=${outcome.done}`);
        return reply.page(h(KeyDetailPage, { ctx: request.site, owner, row, state: outcome }), 400);
      });

    firmAction('allow-list', async (actor, key, body, t) => {
      const raw = text(body.allow_list, 8000);
      const entries = parseAllowList(raw);
      try {
        await keys.setAllowList(actor, key.id, entries);
        return { done: 'allow-list' };
      } catch (err) {
        if (!(err instanceof DomainError) || err.code !== 'invalid_request') throw err;
        return { allowList: raw, allowListError: formErrors(err, t, entries).allowList ?? t.errAllowList };
      }
    });
    firmAction('suspend', async (actor, key, body, t) => {
      try {
        await keys.suspend(actor, key.id, text(body.reason, 600));
        return { done: 'suspended' };
      } catch (err) {
        if (!(err instanceof DomainError) || err.code !== 'invalid_request') throw err;
        return { reasonError: t.errReason };
      }
    });
    firmAction('unsuspend', async (actor, key) => {
      await keys.unsuspend(actor, key.id);
      return { done: 'unsuspended' };
    });
  };
}
