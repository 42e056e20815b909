/**
 * Firm pages: my firms and the creation form, a firm's overview (my standing, the "key creator
 * left" notifications), its members with their roles and permissions, invitations, removing a
 * member, leaving, and the page an invitation link opens. They render what the routes hand them.
 */
import type { ComponentChildren } from 'preact';
import type { Firm, FirmStanding, KeyCreatorNotice } from '../../domain/access/accounts.service.ts';
import type { InvitationView, PendingInvitation } from '../../domain/access/firm-invitations.service.ts';
import { FIRM_PERMISSIONS, type FirmMember, type FirmPermission, type FirmRole } from '../../domain/access/types.ts';
import { formatInstant } from '../../i18n/format.ts';
import type { SiteContext } from '../context.ts';
import { Field, Notice, PostForm, Select } from '../ui/components.tsx';
import { DashboardLayout, FirmTabs, type FirmTab } from '../ui/dashboard.tsx';
import { Layout } from '../ui/layout.tsx';

const when = (ctx: SiteContext, iso: string) => formatInstant(iso, 'Europe/Madrid', ctx.locale);
const firmBase = (slug: string) => `/firms/${encodeURIComponent(slug)}`;

type Flash = { kind: 'ok' | 'bad'; text: string } | null | undefined;

function FlashNotice({ flash }: { flash: Flash }) {
  if (!flash) return null;
  return (
    <Notice kind={flash.kind} role={flash.kind === 'ok' ? 'status' : 'alert'}>
      {flash.text}
    </Notice>
  );
}

function ErrorText({ id, text }: { id: string; text?: string | undefined }) {
  return text ? <span class="field-error" id={id}>{text}</span> : null;
}

/** One firm's page frame: the dashboard, the firm's name and its tabs. */
function FirmFrame({ ctx, firm, tab, title, children }: { ctx: SiteContext; firm: Firm; tab: FirmTab | null; title: string; children: ComponentChildren }) {
  return (
    <DashboardLayout ctx={ctx} title={title} current="firms">
      <p class="firm-name">{firm.name}</p>
      {tab ? <FirmTabs ctx={ctx} slug={firm.slug} current={tab} /> : null}
      {children}
    </DashboardLayout>
  );
}

// ── /firms ──

export interface CreateFirmForm {
  name: string;
  slug: string;
  errors: Partial<Record<'name' | 'slug', string>>;
}

export const emptyCreateFirmForm = (): CreateFirmForm => ({ name: '', slug: '', errors: {} });

export function FirmsListPage({
  ctx,
  firms,
  form,
  flash,
}: {
  ctx: SiteContext;
  firms: Array<Firm & { role: FirmRole }>;
  form: CreateFirmForm;
  flash?: Flash;
}) {
  const t = ctx.t.firms;
  const hasErrors = Object.keys(form.errors).length > 0;
  return (
    <DashboardLayout ctx={ctx} title={t.title} current="firms">
      <h1>{t.title}</h1>
      <FlashNotice flash={flash} />
      <p>{t.intro}</p>
      {firms.length === 0 ? (
        <p>{t.none}</p>
      ) : (
        <ul class="cards firm-list">
          {firms.map((f) => (
            <li class="card">
              <h2 class="key-title">
                <a href={firmBase(f.slug)}>{f.name}</a>
              </h2>
              <dl class="facts">
                <dt>{t.slugLabel}</dt>
                <dd class="mono">{f.slug}</dd>
                <dt>{t.myRole}</dt>
                <dd>
                  <span class="badge">{t.roles[f.role]}</span>
                </dd>
              </dl>
            </li>
          ))}
        </ul>
      )}
      <h2 id="create">{t.createHeading}</h2>
      <p>{t.createIntro}</p>
      {hasErrors ? <Notice kind="bad" role="alert">{t.fixErrors}</Notice> : null}
      <PostForm ctx={ctx} action="/firms" once>
        <Field name="name" label={t.name} value={form.name} error={form.errors.name} maxLength={200} required autocomplete="organization" />
        <Field name="slug" label={t.slug} value={form.slug} error={form.errors.slug} hint={t.slugHint} maxLength={63} required autocomplete="off" pattern="[a-z0-9]+(-[a-z0-9]+)*" />
        <button type="submit">{t.create}</button>
      </PostForm>
    </DashboardLayout>
  );
}

// ── /firms/:slug ──

function PermissionList({ ctx, permissions }: { ctx: SiteContext; permissions: readonly FirmPermission[] }) {
  const t = ctx.t.firms;
  return (
    <ul class="permission-list">
      {permissions.map((p) => (
        <li>
          <strong>{t.permissionNames[p]}</strong> <code>{p}</code>
          <br />
          <span class="hint">{t.permissionHelp[p]}</span>
        </li>
      ))}
    </ul>
  );
}

