/**
 * One JSON-Schema validator configuration and one way of turning its errors into field errors,
 * shared by request validation (HTTP, MCP) and file imports, so every caller reads the same wording.
 */
import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsImport from 'ajv-formats';
import type { FieldError } from './errors.ts';

type AddFormats = (ajv: Ajv) => Ajv;
const addFormats: AddFormats =
  ((addFormatsImport as unknown as { default?: AddFormats }).default ?? (addFormatsImport as unknown as AddFormats));

export const AJV_OPTIONS: Options = {
  allErrors: true,
  removeAdditional: false,
  useDefaults: true,
  coerceTypes: 'array',
  verbose: true,
};

/** A configured Ajv (formats included). */
export function createAjv(options: Options = {}): Ajv {
  const ajv = new Ajv({ ...AJV_OPTIONS, ...options });
  addFormats(ajv);
  return ajv;
}

export { addFormats };

/**
 * How deeply a JSON body may nest arrays and objects: the body itself is level 1. Everything we
 * accept nests far less (an MCP message with its envelope, a passkey answer: 6 levels at most). The
 * bound is checked on the parsed value before any validation, because validators, cloning and
 * the MCP SDK's message schemas walk a value recursively, and a body of 64 KiB holds 30,000
 * levels: enough to exhaust the stack (issue 17).
 */
export const MAX_JSON_DEPTH = 32;

/** Whether a parsed JSON value nests arrays and objects deeper than `max` levels; iterative, so any depth is safe to check. */
export function exceedsJsonDepth(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  if (value === null || typeof value !== 'object') return false;
  const nodes: object[] = [value];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const depth = depths.pop()!;
    if (depth > max) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') {
        nodes.push(child as object);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

const FORMAT_WORDING: Record<string, string> = {
  date: 'must be a calendar date in YYYY-MM-DD format',
  'date-time': 'must be an RFC 3339 date-time, e.g. 2026-11-23T10:00:00Z',
  uuid: 'must be a UUID',
  uri: 'must be an absolute URI',
  email: 'must be an email address, e.g. name@example.com',
};

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Field errors for Ajv errors. `prefix` is where the validated value sits in the request
 * (`/query`, `/body`, `/params`, `/headers`), or '' for a record in a file.
 */
export function toFieldErrors(errors: readonly ErrorObject[], prefix: string): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    let pointer = `${prefix}${e.instancePath}`;
    let detail: string;
    switch (e.keyword) {
      case 'required':
        pointer = `${pointer}/${escapePointer(String(e.params.missingProperty))}`;
        detail = 'is required';
        break;
      case 'additionalProperties':
        pointer = `${pointer}/${escapePointer(String(e.params.additionalProperty))}`;
        detail = prefix === '/query' ? 'is not a known parameter' : 'is not a known field';
        break;
      case 'format':
        detail = FORMAT_WORDING[String(e.params.format)] ?? `must match format "${String(e.params.format)}"`;
        break;
      case 'pattern': {
        const description = (e.parentSchema as { description?: string } | undefined)?.description;
        detail = description ? `must be ${description}` : 'has an invalid format';
        break;
      }
      case 'type':
        detail = `must be ${String(e.params.type).replace(',', ' or ')}`;
        break;
      case 'enum':
        detail = `must be one of: ${(e.params.allowedValues as unknown[]).map(String).join(', ')}`;
        break;
      case 'maximum':
        detail = `must be at most ${String(e.params.limit)}`;
        break;
      case 'minimum':
        detail = `must be at least ${String(e.params.limit)}`;
        break;
      case 'maxLength':
        detail = `must be at most ${String(e.params.limit)} characters long`;
        break;
      case 'minLength':
        detail = Number(e.params.limit) === 1 ? 'must not be empty' : `must be at least ${String(e.params.limit)} characters long`;
        break;
      case 'maxItems':
        detail = `must have at most ${String(e.params.limit)} items`;
        break;
      case 'minItems':
        detail = `must have at least ${String(e.params.limit)} item${Number(e.params.limit) === 1 ? '' : 's'}`;
        break;
      case 'const':
        detail = `must be ${JSON.stringify(e.params.allowedValue)}`;
        break;
      case 'anyOf':
      case 'oneOf': {
        // Unions of literals (enums written as unions) get their allowed values listed.
        const variants = ((e.parentSchema as { anyOf?: Array<{ const?: unknown }> } | undefined)?.anyOf ?? []).map((s) => s.const);
        detail = variants.length > 0 && variants.every((v) => v !== undefined)
          ? `must be one of: ${variants.map(String).join(', ')}`
          : 'does not match any allowed shape';
        break;
      }
      default:
        detail = e.message ?? 'is invalid';
    }
    // A union failure also reports each branch; keep the most useful line per field.
    const key = pointer;
    if (seen.has(key)) {
      // A union of literals reads best as its list of values; otherwise the first branch's
      // error (e.g. a nullable date's format) is more useful than "does not match any shape".
      if ((e.keyword === 'anyOf' || e.keyword === 'oneOf') && detail.startsWith('must be one of')) {
        const i = out.findIndex((f) => f.pointer === pointer);
        if (i >= 0) out[i] = { pointer, detail };
      }
      continue;
    }
    seen.add(key);
    out.push({ pointer, detail });
  }
  return out;
}
