/**
 * `consulta firms …`: firms and their members. Thin: parse, call AccountsService, print.
 * Acts as the operator unless `--as EMAIL` names a user (see keys.commands.ts for exit codes).
 */
import type { MembershipChange } from '../domain/access/accounts.service.ts';
import type { FirmMember } from '../domain/access/types.ts';
import { normalizeEmail } from '../domain/identity/email-address.ts';
import { AccessUsageError, listValue, print, runAccessCommand, stringFlag, type AccessCommandContext } from './keys.commands.ts';

function memberJson(m: FirmMember): Record<string, unknown> {
  return { user_id: m.userId, email: m.email, name: m.name, role: m.role, permissions: m.permissions, created_at: m.createdAt };
}

function memberText(m: FirmMember): string {
  return `${m.email.padEnd(32)} ${m.role.padEnd(7)}${m.permissions.length ? ` ${m.permissions.join(', ')}` : ''}`;
}

function changeJson(change: MembershipChange): Record<string, unknown> {
  return {
    member: change.member ? memberJson(change.member) : null,
    keys_to_review: change.keysToReview,
    notified: change.notified,
  };
}

function changeText(change: MembershipChange): string {
  if (change.keysToReview.length === 0) return '';
  return [
    '',
    `They created ${change.keysToReview.length} firm key(s) that keep working:`,
    ...change.keysToReview.map((k) => `  ${k.prefix}…  ${k.name ? `"${k.name}"` : '(no name)'}  ${k.id}`),
    change.notified.length ? `Notified (stored and emailed): ${change.notified.join(', ')}` : 'No other owner or admin to notify.',
  ].join('\n');
}

function needArg(args: string[], index: number, usage: string): string {
  const value = args[index];
  if (value === undefined || value === '') throw new AccessUsageError(usage);
  return value;
}

const FIRMS_USAGE = 'firms create|members|add-member|set-role|set-permissions|remove-member (see consulta --help)';

/** `consulta firms <subcommand> …` */
export async function runFirmsCommand(ctx: AccessCommandContext): Promise<number> {
  const [sub, ...rest] = ctx.args;
  const { flags, json } = ctx;
  if (!sub) {
    process.stderr.write(`consulta: ${FIRMS_USAGE}\n`);
    return 2;
  }
  return runAccessCommand(ctx, async ({ accounts }, actor) => {
    switch (sub) {
      case 'create': {
        const usage = 'firms create SLUG --name N --owner EMAIL';
        const slug = needArg(rest, 0, usage);
        const name = stringFlag(flags, 'name');
        const ownerEmail = stringFlag(flags, 'owner');
        if (name === undefined || ownerEmail === undefined) throw new AccessUsageError(usage);
        const { firm, owner } = await accounts.createFirm(actor, { slug, name, ownerEmail });
        print(
          json,
          { id: firm.id, slug: firm.slug, name: firm.name, created_at: firm.createdAt, owner: memberJson(owner) },
          `Created firm ${firm.slug} (${firm.name}), id ${firm.id}; owner ${owner.email}`,
        );
        return 0;
      }
      case 'members': {
        const slug = needArg(rest, 0, 'firms members SLUG');
        const members = await accounts.listMembers(actor, slug);
        print(json, { slug, members: members.map(memberJson) }, members.map(memberText).join('\n'));
        return 0;
      }
      case 'add-member': {
        const usage = 'firms add-member SLUG EMAIL --role owner|admin|member [--permissions p,q]';
        const slug = needArg(rest, 0, usage);
        const email = needArg(rest, 1, usage);
        const role = stringFlag(flags, 'role');
        if (role === undefined) throw new AccessUsageError(usage);
        const permissions = stringFlag(flags, 'permissions');
        const member = await accounts.addMember(actor, slug, email, role, permissions === undefined ? [] : listValue(permissions));
        print(json, { slug, member: memberJson(member) }, `Added to ${slug}: ${memberText(member)}`);
        return 0;
      }
      case 'set-role': {
        const usage = 'firms set-role SLUG EMAIL ROLE';
        const slug = needArg(rest, 0, usage);
        const email = needArg(rest, 1, usage);
        const change = await accounts.setRole(actor, slug, email, needArg(rest, 2, usage));
        print(json, { slug, ...changeJson(change) }, `${change.member ? `In ${slug}: ${memberText(change.member)}` : ''}${changeText(change)}`);
        return 0;
      }
      case 'set-permissions': {
        const usage = 'firms set-permissions SLUG EMAIL [p,q]   (no list: none)';
        const slug = needArg(rest, 0, usage);
        const email = needArg(rest, 1, usage);
        const member = await accounts.setPermissions(actor, slug, email, rest[2] === undefined ? [] : listValue(rest[2]));
        print(json, { slug, member: memberJson(member) }, `In ${slug}: ${memberText(member)}`);
        return 0;
      }
      case 'remove-member': {
        const usage = 'firms remove-member SLUG EMAIL';
        const slug = needArg(rest, 0, usage);
        const email = needArg(rest, 1, usage);
        const change = await accounts.removeMember(actor, slug, email);
        const removed = normalizeEmail(email);
        print(json, { slug, removed, ...changeJson(change) }, `Removed ${removed} from ${slug}.${changeText(change)}`);
        return 0;
      }
      default:
        throw new AccessUsageError(`unknown firms command "${sub}"; ${FIRMS_USAGE}`);
    }
  });
}