export function FirmOverviewPage({
  ctx,
  firm,
  standing,
  notices,
  flash,
}: {
  ctx: SiteContext;
  firm: Firm;
  standing: FirmStanding;
  /** Null when this person does not see notifications (a member). */
  notices: KeyCreatorNotice[] | null;
  flash?: Flash;
}) {
  const t = ctx.t.firms;
  const base = firmBase(firm.slug);
  const allByRole = standing.kind === 'operator' || standing.role !== 'member';
  return (
    <FirmFrame ctx={ctx} firm={firm} tab="overview" title={t.overviewTitle(firm.name)}>
      <h1>{t.overviewTitle(firm.name)}</h1>
      <FlashNotice flash={flash} />
      <dl class="facts">
        <dt>{t.slugLabel}</dt>
        <dd class="mono">{firm.slug}</dd>
        <dt>{t.createdLabel}</dt>
        <dd>{when(ctx, firm.createdAt)}</dd>
        <dt>{t.myRole}</dt>
        <dd>{standing.kind === 'operator' ? t.operatorStanding : <span class="badge">{t.roles[standing.role]}</span>}</dd>
      </dl>
      <h2>{t.yourPermissions}</h2>
      {allByRole ? (
        <>
          <p>{t.allByRole}</p>
          <PermissionList ctx={ctx} permissions={FIRM_PERMISSIONS} />
        </>
      ) : standing.kind === 'member' && standing.permissions.length > 0 ? (
        <PermissionList ctx={ctx} permissions={standing.permissions} />
      ) : (
        <p>{t.noPermissions}</p>
      )}
      {notices ? (
        <section aria-labelledby="notices-heading">
          <h2 id="notices-heading">{t.noticesHeading}</h2>
          <p>{t.noticesIntro}</p>
          {notices.length === 0 ? (
            <p>{t.noNotices}</p>
          ) : (
            <ul class="cards notice-list">
              {notices.map((n) => (
                <li class="card">
                  <p>
                    <strong>
                      {n.kind === 'firm_key_creator_left'
                        ? t.noticeLeft(n.email)
                        : t.noticeRoleChanged(n.email, n.oldRole ? t.roles[n.oldRole] : '?', n.newRole ? t.roles[n.newRole] : '?')}
                    </strong>
                  </p>
                  <p class="meta">{when(ctx, n.createdAt)}</p>
                  <p>{t.noticeKeys(n.keys.length)}</p>
                  <ul>
                    {n.keys.map((k) => (
                      <li>
                        <a class="mono" href={`${base}/keys/${encodeURIComponent(k.id)}`}>{k.prefix}…</a> {k.name ?? ctx.t.keys.unnamed} ({k.mode === 'test' ? ctx.t.keys.test : ctx.t.keys.live})
                      </li>
                    ))}
                  </ul>
                </li>
              ))}
            </ul>
          )}
        </section>
      ) : null}
      {standing.kind === 'member' ? (
        <p class="actions">
          <a class="button secondary" href={`${base}/leave`}>{t.leaveLink}</a>
        </p>
      ) : null}
    </FirmFrame>
  );
}

// ── /firms/:slug/members ──

/** What the viewer may do to one member (decided by the domain's rule, passed in by the route). */
export interface MemberRow {
  member: FirmMember;
  self: boolean;
  /** Roles the viewer may give this member (empty: no role form). */
  roles: FirmRole[];
  canSetPermissions: boolean;
  canRemove: boolean;
}

export interface InviteForm {
  email: string;
  role: string;
  permissions: string[];
  errors: Partial<Record<'email' | 'role' | 'permissions', string>>;
}

export const emptyInviteForm = (): InviteForm => ({ email: '', role: 'member', permissions: [], errors: {} });

export interface MembersPageProps {
  ctx: SiteContext;
  firm: Firm;
  rows: MemberRow[];
  /** Null when the viewer may not invite (nor see invitations). */
  invitations: { pending: PendingInvitation[]; roles: FirmRole[]; form: InviteForm } | null;
  flash?: Flash;
}

export function MembersPage({ ctx, firm, rows, invitations, flash }: MembersPageProps) {
  const t = ctx.t.firms;
  const base = firmBase(firm.slug);
  return (
    <FirmFrame ctx={ctx} firm={firm} tab="members" title={t.membersTitle(firm.name)}>
      <h1>{t.membersTitle(firm.name)}</h1>
      <FlashNotice flash={flash} />
      <ul class="cards member-list">
        {rows.map((row) => (
          <MemberCard ctx={ctx} base={base} row={row} />
        ))}
      </ul>
      {invitations ? <Invitations ctx={ctx} base={base} {...invitations} /> : null}
    </FirmFrame>
  );
}

function MemberCard({ ctx, base, row }: { ctx: SiteContext; base: string; row: MemberRow }) {
  const t = ctx.t.firms;
  const { member } = row;
  const url = `${base}/members/${encodeURIComponent(member.userId)}`;
  const id = member.userId;
  return (
    <li class="card">
      <h2 class="key-title">
        {member.name ? `${member.name} · ` : ''}
        {member.email} {row.self ? <span class="meta">{t.you}</span> : null} <span class="badge">{t.roles[member.role]}</span>
      </h2>
      <dl class="facts">
        <dt>{t.permissionsLabel}</dt>
        <dd>{member.role !== 'member' ? t.allByRole : member.permissions.length > 0 ? member.permissions.map((p) => t.permissionNames[p]).join(', ') : '—'}</dd>
        <dt>{t.joinedLabel}</dt>
        <dd>{when(ctx, member.createdAt)}</dd>
      </dl>
      {row.roles.length > 0 ? (
        <PostForm ctx={ctx} action={`${url}/role`} class="key-choice">
          <div class="field">
            <label for={`role-${id}`}>{t.roleFor(member.email)}</label>
            <select id={`role-${id}`} name="role">
              {row.roles.map((r) => (
                <option value={r} selected={r === member.role}>
                  {t.roles[r]}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" class="secondary">{t.changeRole}</button>
        </PostForm>
      ) : null}
      {row.canSetPermissions ? (
        <PostForm ctx={ctx} action={`${url}/permissions`}>
          <fieldset>
            <legend>{t.permissionsLegend(member.email)}</legend>
            <div class="checks">
              {FIRM_PERMISSIONS.map((p) => (
                <label>
                  <input type="checkbox" name="permissions" value={p} checked={member.permissions.includes(p)} /> {t.permissionNames[p]}
                </label>
              ))}
            </div>
            <button type="submit" class="secondary">{t.savePermissions}</button>
          </fieldset>
        </PostForm>
      ) : null}
      <p class="actions">
        {row.canRemove && !row.self ? (
          <a class="button danger" href={`${url}/remove`}>{t.remove}</a>
        ) : null}
        {row.self ? (
          <a class="button secondary" href={`${base}/leave`}>{t.leaveLink}</a>
        ) : null}
      </p>
    </li>
  );
}

function Invitations({ ctx, base, pending, roles, form }: { ctx: SiteContext; base: string; pending: PendingInvitation[]; roles: FirmRole[]; form: InviteForm }) {
  const t = ctx.t.firms;
  const e = form.errors;
  return (
    <>
      <h2>{t.invitationsHeading}</h2>
      {pending.length === 0 ? (
        <p>{t.noInvitations}</p>
      ) : (
        <ul class="cards invitation-list">
          {pending.map((inv) => (
            <li class="card">
              <h3 class="key-title">
                {inv.email} <span class="badge">{t.roles[inv.role]}</span>
              </h3>
              <dl class="facts">
                {inv.role === 'member' ? (
                  <>
                    <dt>{t.permissionsLabel}</dt>
                    <dd>{inv.permissions.length > 0 ? inv.permissions.map((p) => t.permissionNames[p]).join(', ') : '—'}</dd>
                  </>
                ) : null}
                <dt>{t.invitedBy}</dt>
                <dd>{inv.invitedBy ?? t.theOperator}</dd>
                <dt>{t.expiresLabel}</dt>
                <dd>{when(ctx, inv.expiresAt)}</dd>
              </dl>
              <PostForm ctx={ctx} action={`${base}/invitations/${encodeURIComponent(inv.id)}/revoke`}>
                <button type="submit" class="secondary">{t.revokeInvitation}</button>
              </PostForm>
            </li>
          ))}
        </ul>
      )}
      <h2 id="invite">{t.inviteHeading}</h2>
      <p>{t.inviteIntro}</p>
      {Object.keys(e).length > 0 ? <Notice kind="bad" role="alert">{t.fixErrors}</Notice> : null}
      <PostForm ctx={ctx} action={`${base}/invitations`} once>
        <Field name="email" type="email" label={t.email} value={form.email} error={e.email} maxLength={254} required autocomplete="off" inputmode="email" />
        <Select name="role" label={t.role} value={form.role} error={e.role} options={roles.map((r) => ({ value: r, label: t.roles[r] }))} />
        <fieldset aria-describedby={e.permissions ? 'f-permissions-hint f-permissions-error' : 'f-permissions-hint'}>
          <legend>{t.invitePermissions}</legend>
          <span class="hint" id="f-permissions-hint">{t.invitePermissionsHint}</span>
          <div class="checks">
            {FIRM_PERMISSIONS.map((p) => (
              <label>
                <input type="checkbox" name="permissions" value={p} checked={form.permissions.includes(p)} /> {t.permissionNames[p]}
              </label>
            ))}
          </div>
          <ErrorText id="f-permissions-error" text={e.permissions} />
        </fieldset>
        <button type="submit">{t.sendInvitation}</button>
      </PostForm>
    </>
  );
}

// ── remove a member, leave ──

export function RemoveMemberPage({ ctx, firm, member, error }: { ctx: SiteContext; firm: Firm; member: FirmMember; error?: string }) {
  const t = ctx.t.firms;
  const base = firmBase(firm.slug);
  return (
    <FirmFrame ctx={ctx} firm={firm} tab="members" title={t.removeTitle}>
      <h1>{t.removeTitle}</h1>
      {error ? <Notice kind="bad" role="alert">{error}</Notice> : null}
      <p>{t.removeIntro(member.email, firm.name)}</p>
      <p>{t.keysKeepWorking}</p>
      <PostForm ctx={ctx} action={`${base}/members/${encodeURIComponent(member.userId)}/remove`} once>
        <div class="actions">
          <button type="submit" class="danger">{t.remove}</button>
          <a href={`${base}/members`}>{t.cancel}</a>
        </div>
      </PostForm>
    </FirmFrame>
  );
}

export function LeaveFirmPage({ ctx, firm, error }: { ctx: SiteContext; firm: Firm; error?: string }) {
  const t = ctx.t.firms;
  const base = firmBase(firm.slug);
  return (
    <FirmFrame ctx={ctx} firm={firm} tab={null} title={t.leaveTitle}>
      <h1>{t.leaveTitle}</h1>
      {error ? <Notice kind="bad" role="alert">{error}</Notice> : null}
      <p>{t.leaveIntro(firm.name)}</p>
      <p>{t.keysKeepWorking}</p>
      <PostForm ctx={ctx} action={`${base}/leave`} once>
        <div class="actions">
          <button type="submit" class="danger">{t.leave}</button>
          <a href={base}>{t.cancel}</a>
        </div>
      </PostForm>
    </FirmFrame>
  );
}

// ── /firms/invitations/:token ──

/** What an invitation link shows; `sender_cannot` comes only from a refused acceptance. */
export type InvitationPageView = InvitationView | { kind: 'sender_cannot'; firm: Firm };

export function InvitationPage({ ctx, token, view }: { ctx: SiteContext; token: string; view: InvitationPageView }) {
  const t = ctx.t.firms;
  const me = ctx.user?.email ?? '';
  switch (view.kind) {
    case 'wrong_account':
      return (
        <Layout ctx={ctx} title={t.wrongAccountTitle} narrow>
          <h1>{t.wrongAccountTitle}</h1>
          <p>{t.wrongAccount(view.invitedEmail, me)}</p>
          <PostForm ctx={ctx} action="/sign-out">
            <button type="submit" class="secondary">{t.signOut}</button>
          </PostForm>
        </Layout>
      );
    case 'closed':
    case 'sender_cannot':
      return (
        <Layout ctx={ctx} title={t.closedTitle} narrow>
          <h1>{t.closedTitle}</h1>
          <p>{view.kind === 'closed' ? t.closed[view.reason] : t.senderCannot}</p>
          <p>
            <a class="button secondary" href="/firms">{t.title}</a>
          </p>
        </Layout>
      );
    case 'already_member':
      return (
        <Layout ctx={ctx} title={t.alreadyMemberTitle} narrow>
          <h1>{t.alreadyMemberTitle}</h1>
          <p>{t.alreadyMember(view.firm.name)}</p>
          <p>
            <a class="button" href={firmBase(view.firm.slug)}>{t.goToFirm}</a>
          </p>
        </Layout>
      );
    case 'open':
      return (
        <Layout ctx={ctx} title={t.invitationTitle} narrow>
          <h1>{t.invitationTitle}</h1>
          <p>{t.invitationIntro(view.invitedBy ?? t.mail.theOperator, view.firm.name)}</p>
          <p>
            <strong>{t.invitationRole(t.roles[view.role])}</strong>
          </p>
          {view.role === 'member' && view.permissions.length > 0 ? <PermissionList ctx={ctx} permissions={view.permissions} /> : null}
          <p>{t.invitationExpires(when(ctx, view.expiresAt))}</p>
          <PostForm ctx={ctx} action={`/firms/invitations/${encodeURIComponent(token)}/accept`} once>
            <button type="submit" class="wide">{t.accept}</button>
          </PostForm>
        </Layout>
      );
  }
}
